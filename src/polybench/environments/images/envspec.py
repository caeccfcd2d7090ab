"""Which environment image an instance needs: its Dockerfile and its dependency set.

Instances share an environment image when their Dockerfile text, the images it starts
from and their manifest files (``package.json``, lock files, requirements, ``pom.xml``...)
are the same. This is the key of the local backend's environment cache, applied to the
Dockerfile: two tasks of one repository with the same dependencies build it once. An
instance without a ``Dockerfile`` gets one made from its language (the same steps as the
``mini`` Dockerfiles). The Dockerfile built ends with what the test command needs
(:mod:`polybench.environments.images.prepare`), keyed by those needs, not by the tests
the command selects.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from polybench.dataset.models import Instance, Language
from polybench.environments.commandneeds import command_needs
from polybench.environments.images.context import DOCKERIGNORE_HANDLING, restore_dockerignore
from polybench.environments.images.errors import ImageBuildError
from polybench.environments.images.prepare import with_preparation
from polybench.environments.images.settings import LANGUAGE_BASES, digest, env_tag

ENV_LAYOUT_VERSION = "1"
MANIFEST_NAMES = frozenset(
    {
        "package.json",
        "package-lock.json",
        "npm-shrinkwrap.json",
        "yarn.lock",
        "pnpm-lock.yaml",
        "pnpm-workspace.yaml",
        ".npmrc",
        ".yarnrc",
        ".yarnrc.yml",
        ".nvmrc",
        ".node-version",
        "setup.py",
        "setup.cfg",
        "pyproject.toml",
        "poetry.lock",
        "Pipfile",
        "Pipfile.lock",
        ".python-version",
        "pom.xml",
        "build.gradle",
        "build.gradle.kts",
        "settings.gradle",
        "settings.gradle.kts",
        "gradle.properties",
    }
)
_FROM = re.compile(r"^\s*FROM\s+(?:--\S+\s+)*(\S+)(?:\s+AS\s+(\S+))?", re.IGNORECASE | re.MULTILINE)
_TOKEN = re.compile(r"[\s;&|=\"'`()]+")
REQUIREMENT_FILES = ("requirements-dev.txt", "requirements-test.txt", "requirements.txt")


@dataclass(frozen=True)
class EnvSpec:
    """The environment image of an instance: how it is built and what it is keyed by."""

    repo: str
    commit: str
    language: str
    dockerfile: str
    generated: bool
    parents: tuple[str, ...]
    manifests: tuple[tuple[str, str], ...]
    key: str

    @property
    def tag(self) -> str:
        """``polybench-env/<owner>__<name>:<key>``."""
        return env_tag(self.repo, self.key)


def tree_entries(clone: Path, commit: str) -> dict[str, str]:
    """Path -> blob id of every file at ``commit``."""
    completed = subprocess.run(
        ["git", "-C", str(clone), "ls-tree", "-r", "-z", commit],
        capture_output=True,
        check=False,
    )
    if completed.returncode != 0:
        raise ImageBuildError(
            f"cannot list {commit[:12]}: {completed.stderr.decode('utf-8', 'replace').strip()}"
        )
    entries: dict[str, str] = {}
    for record in completed.stdout.decode("utf-8", "replace").split("\0"):
        if not record:
            continue
        meta, _, path = record.partition("\t")
        parts = meta.split()
        if len(parts) == 3 and parts[1] == "blob":
            entries[path] = parts[2]
    return entries


def from_images(dockerfile: str) -> tuple[str, ...]:
    """The images a Dockerfile starts from (build stages it names are left out)."""
    stages: set[str] = set()
    images: list[str] = []
    for match in _FROM.finditer(dockerfile):
        image, alias = match.group(1), match.group(2)
        if image.lower() not in stages and image not in images:
            images.append(image)
        if alias:
            stages.add(alias.lower())
    return tuple(images)


def _is_manifest(path: str) -> bool:
    if "node_modules/" in path:
        return False
    name = path.rsplit("/", 1)[-1]
    return name in MANIFEST_NAMES or (name.startswith("requirements") and name.endswith(".txt"))


def manifest_blobs(entries: dict[str, str], dockerfile: str) -> tuple[tuple[str, str], ...]:
    """The manifest files and the repository files the Dockerfile names, with blob ids."""
    chosen = {path for path in entries if _is_manifest(path)}
    for token in _TOKEN.split(dockerfile):
        for prefix in ("/testbed/", "./"):
            token = token.removeprefix(prefix)
        if token in entries:
            chosen.add(token)
    return tuple(sorted((path, entries[path]) for path in chosen))


def default_dockerfile(language: Language, entries: dict[str, str]) -> str:
    """A Dockerfile for an instance that has none, in the shape of the ``mini`` ones."""
    base = LANGUAGE_BASES[language]
    lines = [f"FROM {base}", "WORKDIR /testbed", "COPY . /testbed"]
    if language is Language.PYTHON:
        install = "python -m venv /opt/venv"
        requirement = next((r for r in REQUIREMENT_FILES if r in entries), None)
        if requirement is not None:
            install += f" && /opt/venv/bin/pip install --no-cache-dir -r {requirement}"
        lines += [f"RUN {install}", "ENV PATH=/opt/venv/bin:$PATH PYTHONDONTWRITEBYTECODE=1"]
    elif language is Language.JAVA:
        if "pom.xml" in entries:
            lines.append("RUN mvn -B -Dmaven.test.failure.ignore=true test && rm -rf target")
    elif "package.json" in entries:
        if "package-lock.json" in entries or "npm-shrinkwrap.json" in entries:
            lines.append("RUN npm ci")
        elif "yarn.lock" in entries:
            lines.append("RUN yarn install --frozen-lockfile")
        else:
            lines.append("RUN npm install")
        lines.append("ENV PATH=/testbed/node_modules/.bin:$PATH CI=true NO_COLOR=1")
    return "\n".join(lines) + "\n"


def env_spec(
    instance: Instance,
    clone: Path,
    parent_ids: dict[str, str] | None = None,
    exact: bool = False,
) -> EnvSpec:
    """The environment of ``instance``.

    ``parent_ids`` maps the images the Dockerfile starts from to their ids (so that a
    rebuilt base makes new environments); ``exact`` keys the environment by the base
    commit too (used when a shared environment cannot be moved to the instance's commit).
    """
    entries = tree_entries(clone, instance.base_commit)
    text = instance.Dockerfile.strip()
    generated = not text
    dockerfile = default_dockerfile(instance.language, entries) if generated else text + "\n"
    parents = from_images(dockerfile)
    resolved = [f"{p}={(parent_ids or {}).get(p, p)}" for p in parents]
    manifests = manifest_blobs(entries, dockerfile)
    needs = command_needs(instance.test_command)
    # Added to the key only where they apply, so that other environments keep theirs.
    extra = [] if needs.empty else [f"needs={needs.key()}"]
    if ".dockerignore" in entries:
        extra.append(f"dockerignore={DOCKERIGNORE_HANDLING}")
    key = digest(
        ENV_LAYOUT_VERSION,
        dockerfile,
        *extra,
        *resolved,
        *(f"{path}\0{blob}" for path, blob in manifests),
        instance.base_commit if exact else "",
    )
    built = dockerfile
    if ".dockerignore" in entries:
        built += restore_dockerignore(instance.base_commit) + "\n"
    return EnvSpec(
        repo=instance.repo,
        commit=instance.base_commit,
        language=instance.language.value,
        dockerfile=with_preparation(built, needs),
        generated=generated,
        parents=parents,
        manifests=manifests,
        key=key,
    )
