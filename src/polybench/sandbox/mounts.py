"""What a local sandbox's file system is made of: an allow-list, never the host's ``/``.

A sandbox sees only what is named here: the system folders every toolchain needs
(``/usr``, ``/etc`` and the top-level links or folders into ``/usr``: ``/bin``, ``/lib``,
...), read-only; the folders its environment and toolchains live in (a venv, a fetched
Node, a Python outside ``/usr``), read-only; its checkout at ``/testbed`` and its scratch
folder, writable; private ``/tmp``, ``/var/tmp``, ``/dev`` and ``/proc``. Nothing else of
the host exists inside: no home folder, no ``/run`` or ``/var/run`` (so no host socket),
no cache, run or dataset folder, no source tree and no git directory but the checkout's.

Paths that must never be seen (the harness's own package, which carries the built-in
dataset's answers; a cache or dataset that happens to lie under an allowed folder) are
masked where they fall inside an allowed folder: an empty folder, or an empty file,
stands in their place.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

SYSTEM_ROOTS = ("usr", "etc", "bin", "sbin", "lib", "lib32", "lib64", "libx32")
"""Top-level host entries every sandbox sees read-only (those that exist here)."""
PRIVATE_TMP = ("/tmp", "/var/tmp")
"""Empty, writable folders of each sandbox's own (gone when its command ends)."""


@functools.cache
def system_arguments() -> tuple[str, ...]:
    """bubblewrap arguments for :data:`SYSTEM_ROOTS`: a link stays a link, a folder is
    bound read-only."""
    args: list[str] = []
    for name in SYSTEM_ROOTS:
        entry = Path("/") / name
        if entry.is_symlink():
            args += ["--symlink", os.readlink(entry), str(entry)]
        elif entry.is_dir():
            args += ["--ro-bind", str(entry), str(entry)]
    return tuple(args)


@functools.cache
def system_folders() -> tuple[Path, ...]:
    """The real folders behind :data:`SYSTEM_ROOTS` (links resolved)."""
    found: list[Path] = []
    for name in SYSTEM_ROOTS:
        entry = Path("/") / name
        if entry.exists():
            real = entry.resolve()
            if real not in found:
                found.append(real)
    return tuple(found)


def is_within(path: Path, folder: Path) -> bool:
    """True when ``path`` is ``folder`` or lies under it (both absolute and normal, as
    ``Path`` keeps them: compared as text, a separator after the folder's)."""
    inner, outer = str(path), str(folder)
    if inner == outer or outer == "/":
        return inner.startswith("/") or inner == outer
    return inner.startswith(outer) and inner[len(outer) : len(outer) + 1] == "/"


def _outermost(paths: Iterable[Path]) -> list[Path]:
    """``paths`` without those that lie inside another of them, parents first."""
    unique = sorted(set(paths), key=lambda p: (len(p.parts), str(p)))
    kept: list[Path] = []
    for path in unique:
        if not any(is_within(path, other) for other in kept):
            kept.append(path)
    return kept


@dataclass(frozen=True)
class MountPlan:
    """A sandbox's mounts beyond the system folders.

    ``read_only``: folders and files bound read-only at their own paths (environments,
    toolchains). ``hidden``: host paths that must not be visible even where they lie
    inside a visible folder. ``writable``: host path to sandbox path, bound read-write
    (the checkout and the scratch folder).
    """

    read_only: tuple[Path, ...] = ()
    hidden: tuple[Path, ...] = ()
    writable: tuple[tuple[Path, str], ...] = ()
    private: tuple[str, ...] = PRIVATE_TMP
    """Folders each sandbox has empty and of its own, whatever the host holds there."""

    def visible_folders(self) -> list[Path]:
        """Every host folder bound read-only: system folders and :attr:`read_only`."""
        extra = [p for p in self.read_only if not any(is_within(p, s) for s in system_folders())]
        return [*system_folders(), *_outermost(extra)]

    def shows(self, path: Path) -> bool:
        """True when a sandbox of this plan sees the host's ``path`` (absolute, its folders
        already resolved) at the same place: inside a system or read-only folder, and not
        masked by a hidden path (unless a read-only folder is bound again inside it), nor
        by a private ``/tmp`` or ``/var/tmp``."""
        if not any(is_within(path, folder) for folder in self.visible_folders()):
            return False
        if any(is_within(path, Path(private).resolve()) for private in self.private):
            return False
        for secret in self.hidden:
            if is_within(path, secret) and not any(
                is_within(path, needed) and is_within(needed, secret) and needed != secret
                for needed in self.read_only
            ):
                return any(is_within(folder, secret) for folder in system_folders())
        return True

    def arguments(self) -> list[str]:
        """The bubblewrap arguments of this plan (system folders included)."""
        args = list(system_arguments())
        # Private folders first: a bind below ``/tmp`` (an environment there) goes on top.
        for private in self.private:
            args += ["--perms", "01777", "--tmpfs", private]
        extra = [p for p in self.read_only if not any(is_within(p, s) for s in system_folders())]
        bound = _outermost(extra)
        made: set[Path] = set()
        for path in bound:
            args += [*_parent_folders(path, made), "--ro-bind", str(path), str(path)]
        visible = [*system_folders(), *bound]
        for secret in _outermost(self.hidden):
            if not any(is_within(secret, folder) for folder in visible):
                continue  # not in the allow-list: it does not exist inside
            if any(is_within(folder, secret) for folder in system_folders()):
                continue  # a folder holding the system's own (``/``): never masked whole
            args += _mask(secret)
            for needed in self.read_only:
                if needed != secret and is_within(needed, secret):
                    args += ["--ro-bind", str(needed), str(needed)]
        for host, inside in self.writable:
            args += ["--bind", str(host), inside]
        return args


def _parent_folders(path: Path, made: set[Path]) -> list[str]:
    """Arguments that make the folders above ``path`` searchable by anyone (bubblewrap
    would otherwise copy the host's modes: a bind under ``/root`` would be out of the
    sandbox user's reach)."""
    args: list[str] = []
    for parent in reversed(path.parents):
        if parent == Path("/") or parent in made or str(parent) in PRIVATE_TMP:
            continue
        if any(is_within(parent, system) for system in system_folders()):
            continue
        made.add(parent)
        args += ["--perms", "0755", "--dir", str(parent)]
    return args


def _mask(path: Path) -> list[str]:
    """Arguments that put an empty folder (or file) in place of ``path``."""
    if path.is_dir():
        return ["--tmpfs", str(path)]
    if path.exists():
        return ["--ro-bind", "/dev/null", str(path)]
    return []
