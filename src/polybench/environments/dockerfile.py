"""An interpreter of the Dockerfile subset that instance ``Dockerfile`` columns use.

Official instances describe their environment as a Dockerfile: ``FROM`` a language
base, ``WORKDIR /testbed``, ``COPY . .``, ``ENV`` lines and ``RUN`` steps such as
``. /usr/local/nvm/nvm.sh && nvm install 16 && nvm use 16 && npm ci``,
``pip install -e .[test]`` or ``mvn ... install``. The local backend has no image to
build, so it reads the file into a :class:`DockerfilePlan`: the toolchain versions the
file asks for (``nvm install/use``, ``JAVA_HOME``, ``update-alternatives``, the ``FROM``
image), the ``RUN`` steps to run in a checkout of the repository with those toolchains
first on ``PATH``, and the ``ENV`` values the test command expects.

Container paths are rewritten on the way: ``/testbed`` becomes the checkout, a virtual
environment the file creates becomes the environment's own ``venv``, anything under
``/opt`` moves into the environment directory. Steps that would change the machine
(system package managers, downloads of installers, ``git clone``) are not run; each one
is listed in the plan's notes, which go into the setup log.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from polybench.environments.shellwords import (
    Segment,
    command_words,
    join_commands,
    split_commands,
    words,
)

CONTAINER_WORKDIR = "/testbed"
CHECKOUT = "{checkout}"
"""Placeholder of the setup checkout in a step's command."""
WORKDIR = "{workdir}"
"""Placeholder of the sandbox's repository in an environment variable."""
ENV_DIR = "{env_dir}"
"""Placeholder of the prepared environment's directory."""

SYSTEM_TOOLS = frozenset(
    {
        "apt-get",
        "apt",
        "aptitude",
        "dpkg",
        "yum",
        "dnf",
        "microdnf",
        "apk",
        "rpm",
        "zypper",
        "add-apt-repository",
        "update-ca-certificates",
        "adduser",
        "useradd",
        "groupadd",
        "usermod",
        "locale-gen",
        "ldconfig",
        "curl",
        "wget",
        "corepack",
        "chown",
        "systemctl",
        "service",
    }
)
_NVM_CODENAMES = {
    "argon": "4",
    "boron": "6",
    "carbon": "8",
    "dubnium": "10",
    "erbium": "12",
    "fermium": "14",
    "gallium": "16",
    "hydrogen": "18",
    "iron": "20",
    "jod": "22",
    "krypton": "24",
}
_IGNORED = frozenset(
    {
        "COPY",
        "ADD",
        "EXPOSE",
        "CMD",
        "ENTRYPOINT",
        "USER",
        "LABEL",
        "SHELL",
        "VOLUME",
        "HEALTHCHECK",
        "STOPSIGNAL",
        "ONBUILD",
        "MAINTAINER",
    }
)
_VARIABLE = re.compile(r"\$(?:\{(\w+)(?::?[-+][^}]*)?\}|(\w+))")
_PYTHON_IMAGE = re.compile(r"(?:^|/)python:(\d+(?:\.\d+)?)")
_NODE_IMAGE = re.compile(r"(?:^|/)node:v?(\d+(?:\.\d+){0,2})")
_JAVA_IMAGE = re.compile(
    r"(?:openjdk|eclipse-temurin|temurin|amazoncorretto|corretto|jdk|maven:[^-]+-\w+(?:-\w+)?)"
    r"[:-](\d+)"
)
_NODE_IN_PATH = re.compile(r"/nvm/versions/node/v?(\d+(?:\.\d+){0,2})")


@dataclass(frozen=True)
class Instruction:
    """One Dockerfile instruction: its keyword (upper case) and its text."""

    keyword: str
    value: str
    line: int


@dataclass(frozen=True)
class SetupStep:
    """One ``RUN`` step: a shell command run in ``workdir`` (relative to the checkout)
    with the ``ENV`` values in force at that point (container form)."""

    command: str
    workdir: str = ""
    env: tuple[tuple[str, str], ...] = ()


@dataclass
class DockerfilePlan:
    """What a Dockerfile asks of an environment, in terms the local backend can run."""

    base_image: str = ""
    steps: list[SetupStep] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    """``ENV`` values the test command sees (container form; see :func:`rewrite`)."""
    path: list[str] = field(default_factory=list)
    """``PATH`` entries the file puts first, already mapped (placeholders allowed)."""
    node: str | None = None
    java: str | None = None
    """The JDK asked for: a container path (``/usr/lib/jvm/...``) or a major version."""
    python: str | None = None
    venvs: list[str] = field(default_factory=list)
    installs: set[str] = field(default_factory=set)
    """Kinds of install the steps run: ``npm``, ``yarn``, ``pip``, ``mvn``."""
    notes: list[str] = field(default_factory=list)


def parse_dockerfile(text: str) -> list[Instruction]:
    """The instructions of a Dockerfile: continuation lines joined, comments dropped,
    ``RUN <<EOF`` here-documents read as their body."""
    instructions: list[Instruction] = []
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        start = index
        raw = lines[index].strip()
        index += 1
        if not raw or raw.startswith("#"):
            continue
        parts = [raw]
        while parts[-1].endswith("\\") and index < len(lines):
            parts[-1] = parts[-1][:-1]
            following = lines[index].strip()
            index += 1
            if following.startswith("#"):
                parts.append("\\")  # a comment inside a continuation keeps it going
                continue
            parts.append(following)
        if parts[-1].endswith("\\"):
            parts[-1] = parts[-1][:-1]
        logical = " ".join(p for p in parts if p)
        keyword, _, value = logical.partition(" ")
        value = value.strip()
        heredoc = re.match(r"<<-?[\"']?(\w+)[\"']?\s*$", value)
        if heredoc is not None:
            body: list[str] = []
            while index < len(lines) and lines[index].strip() != heredoc.group(1):
                body.append(lines[index])
                index += 1
            index += 1
            value = "\n".join(body)
        instructions.append(Instruction(keyword.upper(), value, start + 1))
    return instructions


def node_spec(version: str) -> str | None:
    """An nvm version argument as an npm version range (``v16`` → ``16``,
    ``lts/gallium`` → ``16``); None for ``node``, ``stable`` and other moving targets."""
    version = version.strip()
    lowered = version.lower()
    if lowered.startswith("lts/"):
        return _NVM_CODENAMES.get(lowered[4:])
    if lowered in _NVM_CODENAMES:
        return _NVM_CODENAMES[lowered]
    if re.fullmatch(r"v?\d+(\.\d+){0,2}(\.x)?", lowered):
        return lowered.lstrip("v")
    return None


def java_major(request: str) -> int | None:
    """The JDK major version named by a path or version (``java-1.8.0-...`` → 8)."""
    legacy = re.search(r"1\.(\d+)\.\d", request)
    if legacy is not None:
        return int(legacy.group(1))
    named = re.search(r"(?:java|jdk|jre|temurin|corretto|openjdk)[-_]?(\d+)", request)
    if named is not None:
        return int(named.group(1))
    if re.fullmatch(r"\d+", request.strip()):
        return int(request.strip())
    return None


def _boundary(prefix: str) -> re.Pattern[str]:
    return re.compile(r"(?<![\w.~$/-])" + re.escape(prefix) + r"(?=$|[/\s'\"`:;,)=|&])")


def map_workdir(text: str, target: str) -> str:
    """``text`` with the container's repository path ``/testbed`` mapped to ``target``
    (nothing else)."""
    return _boundary(CONTAINER_WORKDIR).sub(lambda _: target, text)


def rewrite(text: str, venvs: list[str], checkout: str) -> str:
    """Map container paths in ``text``: each venv to ``{env_dir}/venv``, ``/opt`` into the
    environment directory, ``/testbed`` to ``checkout`` (``{checkout}`` or ``{workdir}``)."""
    for venv in sorted(venvs, key=len, reverse=True):
        text = _boundary(venv).sub(lambda _: f"{ENV_DIR}/venv", text)
    text = _boundary("/opt").sub(lambda _: f"{ENV_DIR}/root/opt", text)
    return _boundary(CONTAINER_WORKDIR).sub(lambda _: checkout, text)


def _substitute(value: str, variables: dict[str, str], keep: frozenset[str]) -> str:
    def replace(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(2)
        if name in keep:
            return match.group(0)
        return variables.get(name, "")

    return _VARIABLE.sub(replace, value)


def _env_pairs(value: str) -> list[tuple[str, str]]:
    tokens = words(value)
    if tokens and "=" not in tokens[0]:
        # Legacy form ``ENV KEY value with spaces``.
        key, _, rest = value.partition(" ")
        return [(key, rest.strip())]
    pairs = []
    for token in tokens:
        key, sep, text = token.partition("=")
        if sep:
            pairs.append((key, text))
    return pairs


class _Interpreter:
    def __init__(self) -> None:
        self.plan = DockerfilePlan()
        self.variables: dict[str, str] = {}
        self.env: dict[str, str] = {}
        self.workdir = ""
        self.raw_steps: list[SetupStep] = []
        self.raw_path: list[tuple[str, int]] = []

    def run(self, instructions: list[Instruction]) -> DockerfilePlan:
        for instruction in instructions:
            handler = getattr(self, f"_on_{instruction.keyword.lower()}", None)
            if handler is not None:
                handler(instruction)
            elif instruction.keyword not in _IGNORED:
                self.plan.notes.append(
                    f"line {instruction.line}: {instruction.keyword} is not interpreted"
                )
        return self._finish()

    def _finish(self) -> DockerfilePlan:
        """Map container paths once every virtual environment the file makes is known."""
        venvs = self.plan.venvs
        for step in self.raw_steps:
            env = tuple((key, rewrite(value, venvs, CHECKOUT)) for key, value in step.env)
            self.plan.steps.append(
                SetupStep(rewrite(step.command, venvs, CHECKOUT), step.workdir, env)
            )
        self.plan.env = {key: rewrite(value, venvs, WORKDIR) for key, value in self.env.items()}
        for entry, line in self.raw_path:
            mapped = rewrite(entry, venvs, WORKDIR)
            if mapped.startswith(WORKDIR):
                if mapped.rstrip("/") == f"{WORKDIR}/node_modules/.bin":
                    # The environment's own copy: nothing in the checkout goes on PATH.
                    mapped = f"{ENV_DIR}/node_modules/.bin"
                else:
                    self.plan.notes.append(
                        f"line {line}: PATH entry {entry} is inside the repository and is "
                        "left out (tools come from the environment, never the checkout)"
                    )
                    continue
            if mapped not in self.plan.path:
                self.plan.path.append(mapped)
        return self.plan

    def _on_from(self, instruction: Instruction) -> None:
        image = [w for w in instruction.value.split() if not w.startswith("--")]
        self.plan.base_image = image[0] if image else ""
        python = _PYTHON_IMAGE.search(self.plan.base_image)
        if python is not None:
            self.plan.python = python.group(1)
        node = _NODE_IMAGE.search(self.plan.base_image)
        if node is not None:
            self.plan.node = node.group(1)
        java = _JAVA_IMAGE.search(self.plan.base_image)
        if java is not None:
            self.plan.java = java.group(1)

    def _on_arg(self, instruction: Instruction) -> None:
        name, _, default = instruction.value.partition("=")
        self.variables.setdefault(name.strip(), default.strip().strip("\"'"))

    def _on_workdir(self, instruction: Instruction) -> None:
        target = _substitute(instruction.value.strip().strip("\"'"), self.variables, frozenset())
        if not target.startswith("/"):
            target = f"{CONTAINER_WORKDIR}/{self.workdir}/{target}".replace("//", "/")
        if target == CONTAINER_WORKDIR or target.startswith(CONTAINER_WORKDIR + "/"):
            self.workdir = target[len(CONTAINER_WORKDIR) :].strip("/")
        else:
            self.workdir = ""
            self.plan.notes.append(
                f"line {instruction.line}: WORKDIR {target} is read as the repository root"
            )

    def _on_env(self, instruction: Instruction) -> None:
        for key, raw in _env_pairs(instruction.value):
            value = _substitute(raw, {**self.variables, **self.env}, frozenset({"PATH"}))
            self.variables[key] = value
            if key == "PATH":
                self._on_path(value, instruction.line)
            elif key == "JAVA_HOME":
                self.plan.java = value
            elif key == "NODE_VERSION":
                self.plan.node = node_spec(value) or self.plan.node
            elif key in ("NVM_DIR", "NODE_PATH", "M2_HOME", "MAVEN_HOME"):
                continue
            else:
                self.env[key] = value

    def _on_path(self, value: str, line: int) -> None:
        before = re.split(r"\$\{?PATH\}?", value)[0]
        for entry in (e for e in before.split(":") if e):
            node = _NODE_IN_PATH.search(entry)
            if node is not None:
                self.plan.node = node.group(1)
            else:
                self.raw_path.append((entry, line))

    def _on_run(self, instruction: Instruction) -> None:
        value = instruction.value.strip()
        if value.startswith("["):
            import json

            try:
                argv = json.loads(value)
                value = " ".join(str(a) for a in argv)
            except ValueError:
                pass
        value = re.sub(r"^(--\w+(=\S*)?\s+)+", "", value)  # RUN --mount=... options
        segments = split_commands(value)
        kept = [self._segment(segment, instruction.line) for segment in segments]
        if all(segment.text == "true" for segment in kept):
            return
        self.raw_steps.append(SetupStep(join_commands(kept), self.workdir, tuple(self.env.items())))

    def _segment(self, segment: Segment, line: int) -> Segment:
        argv = [
            _substitute(word, {**self.variables, **self.env}, frozenset({"PATH"}))
            for word in command_words(segment.text)
        ]
        if not argv:
            return segment
        program = argv[0].rsplit("/", 1)[-1]
        dropped = Segment("true", segment.operator)
        if program in (".", "source") and len(argv) > 1 and argv[1].endswith("nvm.sh"):
            return dropped
        if program == "nvm":
            self._on_nvm(argv[1:])
            return dropped
        if program in SYSTEM_TOOLS:
            self.plan.notes.append(
                f"line {line}: not run (changes the machine, not the environment): {segment.text}"
            )
            return dropped
        if program == "git" and len(argv) > 1 and argv[1] in ("clone", "fetch", "checkout"):
            self.plan.notes.append(
                f"line {line}: not run (the checkout is the repository at its base commit): "
                f"{segment.text}"
            )
            return dropped
        venv = _venv_target(argv)
        if venv is not None:
            if venv not in self.plan.venvs:
                self.plan.venvs.append(venv)
            return dropped
        self._note_tools(program, argv)
        return segment

    def _on_nvm(self, args: list[str]) -> None:
        positional = [a for a in args if not a.startswith("-")]
        version = None
        if positional[:1] in (["install"], ["use"]) and len(positional) > 1:
            version = positional[1]
        elif positional[:2] == ["alias", "default"] and len(positional) > 2:
            version = positional[2]
        if version is not None:
            spec = node_spec(version)
            if spec is not None:
                self.plan.node = spec

    def _note_tools(self, program: str, argv: list[str]) -> None:
        if program == "export":
            for assignment in argv[1:]:
                key, _, value = assignment.partition("=")
                if key == "JAVA_HOME" and value:
                    self.plan.java = value
        elif program == "update-alternatives" and "--set" in argv:
            position = argv.index("--set")
            if position + 2 < len(argv) and argv[position + 1] in ("java", "javac"):
                self.plan.java = re.sub(r"(/jre)?/bin/javac?$", "", argv[position + 2])
        elif program == "npm" and len(argv) > 1 and argv[1] in ("ci", "install", "i"):
            self.plan.installs.add("npm")
        elif program in ("yarn", "yarnpkg") and (len(argv) == 1 or argv[1] == "install"):
            self.plan.installs.add("yarn")
        elif program in ("pip", "pip3") or argv[1:3] == ["-m", "pip"]:
            self.plan.installs.add("pip")
        elif program in ("mvn", "mvnw"):
            self.plan.installs.add("mvn")


def _venv_target(argv: list[str]) -> str | None:
    program = argv[0].rsplit("/", 1)[-1]
    if re.fullmatch(r"python[\d.]*", program) and argv[1:3] == ["-m", "venv"]:
        rest = argv[3:]
    elif program == "virtualenv":
        rest = argv[1:]
    else:
        return None
    targets = [a for a in rest if not a.startswith("-")]
    return targets[-1].rstrip("/") if targets else None


def interpret(text: str) -> DockerfilePlan:
    """Read a Dockerfile into the plan the local backend runs; see the module docstring."""
    return _Interpreter().run(parse_dockerfile(text))
