"""Turn a directory tree into a git repository with one reproducible commit.

Used for the built-in datasets: the same files always give the same commit hash, on any
machine, so an instance's ``base_commit`` can be written down once.
"""

from __future__ import annotations

import fnmatch
import hashlib
import os
import re
import shutil
import subprocess
from pathlib import Path

FIXED_AUTHOR = "polybench mini"
FIXED_EMAIL = "mini@polybench.invalid"
FIXED_DATE = "2024-01-01T00:00:00+00:00"
COMMIT_MESSAGE = "base"
# Build and cache output that may appear next to a source tree but is never part of it.
IGNORED_NAMES = ("__pycache__", "*.pyc", "node_modules", ".git", "target", ".pytest_cache")


def _git_env() -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith("GIT_") or key in {"GIT_SSL_CAINFO", "GIT_SSL_NO_VERIFY"}
    }
    env.update(
        GIT_AUTHOR_NAME=FIXED_AUTHOR,
        GIT_AUTHOR_EMAIL=FIXED_EMAIL,
        GIT_AUTHOR_DATE=FIXED_DATE,
        GIT_COMMITTER_NAME=FIXED_AUTHOR,
        GIT_COMMITTER_EMAIL=FIXED_EMAIL,
        GIT_COMMITTER_DATE=FIXED_DATE,
        GIT_CONFIG_NOSYSTEM="1",
        GIT_CONFIG_GLOBAL=os.devnull,
    )
    return env


def _git(repo: Path, *args: str) -> str:
    completed = subprocess.run(
        ["git", "-C", str(repo), *args],
        env=_git_env(),
        capture_output=True,
        text=True,
        check=False,
    )
    if completed.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)} failed in {repo}: {completed.stderr.strip()}")
    return completed.stdout.strip()


STAMP_FILE = "polybench-source"
_COMMIT_ID = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
_STAMP_VERSION = "1"


def source_digest(source: Path) -> str:
    """A digest of every file of ``source`` that goes into the repository (path and bytes)."""
    digest = hashlib.sha256(_STAMP_VERSION.encode())
    for root, dirs, files in os.walk(source):
        dirs[:] = sorted(d for d in dirs if not _ignored(d))
        for name in sorted(f for f in files if not _ignored(f)):
            path = Path(root) / name
            relative = path.relative_to(source).as_posix()
            digest.update(relative.encode() + b"\0")
            if path.is_symlink():
                digest.update(b"link\0" + os.readlink(path).encode())
            else:
                digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def _ignored(name: str) -> bool:
    return any(fnmatch.fnmatch(name, pattern) for pattern in IGNORED_NAMES)


def _stamped_commit(destination: Path, digest: str) -> str | None:
    """The commit a repository made from the same source recorded, if it is still there."""
    try:
        stamp, commit = (destination / ".git" / STAMP_FILE).read_text().split()
    except (OSError, ValueError):
        return None
    if stamp != digest:
        return None
    head = _head_commit(destination)
    return commit if head == commit else None


def _head_commit(repo: Path) -> str | None:
    """The commit ``repo``'s HEAD names, read from its files when HEAD is a branch with a
    loose ref or a detached commit (what :func:`materialise_tree` makes), else from git;
    None when git cannot tell."""
    git_dir = repo / ".git"
    try:
        head = (git_dir / "HEAD").read_text(encoding="ascii").strip()
        if head.startswith("ref: refs/heads/"):
            head = (git_dir / head[len("ref: ") :]).read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        head = ""
    if _COMMIT_ID.fullmatch(head):
        return head
    try:
        return _git(repo, "rev-parse", "HEAD")
    except RuntimeError:
        return None


def materialise_tree(source: Path, destination: Path) -> str:
    """Create ``destination`` as a git repository holding ``source`` in one commit.

    Returns the commit hash. A ``destination`` made earlier from the same source bytes (its
    stamp says so, and its HEAD is the recorded commit) is reused without running git to
    rebuild it; anything else there is replaced.
    """
    if not source.is_dir():
        raise FileNotFoundError(f"repository source {source} does not exist")
    digest = source_digest(source)
    stamped = _stamped_commit(destination, digest)
    if stamped is not None:
        return stamped
    staging = destination.with_name(destination.name + ".staging")
    if staging.exists():
        shutil.rmtree(staging)
    shutil.copytree(source, staging, symlinks=True, ignore=shutil.ignore_patterns(*IGNORED_NAMES))
    _git(staging, "init", "-q")
    _git(staging, "config", "core.fileMode", "false")
    _git(staging, "config", "core.autocrlf", "false")
    _git(staging, "config", "commit.gpgsign", "false")
    _git(staging, "add", "-A", "--force", ".")
    # Force regular-file mode whatever the package installer did to permission bits.
    for line in _git(staging, "ls-files", "-s").splitlines():
        mode, _, _, path = line.split(maxsplit=3)
        if mode == "100755":
            _git(staging, "update-index", "--chmod=-x", path)
    _git(staging, "commit", "-q", "--no-verify", "-m", COMMIT_MESSAGE)
    commit = _git(staging, "rev-parse", "HEAD")
    (staging / ".git" / STAMP_FILE).write_text(f"{digest} {commit}\n")
    if destination.exists():
        if _head_commit(destination) == commit:
            shutil.rmtree(staging)
            (destination / ".git" / STAMP_FILE).write_text(f"{digest} {commit}\n")
            return commit
        shutil.rmtree(destination)
    staging.rename(destination)
    return commit
