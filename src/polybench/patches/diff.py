"""Reading unified diffs: which files a patch touches, and whether it is safe to apply."""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass

from unidiff.errors import UnidiffParseError
from unidiff.patch import PatchSet

DEV_NULL = "/dev/null"
_HEADER_PATH = re.compile(
    r"^(?:--- |\+\+\+ |rename from |rename to |copy from |copy to )(?P<path>.+?)\s*$"
)
_DIFF_GIT = re.compile(r"^diff --git (?P<a>\S+) (?P<b>\S+)\s*$")
# Header lines that give a file mode; what follows is read as git reads it (strtoul, base 8:
# leading blanks, a sign and leading zeros are accepted), so ``0120000`` is a link too.
_MODE_LINE = re.compile(
    r"^(?:new file mode|new mode|index [0-9A-Fa-f]+\.\.[0-9A-Fa-f]+)(?P<mode>[ \t].*)$"
)
_OCTAL = re.compile(r"^[ \t\n\v\f\r]*(?P<sign>[+-]?)(?P<digits>[0-7]+)")
_FILE_TYPE_BITS = 0o170000
_SYMLINK_TYPE = 0o120000


class PatchError(ValueError):
    """A patch is not a usable diff, or reaches outside the repository."""


@dataclass(frozen=True)
class FileChange:
    """One file in a patch: ``old_path`` is None for a new file, ``new_path`` for a deletion."""

    old_path: str | None
    new_path: str | None
    is_binary: bool = False

    @property
    def path(self) -> str:
        """The file's path after the patch, or before it for a deletion."""
        return self.new_path or self.old_path or ""

    @property
    def paths(self) -> tuple[str, ...]:
        """Every real path involved (both sides of a rename)."""
        return tuple(dict.fromkeys(p for p in (self.old_path, self.new_path) if p))


def _strip_prefix(path: str) -> str | None:
    path = path.strip()
    if path.startswith('"') and path.endswith('"') and len(path) >= 2:
        path = path[1:-1]
    path = path.split("\t", 1)[0]
    if path == DEV_NULL:
        return None
    if path.startswith(("a/", "b/")):
        return path[2:]
    return path


def unsafe_path_reason(path: str) -> str | None:
    """Why ``path`` (relative to the repository root) must not be written, or None if fine."""
    if not path:
        return "empty path"
    if "\x00" in path:
        return "path contains a NUL byte"
    if path.startswith("/") or re.match(r"^[A-Za-z]:[\\/]", path):
        return f"absolute path {path!r}"
    parts = [p for p in re.split(r"[\\/]", path) if p not in ("", ".")]
    if ".." in parts:
        return f"path {path!r} leaves the repository"
    if (parts and parts[0] == ".git") or ".git" in parts:
        return f"path {path!r} is inside .git/"
    normal = posixpath.normpath(path)
    if normal.startswith("../") or normal == "..":
        return f"path {path!r} leaves the repository"
    return None


def parse_patch(text: str) -> list[FileChange]:
    """The files a patch changes, in order. Raises :class:`PatchError` if it is not a diff."""
    if not text.strip():
        return []
    try:
        patch_set = PatchSet(text)
    except UnidiffParseError as exc:
        raise PatchError(f"not a valid unified diff: {exc}") from exc
    changes = []
    for patched in patch_set:
        old = _strip_prefix(patched.source_file) if patched.source_file else None
        new = _strip_prefix(patched.target_file) if patched.target_file else None
        if patched.is_added_file:
            old = None
        if patched.is_removed_file:
            new = None
        changes.append(FileChange(old, new, is_binary=patched.is_binary_file))
    if not changes:
        raise PatchError("not a valid unified diff: no file headers found")
    return changes


def header_paths(text: str) -> list[str]:
    """Every path named by any header line, found without trusting the diff parser."""
    paths: list[str] = []
    for line in text.splitlines():
        match = _DIFF_GIT.match(line)
        if match:
            paths += [p for p in (_strip_prefix(match["a"]), _strip_prefix(match["b"])) if p]
            continue
        match = _HEADER_PATH.match(line)
        if match:
            path = _strip_prefix(match["path"])
            if path:
                paths.append(path)
    return paths


def check_patch(text: str) -> list[FileChange]:
    """Parse a patch and reject one that is unsafe to apply; returns its file changes."""
    changes = parse_patch(text)
    for path in [*header_paths(text), *(p for c in changes for p in c.paths)]:
        reason = unsafe_path_reason(path)
        if reason:
            raise PatchError(f"patch rejected: {reason}")
    for line in text.splitlines():
        if _is_symlink_mode_line(line):
            raise PatchError("patch rejected: it creates a symbolic link")
    return changes


def _is_symlink_mode_line(line: str) -> bool:
    """True for a mode header line whose mode, read as git reads it, is a symbolic link."""
    header = _MODE_LINE.match(line)
    if header is None:
        return False
    number = _OCTAL.match(header["mode"])
    if number is None:
        return False
    mode = int(number["digits"], 8)
    if number["sign"] == "-":
        mode = -mode
    return (mode & 0xFFFFFFFF & _FILE_TYPE_BITS) == _SYMLINK_TYPE


def touched_files(text: str) -> list[str]:
    """Every real path a patch touches (new, deleted and both sides of renames), in order."""
    return list(dict.fromkeys(p for change in parse_patch(text) for p in change.paths))
