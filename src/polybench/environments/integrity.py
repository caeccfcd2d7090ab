"""Prepared environments are checked before use: a changed one is rebuilt, and said so.

Sandboxes see an environment read-only, so code under test cannot change it; but anything
else can (a run with ``--isolation none``, another program, a full disk during an
install). When an environment is complete, :func:`record` writes a manifest beside it:
every path with its kind, mode, size and content digest (a link's target), and the file
system's own record of it (inode, modification and change times). :func:`verify` walks
the environment again and compares the file system's record first, which costs a
``stat`` per path; only paths whose record differs are read and hashed, so an
environment copied elsewhere (new inodes, same bytes) is accepted and its manifest
refreshed, while one whose bytes changed is reported path by path.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from polybench.atomic import atomic_write_text

MANIFEST_SUFFIX = ".manifest.json"
_VERSION = 1
_CHUNK = 1 << 20
Entry = list[object]
"""``[kind, mode, size, digest-or-target, inode, mtime_ns, ctime_ns]``."""


@dataclass
class Verification:
    """What :func:`verify` found: ``changed`` paths (relative; added, removed or with
    other content), or ``missing_manifest`` when the environment has none."""

    changed: list[str] = field(default_factory=list)
    missing_manifest: bool = False

    @property
    def ok(self) -> bool:
        """True when the environment is as it was recorded."""
        return not self.changed and not self.missing_manifest

    def describe(self, limit: int = 5) -> str:
        """The change in words, naming the first ``limit`` paths."""
        if self.missing_manifest:
            return "it has no manifest (prepared by an older version, or its manifest was removed)"
        shown = ", ".join(self.changed[:limit])
        more = f" and {len(self.changed) - limit} more" if len(self.changed) > limit else ""
        return f"{len(self.changed)} path(s) changed since it was prepared: {shown}{more}"


def manifest_path(env_dir: Path) -> Path:
    """Where the manifest of ``env_dir`` is kept: beside it, not inside it."""
    return env_dir.with_name(env_dir.name + MANIFEST_SUFFIX)


def manifest_digest(env_dir: Path) -> str | None:
    """The SHA-256 of ``env_dir``'s manifest (what its content is known by), or None
    when it has none."""
    try:
        return hashlib.sha256(manifest_path(env_dir).read_bytes()).hexdigest()
    except OSError:
        return None


def _digest(path: Path) -> str:
    hasher = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(_CHUNK):
            hasher.update(chunk)
    return hasher.hexdigest()


def _walk(env_dir: Path) -> dict[str, os.stat_result]:
    """Every path below ``env_dir`` (relative, ``/``-separated) and its ``lstat``;
    symbolic links are not followed and unreadable folders are left out."""
    found: dict[str, os.stat_result] = {}
    pending = [("", str(env_dir))]
    while pending:
        prefix, folder = pending.pop()
        try:
            with os.scandir(folder) as entries:
                listed = list(entries)
        except OSError:
            continue
        for entry in listed:
            relative = prefix + entry.name
            try:
                found[relative] = entry.stat(follow_symlinks=False)
                if entry.is_dir(follow_symlinks=False):
                    pending.append((relative + "/", entry.path))
            except OSError:
                continue
    return found


def _content(path: Path, info: os.stat_result) -> tuple[str, str]:
    """(kind, digest or link target) of one path."""
    if stat.S_ISLNK(info.st_mode):
        return "l", os.readlink(path)
    if stat.S_ISDIR(info.st_mode):
        return "d", ""
    if stat.S_ISREG(info.st_mode):
        return "f", _digest(path)
    return "o", ""


def _entry(path: Path, info: os.stat_result) -> Entry:
    kind, content = _content(path, info)
    size = info.st_size if kind == "f" else 0
    mode = stat.S_IMODE(info.st_mode)
    return [kind, mode, size, content, info.st_ino, info.st_mtime_ns, info.st_ctime_ns]


def record(env_dir: Path) -> None:
    """Write the manifest of ``env_dir`` (call it once the environment is complete)."""
    entries = {rel: _entry(env_dir / rel, info) for rel, info in sorted(_walk(env_dir).items())}
    data = {"version": _VERSION, "entries": entries}
    atomic_write_text(manifest_path(env_dir), json.dumps(data, separators=(",", ":")))


def _same_record(entry: Entry, info: os.stat_result) -> bool:
    return entry[4:7] == [info.st_ino, info.st_mtime_ns, info.st_ctime_ns] and entry[1] == (
        stat.S_IMODE(info.st_mode)
    )


def verify(env_dir: Path) -> Verification:
    """Compare ``env_dir`` with its manifest (see the module docstring)."""
    try:
        data = json.loads(manifest_path(env_dir).read_text(encoding="utf-8"))
        recorded: dict[str, Entry] = data["entries"]
        if data.get("version") != _VERSION:
            raise ValueError("manifest version")
    except (OSError, ValueError, KeyError, TypeError):
        return Verification(missing_manifest=True)
    present = _walk(env_dir)
    changed = sorted(set(recorded) ^ set(present))
    refreshed = False
    for rel in sorted(set(recorded) & set(present)):
        entry, info = recorded[rel], present[rel]
        if _same_record(entry, info):
            continue
        now = _entry(env_dir / rel, info)
        if now[:4] != entry[:4]:
            changed.append(rel)
            continue
        recorded[rel] = now  # the same bytes elsewhere (a copy, a restore): still fine
        refreshed = True
    if refreshed and not changed:
        atomic_write_text(manifest_path(env_dir), json.dumps(data, separators=(",", ":")))
    return Verification(changed=sorted(changed))
