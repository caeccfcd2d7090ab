"""How to install a repository's dependencies on this machine.

An instance with a ``Dockerfile`` column is prepared from it: its ``RUN`` steps run in a
checkout of the base commit with the toolchains it names (see
:mod:`polybench.environments.dockerfile`). Without one, the recipe of the repository's
ecosystem is inferred from its manifest files (read straight from git, no checkout):

* Node: ``yarn install --frozen-lockfile`` when there is a ``yarn.lock``, else ``npm ci``
  or ``npm install``; workspaces are installed by the root install, packages with their
  own lockfile get their own; the Node version comes from ``.nvmrc``, ``.node-version``
  or ``engines.node``;
* Python: a venv, the first requirements file, and the project itself, editable, with
  its test extras (``pip install -e .[test]``);
* Java: ``mvn -B test`` when the test command names no Maven call.

Every recipe, Dockerfile or not, ends with what the test command itself needs
(:mod:`polybench.environments.commandneeds`): its Maven calls run once with test failures
ignored, so every plugin they name (``surefire-report:report``) is in the environment's
repository when tests run offline, and every Node version it selects with ``nvm use`` is
fetched. The cache key is a hash of the manifests, the steps (a Maven step without its
test selection) and the toolchains.
"""

from __future__ import annotations

import configparser
import fnmatch
import hashlib
import json
import re
import shlex
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath

from polybench.dataset.models import Instance, Language
from polybench.environments.commandneeds import MAVEN_RESOLVE_FLAGS, CommandNeeds, command_needs
from polybench.environments.dockerfile import (
    CHECKOUT,
    ENV_DIR,
    DockerfilePlan,
    SetupStep,
    interpret,
    node_spec,
    rewrite,
)
from polybench.environments.shellwords import command_words, split_commands

RECIPE_VERSION = "2"
PYTHON_REQUIREMENT_FILES = ("requirements-dev.txt", "requirements-test.txt", "requirements.txt")
PYTHON_PROJECT_FILES = ("pyproject.toml", "setup.py", "setup.cfg")
TEST_EXTRAS = ("test", "tests", "testing")
NODE_LOCKFILES = ("package-lock.json", "npm-shrinkwrap.json", "yarn.lock")
PYTHON = "{python}"
"""Placeholder of the interpreter the environment's venv is made with."""


@dataclass(frozen=True)
class Activation:
    """How a prepared environment is used inside a sandbox.

    ``env`` values may contain ``{env_dir}`` (the installed environment) and
    ``{workdir}`` (the repository inside the sandbox); ``path_prepend`` entries may
    contain ``{env_dir}`` only: no path of the checkout ever goes on ``PATH``.
    """

    env: dict[str, str] = field(default_factory=dict)
    path_prepend: tuple[str, ...] = ()


@dataclass(frozen=True)
class Needs:
    """The toolchains a recipe runs with, and the versions asked for (None: the machine's)."""

    node: bool = False
    node_version: str | None = None
    yarn: bool = False
    java: bool = False
    java_version: str | None = None
    maven: bool = False
    python: bool = False
    python_version: str | None = None
    nvm_node_versions: tuple[str, ...] = ()
    """Node versions the test command selects with ``nvm use`` (fetched besides ``node``)."""


@dataclass(frozen=True)
class Step:
    """One install command, run with bash in ``workdir`` of the setup checkout.

    ``command`` may contain ``{checkout}``, ``{env_dir}`` and ``{python}``; ``key`` is
    what the cache key records instead of ``command`` when they differ (the Maven step's
    test selection changes from instance to instance, its needs do not).
    """

    command: str
    workdir: str = ""
    env: tuple[tuple[str, str], ...] = ()
    key: str | None = None


@dataclass(frozen=True)
class Recipe:
    """An install procedure bound to one repository's manifest files."""

    name: str
    needs: Needs
    manifests: dict[str, bytes]
    install: tuple[Step, ...]
    activation: Activation
    source: str = "inferred"
    """``Dockerfile`` when the steps come from the instance's Dockerfile column."""
    notes: tuple[str, ...] = ()

    def key(self, toolchain: str) -> str:
        """Cache key: the recipe, the manifests' bytes, the steps and the toolchains."""
        digest = hashlib.sha256()
        digest.update(f"{self.name}\0{RECIPE_VERSION}\0{toolchain}\0{self.source}\0".encode())
        if self.needs.nvm_node_versions:
            digest.update(f"nvm\0{self.needs.nvm_node_versions}\0".encode())
        for path in sorted(self.manifests):
            digest.update(path.encode() + b"\0" + hashlib.sha256(self.manifests[path]).digest())
        for step in self.install:
            text = step.key if step.key is not None else step.command
            digest.update(f"{text}\0{step.workdir}\0{sorted(step.env)}\0".encode())
        return digest.hexdigest()[:24]


def git_show(clone: Path, commit: str, path: str) -> bytes | None:
    """The bytes of ``path`` at ``commit``, or None when it does not exist there."""
    completed = subprocess.run(
        ["git", "-C", str(clone), "show", f"{commit}:{path}"], capture_output=True, check=False
    )
    return completed.stdout if completed.returncode == 0 else None


def git_show_many(clone: Path, commit: str, paths: list[str]) -> dict[str, bytes | None]:
    """The bytes of each of ``paths`` at ``commit`` (None where it is no file there), read
    by one ``git cat-file --batch``."""
    found: dict[str, bytes | None] = dict.fromkeys(paths)
    asked = [path for path in dict.fromkeys(paths) if "\n" not in path]
    for path in set(paths) - set(asked):  # a name the batch protocol cannot carry
        found[path] = git_show(clone, commit, path)
    if not asked:
        return found
    completed = subprocess.run(
        ["git", "-C", str(clone), "cat-file", "--batch"],
        input="".join(f"{commit}:{path}\n" for path in asked).encode(),
        capture_output=True,
        check=False,
    )
    out, pos = completed.stdout, 0
    for path in asked:
        end = out.find(b"\n", pos)
        if end == -1:
            break
        header = out[pos:end].split()
        pos = end + 1
        if len(header) != 3 or not header[2].isdigit():
            continue  # "<name> missing" (or ambiguous): nothing follows
        size = int(header[2])
        if header[1] == b"blob":
            found[path] = out[pos : pos + size]
        pos += size + 1
    return found


def git_ls(clone: Path, commit: str) -> list[str]:
    """Every file path at ``commit``."""
    completed = subprocess.run(
        ["git", "-C", str(clone), "ls-tree", "-r", "--name-only", "-z", commit],
        capture_output=True,
        check=True,
    )
    return [p for p in completed.stdout.decode("utf-8", "replace").split("\0") if p]


def _plan_steps(plan: DockerfilePlan | None) -> tuple[Step, ...]:
    if plan is None:
        return ()
    return tuple(_step(s) for s in plan.steps)


def _step(step: SetupStep) -> Step:
    return Step(step.command, step.workdir, step.env)


# -- Node ------------------------------------------------------------------------------


def _json(data: bytes | None) -> dict[str, object]:
    if data is None:
        return {}
    try:
        loaded = json.loads(data.decode("utf-8", "replace"))
    except ValueError:
        return {}
    return loaded if isinstance(loaded, dict) else {}


def workspace_patterns(package_json: dict[str, object]) -> list[str]:
    """The ``workspaces`` globs of a ``package.json`` (list form or ``{packages: [...]}``)."""
    workspaces = package_json.get("workspaces")
    if isinstance(workspaces, dict):
        workspaces = workspaces.get("packages")
    if not isinstance(workspaces, list):
        return []
    return [str(p).rstrip("/") for p in workspaces if isinstance(p, str)]


def _in_workspaces(folder: str, patterns: list[str]) -> bool:
    return any(
        fnmatch.fnmatchcase(folder, p) or fnmatch.fnmatchcase(folder, p.replace("/**", "/*"))
        for p in patterns
    )


def node_version_request(
    root_files: Mapping[str, bytes], package_json: dict[str, object]
) -> tuple[str | None, str]:
    """The Node version a repository pins: ``.nvmrc``, ``.node-version`` (read from
    ``root_files``, path: bytes), then ``engines.node``; with where it was read.
    ``(None, "")`` when it pins none."""
    for name in (".nvmrc", ".node-version"):
        raw = root_files.get(name)
        if raw is not None:
            text = raw.decode("utf-8", "replace").strip().splitlines()
            spec = node_spec(text[0]) if text else None
            if spec is not None:
                return spec, name
    engines = package_json.get("engines")
    if isinstance(engines, dict) and isinstance(engines.get("node"), str):
        return str(engines["node"]).strip(), "engines.node"
    return None, ""


def _node_install(files: list[str], root: dict[str, object]) -> tuple[Step, ...]:
    steps: list[Step] = []
    patterns = workspace_patterns(root)
    folders = sorted(
        {str(PurePosixPath(p).parent) for p in files if PurePosixPath(p).name in NODE_LOCKFILES}
    )
    for folder in ["."] + [f for f in folders if f != "."]:
        if folder != "." and (_in_workspaces(folder, patterns) or "node_modules" in folder):
            continue
        names = {PurePosixPath(p).name for p in files if str(PurePosixPath(p).parent) == folder}
        if folder != "." and "package.json" not in names:
            continue
        if "yarn.lock" in names:
            command = "yarn install --frozen-lockfile --non-interactive"
        elif names & {"package-lock.json", "npm-shrinkwrap.json"}:
            command = "npm ci --no-audit --no-fund"
        else:
            command = "npm install --no-audit --no-fund"
        steps.append(Step(command, "" if folder == "." else folder))
    return tuple(steps)


def _node_recipe(clone: Path, commit: str, plan: DockerfilePlan | None) -> Recipe | None:
    raw_package = git_show(clone, commit, "package.json")
    if raw_package is None and plan is None:
        return None
    files = git_ls(clone, commit)
    manifest_names = {"package.json", *NODE_LOCKFILES, ".nvmrc", ".node-version", ".yarnrc"}
    wanted = [
        p for p in files if PurePosixPath(p).name in manifest_names and "node_modules/" not in p
    ]
    manifests = {p: data or b"" for p, data in git_show_many(clone, commit, wanted).items()}
    root = _json(raw_package)
    notes = list(plan.notes) if plan is not None else []
    version = plan.node if plan is not None else None
    if version is not None:
        notes.append(f"Node {version} asked for by the Dockerfile")
    else:
        version, where = node_version_request(manifests, root)
        if version is not None:
            notes.append(f"Node {version} asked for by {where}")
    install = _plan_steps(plan) if plan is not None and plan.steps else _node_install(files, root)
    uses_yarn = any(PurePosixPath(p).name == "yarn.lock" for p in manifests) or any(
        PurePosixPath((command_words(segment.text) or [""])[0]).name in ("yarn", "yarnpkg")
        for step in install
        for segment in split_commands(step.command)
    )
    path = list(plan.path) if plan is not None else []
    for entry in (f"{ENV_DIR}/node_modules/.bin", f"{ENV_DIR}/global/bin"):
        if entry not in path:
            path.append(entry)
    env = {"NO_COLOR": "1", "FORCE_COLOR": "0", "CI": "true"}
    env.update(plan.env if plan is not None else {})
    return Recipe(
        name="node",
        needs=Needs(node=True, node_version=version, yarn=uses_yarn),
        manifests=manifests,
        install=install,
        # The environment's own copy of .bin: nothing in the checkout can put a tool first.
        activation=Activation(env=env, path_prepend=tuple(path)),
        source="Dockerfile" if plan is not None and plan.steps else "inferred",
        notes=tuple(notes),
    )


# -- Python ----------------------------------------------------------------------------


def _toml_extras(text: str) -> list[str]:
    """Keys of ``[project.optional-dependencies]`` and ``[tool.poetry.extras]`` (read line by
    line: ``tomllib`` is not in every supported Python)."""
    found: list[str] = []
    for section in re.finditer(
        r"^\[(?:project\.optional-dependencies|tool\.poetry\.extras)\]\s*$(.*?)(?=^\[|\Z)",
        text,
        re.M | re.S,
    ):
        found += re.findall(r"^[\"']?([\w.-]+)[\"']?\s*=", section.group(1), re.M)
    return found


def python_extras(manifests: dict[str, bytes]) -> list[str]:
    """The extras a project declares (``pyproject.toml``, ``setup.cfg``, ``setup.py``)."""
    extras: list[str] = []
    pyproject = manifests.get("pyproject.toml")
    if pyproject is not None:
        extras += _toml_extras(pyproject.decode("utf-8", "replace"))
    setup_cfg = manifests.get("setup.cfg")
    if setup_cfg is not None:
        parser = configparser.ConfigParser()
        try:
            parser.read_string(setup_cfg.decode("utf-8", "replace"))
            if parser.has_section("options.extras_require"):
                extras += list(parser["options.extras_require"])
        except configparser.Error:
            pass
    setup_py = manifests.get("setup.py")
    if setup_py is not None:
        text = setup_py.decode("utf-8", "replace")
        block = re.search(r"extras_require\s*=\s*(\{|dict\()(.*?)(\}|\))\s*[,)]", text, re.S)
        if block is not None:
            body = block.group(2)
            extras += re.findall(r"[\"']([\w.-]+)[\"']\s*:", body)
            extras += re.findall(r"(?:^|[,(\s])([A-Za-z_]\w*)\s*=", body)
    return list(dict.fromkeys(extras))


def extras_for_tests(declared: list[str]) -> list[str]:
    """The extras to install for tests: ``test``/``tests``/``testing``, else ``dev``."""
    chosen = [e for e in TEST_EXTRAS if e in declared]
    if chosen:
        return chosen[:1]
    return ["dev"] if "dev" in declared else []


def _installable(manifests: dict[str, bytes]) -> bool:
    if "setup.py" in manifests:
        return True
    pyproject = manifests.get("pyproject.toml", b"").decode("utf-8", "replace")
    if re.search(r"^\[(project|build-system|tool\.poetry)\]", pyproject, re.M):
        return True
    setup_cfg = manifests.get("setup.cfg", b"").decode("utf-8", "replace")
    return bool(re.search(r"^\[metadata\]", setup_cfg, re.M)) and "pyproject.toml" in manifests


def _python_recipe(clone: Path, commit: str, plan: DockerfilePlan | None) -> Recipe:
    candidates = [*PYTHON_REQUIREMENT_FILES, *PYTHON_PROJECT_FILES]
    manifests = {
        path: content
        for path, content in git_show_many(clone, commit, candidates).items()
        if content is not None
    }
    pip = f"{ENV_DIR}/venv/bin/python -m pip install -q --disable-pip-version-check"
    install = [Step(f"{PYTHON} -m venv {ENV_DIR}/venv")]
    if plan is not None and plan.steps:
        install += _plan_steps(plan)
    else:
        requirement = next((f for f in PYTHON_REQUIREMENT_FILES if f in manifests), None)
        if requirement is not None:
            install.append(Step(f"{pip} -r {requirement}"))
        if _installable(manifests):
            extras = extras_for_tests(python_extras(manifests))
            target = f".[{','.join(extras)}]" if extras else "."
            install.append(Step(f"{pip} -e {shlex.quote(target)}"))
    path = list(plan.path) if plan is not None else []
    if f"{ENV_DIR}/venv/bin" not in path:
        path.insert(0, f"{ENV_DIR}/venv/bin")
    env = {"VIRTUAL_ENV": f"{ENV_DIR}/venv", "PYTHONDONTWRITEBYTECODE": "1"}
    env.update(plan.env if plan is not None else {})
    return Recipe(
        name="python",
        needs=Needs(python=True, python_version=plan.python if plan is not None else None),
        manifests=manifests,
        install=tuple(install),
        activation=Activation(env=env, path_prepend=tuple(path)),
        source="Dockerfile" if plan is not None and plan.steps else "inferred",
        notes=tuple(plan.notes) if plan is not None else (),
    )


# -- Java ------------------------------------------------------------------------------


def maven_resolution_steps(test_command: str) -> tuple[Step, ...]:
    """One step per ``mvn`` call of ``test_command`` (see
    :func:`~polybench.environments.commandneeds.command_needs`), ``/testbed`` mapped to
    the setup checkout."""
    return _command_steps(command_needs(test_command))


def _command_steps(needs: CommandNeeds) -> tuple[Step, ...]:
    return tuple(Step(rewrite(step.command, [], CHECKOUT), key=step.key) for step in needs.steps)


def _maven_recipe(
    clone: Path, commit: str, plan: DockerfilePlan | None, test_command: str
) -> Recipe | None:
    poms = [p for p in git_ls(clone, commit) if p == "pom.xml" or p.endswith("/pom.xml")]
    if "pom.xml" not in poms and plan is None:
        return None
    manifests = {p: data or b"" for p, data in git_show_many(clone, commit, poms).items()}
    install = list(_plan_steps(plan))
    if not install and not command_needs(test_command).steps:
        install.append(Step(" ".join(["mvn", "-B", *MAVEN_RESOLVE_FLAGS, "test"])))
    env = {
        "MAVEN_OPTS": f"-Dmaven.repo.local={ENV_DIR}/m2",
        "POLYBENCH_MAVEN_OFFLINE": "1",
    }
    env.update(plan.env if plan is not None else {})
    return Recipe(
        name="maven",
        needs=Needs(java=True, java_version=plan.java if plan else None, maven=True),
        manifests=manifests,
        install=tuple(install),
        activation=Activation(env=env, path_prepend=tuple(plan.path) if plan else ()),
        source="Dockerfile" if plan is not None and plan.steps else "inferred",
        notes=tuple(plan.notes) if plan is not None else (),
    )


def recipe_for(instance: Instance, clone: Path) -> Recipe | None:
    """The recipe that prepares ``instance``'s repository, or None when it needs none.

    It ends with what the test command needs (its Maven calls, its ``nvm use``
    versions), whatever the language."""
    commit = instance.base_commit
    plan = interpret(instance.Dockerfile) if instance.Dockerfile.strip() else None
    recipe: Recipe | None = None
    if instance.language is Language.PYTHON:
        recipe = _python_recipe(clone, commit, plan)
    elif instance.language in (Language.JAVASCRIPT, Language.TYPESCRIPT):
        recipe = _node_recipe(clone, commit, plan)
    elif instance.language is Language.JAVA:
        recipe = _maven_recipe(clone, commit, plan, instance.test_command)
    if recipe is None:
        return None
    needs = command_needs(instance.test_command)
    if needs.empty:
        return recipe
    notes = [f"Node {v} selected by the test command (nvm use)" for v in needs.node_versions]
    return replace(
        recipe,
        needs=replace(recipe.needs, nvm_node_versions=needs.node_versions),
        install=recipe.install + _command_steps(needs),
        notes=recipe.notes + tuple(notes),
    )
