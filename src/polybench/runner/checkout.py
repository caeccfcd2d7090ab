"""Git on a sandbox's checkout, with the repository's own hooks and settings kept out.

Every git command the harness runs goes through :func:`git`: hooks point at
``/dev/null``, the file-system monitor is off, system and global configuration are not
read, and pathspecs are literal (a path named ``tests/*`` is that path, not a glob).
Paths are exchanged NUL-separated and unquoted, so what the harness checks is exactly
what git acts on.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from polybench.sandbox.base import ExecResult, Sandbox, SandboxError

GIT_TIMEOUT = 300.0
GIT_ENV = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": "/dev/null",
    "GIT_LITERAL_PATHSPECS": "1",
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_ATTR_NOSYSTEM": "1",
    "GIT_NO_REPLACE_OBJECTS": "1",
}
GIT_OPTIONS = (
    "-c",
    "core.hooksPath=/dev/null",
    "-c",
    "core.fsmonitor=false",
    "-c",
    "core.quotePath=false",
    "-c",
    "advice.detachedHead=false",
    "-c",
    "diff.external=",
)
_CHUNK = 200


def git_argv(*args: str) -> list[str]:
    """``git`` with the harness's safe options, then ``args``."""
    return ["git", *GIT_OPTIONS, *args]


def git(sandbox: Sandbox, *args: str, timeout: float = GIT_TIMEOUT) -> ExecResult:
    """Run a git command in the checkout (see the module docstring)."""
    return sandbox.exec(git_argv(*args), timeout=timeout, env=dict(GIT_ENV))


def git_ok(sandbox: Sandbox, *args: str) -> str:
    """The output of a git command that must succeed (:class:`SandboxError` otherwise)."""
    done = git(sandbox, *args)
    if not done.ok:
        raise SandboxError(f"git {' '.join(args[:3])} failed: {done.output.strip()[:500]}")
    return done.output


def _nul_list(text: str) -> list[str]:
    return [entry for entry in text.split("\0") if entry]


def _chunks(paths: list[str]) -> Iterator[list[str]]:
    for start in range(0, len(paths), _CHUNK):
        yield paths[start : start + _CHUNK]


def base_files(sandbox: Sandbox, commit: str) -> set[str]:
    """Every file path of ``commit``."""
    return set(_nul_list(git_ok(sandbox, "ls-tree", "-r", "-z", "--name-only", commit)))


def untracked_entries(sandbox: Sandbox) -> set[str]:
    """Untracked paths (ignored ones included), whole new directories as ``dir/``."""
    listing = git_ok(sandbox, "ls-files", "-z", "--others", "--directory", "--no-empty-directory")
    return set(_nul_list(listing))


def exclude_pattern(directory: str) -> str:
    """The `git ls-files --exclude` option that leaves out the untracked ``directory``."""
    escaped = "".join(f"\\{c}" if c in "*?[]\\!#" else c for c in directory.rstrip("/"))
    return f"--exclude=/{escaped}/"


def new_untracked_files(sandbox: Sandbox, before: set[str]) -> list[str]:
    """Untracked files that were not there in ``before`` (:func:`untracked_entries`).

    Directories that were already untracked (an image's ``node_modules``) are not walked.
    """
    excludes = [exclude_pattern(entry) for entry in sorted(before) if entry.endswith("/")]
    listing = git_ok(sandbox, "ls-files", "-z", "--others", *excludes)
    return [path for path in _nul_list(listing) if path not in before]


def changed_tracked(sandbox: Sandbox, commit: str) -> list[str]:
    """Tracked files whose working-tree state differs from ``commit`` (deleted included)."""
    listing = git_ok(
        sandbox, "diff", "--no-ext-diff", "--no-textconv", "--no-renames", "--name-only", "-z",
        commit,
    )  # fmt: skip
    return _nul_list(listing)


def restore(sandbox: Sandbox, commit: str, paths: Iterable[str], at_base: set[str]) -> None:
    """Put ``paths`` back to their state at ``commit``: removed first (whatever now stands
    there, a file or a folder), then checked out when ``commit`` has them."""
    wanted = sorted(set(paths))
    for chunk in _chunks(wanted):
        removed = sandbox.exec(["rm", "-rf", "--", *chunk], timeout=GIT_TIMEOUT)
        if not removed.ok:
            raise SandboxError(f"removing changed files failed: {removed.output.strip()[:500]}")
    existing = [path for path in wanted if path in at_base]
    for chunk in _chunks(existing):
        git_ok(sandbox, "checkout", "-q", commit, "--", *chunk)


def differing(sandbox: Sandbox, commit: str, paths: Iterable[str], at_base: set[str]) -> list[str]:
    """Which of ``paths`` do not match ``commit`` (content, existence or type)."""
    wanted = sorted(set(paths))
    if not wanted:
        return []
    found: list[str] = []
    tracked = [path for path in wanted if path in at_base]
    for chunk in _chunks(tracked):
        listing = git_ok(
            sandbox, "diff", "--no-ext-diff", "--no-textconv", "--name-only", "-z", commit,
            "--", *chunk,
        )  # fmt: skip
        found += _nul_list(listing)
    absent = [path for path in wanted if path not in at_base]
    for chunk in _chunks(absent):
        check = 'for p in "$@"; do [ -e "$p" ] || [ -L "$p" ] && printf "%s\\0" "$p"; done; true'
        present = sandbox.exec(["bash", "-c", check, "exists", *chunk], timeout=GIT_TIMEOUT)
        found += _nul_list(present.output)
    return sorted(set(found))


def resolved_paths(sandbox: Sandbox, paths: Iterable[str]) -> dict[str, tuple[bool, str]]:
    """For each existing path: (is a symbolic link, where it resolves, all links followed)."""
    wanted = sorted(set(paths))
    script = (
        'for p in "$@"; do if [ -e "$p" ] || [ -L "$p" ]; then '
        'if [ -L "$p" ]; then l=1; else l=0; fi; '
        'printf "%s\\0%s\\0%s\\0" "$p" "$l" "$(realpath -m -- "$p")"; fi; done; true'
    )
    found: dict[str, tuple[bool, str]] = {}
    for chunk in _chunks(wanted):
        done = sandbox.exec(["bash", "-c", script, "resolve", *chunk], timeout=GIT_TIMEOUT)
        fields = done.output.split("\0")
        for index in range(0, len(fields) - 2, 3):
            found[fields[index]] = (fields[index + 1] == "1", fields[index + 2])
    return found
