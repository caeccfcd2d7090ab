"""A checkout whose git repository holds nothing newer than its base commit.

A sandbox's repository starts as a clone that can reach every commit of the cached
clone (or of the image): later commits, the merge of the very fix being graded, other
branches and tags. Code under test, or an agent, could read the fix out of that
history. :func:`prune_script` rebuilds ``.git`` so that it holds only what the base
commit needs (``base``: the base commit and its tree, grafted shallow; ``full``: every
ancestor of the base commit too): no later commit, branch, remote, tag, reflog entry,
stash or unreachable object, and no origin to fetch from. The working tree is untouched.

The same shell script runs on every backend: on the host for the local backend (before
the cached clone is hidden from the sandbox) and inside the container for Docker.
"""

from __future__ import annotations

import shlex
from pathlib import Path

HISTORY_MODES = ("base", "full")
GIT_SAFE_ENV = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null"}
"""Environment for the harness's own git commands: no system or user configuration."""

# Builds, at "$new", a git directory holding only what "$commit" needs, from the
# repository of the current directory.
_BUILD = r"""
git init -q --bare "$new"
if [ "$mode" = base ]; then
  git rev-list --objects --no-walk "$commit" > "$new/objects-list"
else
  git rev-list --objects "$commit" > "$new/objects-list"
fi
git pack-objects -q --stdout < "$new/objects-list" | git -C "$new" index-pack --stdin >/dev/null
rm -f "$new/objects-list"
if [ "$mode" = base ]; then
  printf '%s\n' "$commit" > "$new/shallow"
fi
git -C "$new" config core.bare false
git -C "$new" config core.logAllRefUpdates false
printf '%s\n' "$commit" > "$new/HEAD"
rm -rf "$new/hooks" "$new/logs" "$new/description" "$new/info"
mkdir -p "$new/info"
"""

_SCRIPT = (
    r"""
set -eu
commit="$1"; mode="$2"
repo=$(pwd)
new="$repo/.git-polybench-new"
rm -rf "$new"
"""
    + _BUILD
    + r"""
rm -rf "$repo/.git"
mv "$new" "$repo/.git"
git reset -q
rm -f "$repo/.git/ORIG_HEAD"
"""
)

_BUILD_ONLY = (
    r"""
set -eu
commit="$1"; mode="$2"; new="$3"
"""
    + _BUILD
)


def prune_script(commit: str, mode: str = "base") -> list[str]:
    """The argv (``bash -c`` with arguments) that prunes the repository in the current
    directory down to ``commit`` (see the module docstring)."""
    if mode not in HISTORY_MODES:
        raise ValueError(f"history must be one of {HISTORY_MODES}, not {mode!r}")
    return ["bash", "-c", _SCRIPT, "prune-history", commit, mode]


def build_script(commit: str, mode: str, target: Path) -> list[str]:
    """The argv that writes, at ``target`` (absolute, not yet existing), the pruned git
    directory of ``commit`` from the repository in the current directory, leaving that
    repository as it is (see :mod:`polybench.sandbox.pruned`)."""
    if mode not in HISTORY_MODES:
        raise ValueError(f"history must be one of {HISTORY_MODES}, not {mode!r}")
    return ["bash", "-c", _BUILD_ONLY, "pruned-history", commit, mode, str(target)]


def prune_command(commit: str, mode: str = "base") -> str:
    """:func:`prune_script` as one shell command line."""
    return shlex.join(prune_script(commit, mode))
