"""Turn a directory tree into a git repository with one reproducible commit.

Used for the built-in datasets: the same files always give the same commit hash, on any
machine, so an instance's ``base_commit`` can be written down once.
"""

from __future__ import annotations

import os
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


def materialise_tree(source: Path, destination: Path) -> str:
    """Create ``destination`` as a git repository holding ``source`` in one commit.

    Returns the commit hash. An existing ``destination`` whose HEAD already has the
    expected tree is reused; anything else there is replaced.
    """
    if not source.is_dir():
        raise FileNotFoundError(f"repository source {source} does not exist")
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
    if destination.exists():
        try:
            if _git(destination, "rev-parse", "HEAD") == commit:
                shutil.rmtree(staging)
                return commit
        except RuntimeError:
            pass
        shutil.rmtree(destination)
    staging.rename(destination)
    return commit
