"""Build contexts: a repository at one commit (with a one-commit ``.git``) and git packs.

The environment image is built from the instance's Dockerfile with the repository
checked out at the base commit as its context, as the official Dockerfiles expect
(``COPY . /testbed``). The checkout carries a shallow ``.git`` holding just that commit,
so that ``/testbed`` is a git repository (patches are applied with ``git apply``) without
the repository's history.
"""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path
from typing import IO

from docker.utils.build import create_archive, exclude_paths

from polybench.environments.images.errors import ImageBuildError

DOCKERFILE_NAME = ".polybench.Dockerfile"


def _git(args: list[str], cwd: Path | None = None, stdin: bytes | None = None) -> bytes:
    completed = subprocess.run(
        ["git", "-c", "advice.detachedHead=false", *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        check=False,
    )
    if completed.returncode != 0:
        message = completed.stderr.decode("utf-8", "replace").strip()
        raise ImageBuildError(f"git {' '.join(args[:3])} failed: {message}")
    return completed.stdout


def shallow_checkout(clone: Path, commit: str, target: Path) -> None:
    """Check ``commit`` of ``clone`` out into ``target`` with a ``.git`` of that commit only."""
    _git(["init", "-q", "--template=", str(target)])
    _git(
        [
            "-C",
            str(target),
            "-c",
            "uploadpack.allowAnySHA1InWant=true",
            "fetch",
            "-q",
            "--depth",
            "1",
            "--no-tags",
            f"file://{clone.resolve()}",
            commit,
        ]
    )
    _git(["-C", str(target), "checkout", "-q", "--detach", commit])
    (target / ".git" / "FETCH_HEAD").unlink(missing_ok=True)


DOCKERIGNORE_HANDLING = "replaced"
"""How the repository's own ``.dockerignore`` is treated (part of an environment's key)."""


def write_context(root: Path, dockerfile: str, fileobj: IO[bytes]) -> None:
    """Write the build context of ``root`` with ``dockerfile`` to ``fileobj`` as a tar.

    Every file of the repository goes in: its own ``.dockerignore`` is not honoured (it
    says what the project's own images leave out, and would leave ``COPY . /testbed``
    without the files the tests need; the official harness deletes it before building).
    The context's ``.dockerignore`` is polybench's, naming only itself and the Dockerfile
    (``.polybench.Dockerfile``), which the daemon then drops, so ``COPY . /testbed``
    copies exactly the repository but its ``.dockerignore``; :func:`restore_dockerignore`
    puts that back.
    """
    files = sorted(exclude_paths(root, [".dockerignore"], dockerfile=DOCKERFILE_NAME))
    extra = [
        (DOCKERFILE_NAME, dockerfile),
        (".dockerignore", f".dockerignore\n{DOCKERFILE_NAME}\n"),
    ]
    create_archive(root=str(root), files=files, fileobj=fileobj, extra_files=extra)


def restore_dockerignore(commit: str) -> str:
    """The Dockerfile line that puts the repository's ``.dockerignore`` back in
    ``/testbed`` (kept out of the build context by :func:`write_context`)."""
    return f"RUN git -C /testbed checkout -q {commit} -- .dockerignore"


def commit_objects(clone: Path, commit: str) -> list[str]:
    """The ids of ``commit``'s commit object and of every tree and blob of its tree."""
    listing = _git(["-C", str(clone), "rev-list", "--objects", "--no-walk", commit])
    return [line.split(b" ", 1)[0].decode() for line in listing.splitlines() if line]


def has_commit(clone: Path, commit: str) -> bool:
    """True when ``clone`` holds ``commit``."""
    completed = subprocess.run(
        ["git", "-C", str(clone), "cat-file", "-e", f"{commit}^{{commit}}"],
        capture_output=True,
        check=False,
    )
    return completed.returncode == 0


def write_pack(clone: Path, objects: list[str], directory: Path) -> list[Path]:
    """Pack ``objects`` of ``clone`` into ``directory`` (a ``.pack`` and its ``.idx``)."""
    directory.mkdir(parents=True, exist_ok=True)
    if not objects:
        return []
    stdin = "".join(f"{oid}\n" for oid in objects).encode()
    _git(["-C", str(clone), "pack-objects", "-q", str(directory / "pack")], stdin=stdin)
    return sorted(directory.glob("pack-*"))


def temporary_dir(parent: Path, prefix: str) -> Path:
    """A new directory under ``parent`` (created)."""
    parent.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=prefix, dir=parent))
