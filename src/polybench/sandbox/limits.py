"""A bound on the number of processes of a command, from the cgroup ``pids`` controller.

bubblewrap has no process limit and ``RLIMIT_NPROC`` does not bind root, so a fork bomb
in the code under test could exhaust the host's process table. Where this machine has a
writable ``pids`` controller (cgroup v2 with ``pids`` available, or a cgroup v1 ``pids``
hierarchy, as root), each command of the local backend runs in its own cgroup
``<hierarchy>/polybench/<pid>-<n>`` whose ``pids.max`` caps its processes and threads;
whatever is left in it when the command returns is killed and the cgroup removed.

Where no such controller can be written (a container without cgroup delegation, a user
without rights), commands run without a process limit: use the Docker backend there.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import os
import signal
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

DEFAULT_MAX_PROCESSES = 4096
"""Processes and threads one command may have at once (Docker's default here is 8192)."""

PARENT_NAME = "polybench"
_ENTER_FAILED = 125
_KILL_ROUNDS = 50
_counter = itertools.count(1)


@dataclass(frozen=True)
class PidsHierarchy:
    """Where polybench makes its cgroups, and the cgroup version there."""

    parent: Path
    version: int


def _mounts(mountinfo: str) -> list[tuple[Path, str, list[str]]]:
    """(mount point, file system type, super options) of each line of ``mountinfo``."""
    mounts = []
    for line in mountinfo.splitlines():
        left, sep, right = line.partition(" - ")
        fields, tail = left.split(), right.split()
        if not sep or len(fields) < 5 or len(tail) < 3:
            continue
        mounts.append((Path(fields[4]), tail[0], tail[2].split(",")))
    return mounts


def _prepare_v2(mount: Path) -> Path | None:
    controllers = (mount / "cgroup.controllers").read_text().split()
    if "pids" not in controllers:
        return None
    if "pids" not in (mount / "cgroup.subtree_control").read_text().split():
        (mount / "cgroup.subtree_control").write_text("+pids")
    parent = mount / PARENT_NAME
    parent.mkdir(exist_ok=True)
    if "pids" not in (parent / "cgroup.subtree_control").read_text().split():
        (parent / "cgroup.subtree_control").write_text("+pids")
    return parent


def find_pids_hierarchy(mountinfo: str) -> PidsHierarchy | None:
    """The writable pids hierarchy described by ``mountinfo`` (v2 first), made ready."""
    mounts = _mounts(mountinfo)
    for mount, fstype, _ in mounts:
        if fstype == "cgroup2":
            with contextlib.suppress(OSError):
                parent = _prepare_v2(mount)
                if parent is not None:
                    return PidsHierarchy(parent, 2)
    for mount, fstype, options in mounts:
        if fstype == "cgroup" and "pids" in options:
            with contextlib.suppress(OSError):
                parent = mount / PARENT_NAME
                parent.mkdir(exist_ok=True)
                if os.access(parent / "cgroup.procs", os.W_OK):
                    return PidsHierarchy(parent, 1)
    return None


@functools.cache
def pids_hierarchy() -> PidsHierarchy | None:
    """This machine's writable pids hierarchy, or None (then there is no process limit)."""
    try:
        mountinfo = Path("/proc/self/mountinfo").read_text()
    except OSError:
        return None
    hierarchy = find_pids_hierarchy(mountinfo)
    if hierarchy is not None:
        _sweep(hierarchy.parent)
    return hierarchy


def _members(cgroup: Path) -> list[int]:
    try:
        return [int(pid) for pid in (cgroup / "cgroup.procs").read_text().split()]
    except (OSError, ValueError):
        return []


def _pauses() -> Iterator[float]:
    """Short, then longer waits: about two seconds in all."""
    delay = 0.001
    for _ in range(_KILL_ROUNDS):
        yield delay
        delay = min(delay * 2, 0.05)


def _kill_members(cgroup: Path) -> None:
    for pause in _pauses():
        members = _members(cgroup)
        if not members:
            return
        for pid in members:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(pause)


def _remove(cgroup: Path) -> bool:
    for pause in _pauses():
        try:
            cgroup.rmdir()
            return True
        except FileNotFoundError:
            return True
        except OSError:  # still busy: a process is exiting, or survived
            _kill_members(cgroup)
            time.sleep(pause)
    return False


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _sweep(parent: Path) -> None:
    """Remove cgroups left by polybench processes that no longer exist."""
    with contextlib.suppress(OSError):
        for child in parent.iterdir():
            owner = child.name.split("-", 1)[0]
            if child.is_dir() and owner.isdigit() and not _pid_alive(int(owner)):
                _kill_members(child)
                _remove(child)


class ProcessLimit:
    """One command's cgroup with ``pids.max``; use :meth:`wrap`, then :meth:`close`."""

    def __init__(self, path: Path, limit: int) -> None:
        self.path = path
        self.limit = limit

    @classmethod
    def create(cls, limit: int) -> ProcessLimit | None:
        """A new cgroup capped at ``limit`` processes, or None where that is impossible."""
        hierarchy = pids_hierarchy()
        if hierarchy is None:
            return None
        path = hierarchy.parent / f"{os.getpid()}-{next(_counter)}"
        try:
            path.mkdir()
            (path / "pids.max").write_text(str(limit))
        except OSError:
            with contextlib.suppress(OSError):
                path.rmdir()
            return None
        return cls(path, limit)

    def wrap(self, argv: list[str]) -> list[str]:
        """``argv`` run by a shell that first moves itself into the cgroup, then execs."""
        enter = (
            'echo $$ > "$0" 2>/dev/null || '
            f'{{ echo "polybench: cannot enter the cgroup $0" >&2; exit {_ENTER_FAILED}; }}; '
            'exec "$@"'
        )
        return ["/bin/sh", "-c", enter, str(self.path / "cgroup.procs"), *argv]

    def limit_hits(self) -> int:
        """How many times a fork failed because of the limit."""
        with contextlib.suppress(OSError, ValueError):
            for line in (self.path / "pids.events").read_text().splitlines():
                key, _, value = line.partition(" ")
                if key == "max":
                    return int(value)
        return 0

    def close(self) -> None:
        """Kill every process still in the cgroup and remove it."""
        _kill_members(self.path)
        _remove(self.path)
