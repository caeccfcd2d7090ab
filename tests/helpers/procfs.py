"""The host's processes as ``/proc`` shows them: command lines, parents and process trees."""

from __future__ import annotations

import contextlib
import time
from pathlib import Path

_PROC = Path("/proc")


def cmdline(pid: int) -> str:
    """The command line of ``pid``, arguments joined by spaces ("" once it is gone)."""
    try:
        return (_PROC / str(pid) / "cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def _fields(stat: str) -> list[str]:
    """The fields of a ``/proc/<pid>/stat`` line after the command name: state, parent...
    (The name may hold spaces and parentheses: it is counted from its end.)"""
    return stat.rsplit(")", 1)[1].split()


def _stat(pid: int) -> str | None:
    """The ``/proc/<pid>/stat`` line of ``pid``, or None once it is gone."""
    try:
        return (_PROC / str(pid) / "stat").read_text()
    except OSError:
        return None


def parent_of(pid: int) -> int | None:
    """The parent pid of ``pid``, or None once it is gone."""
    stat = _stat(pid)
    return None if stat is None else int(_fields(stat)[1])


def live_pids() -> list[int]:
    """Every process of the machine now."""
    return [int(entry.name) for entry in _PROC.iterdir() if entry.name.isdigit()]


def children() -> dict[int, list[int]]:
    """Parent pid -> its children's pids, for every process now."""
    tree: dict[int, list[int]] = {}
    for pid in live_pids():
        with contextlib.suppress(ValueError, IndexError):
            parent = parent_of(pid)
            if parent is not None:
                tree.setdefault(parent, []).append(pid)
    return tree


def descendants(roots: list[int], tree: dict[int, list[int]] | None = None) -> list[int]:
    """``roots`` and every process below them (in ``tree``, or the process tree now)."""
    tree = children() if tree is None else tree
    found: list[int] = []
    seen: set[int] = set()
    todo = list(roots)
    while todo:
        pid = todo.pop()
        if pid not in seen:
            seen.add(pid)
            found.append(pid)
            todo += tree.get(pid, [])
    return found


def running(pid: int) -> bool:
    """Whether ``pid`` is a process that has not exited (a zombie has exited)."""
    stat = _stat(pid)
    return stat is not None and not _fields(stat)[0].startswith(("Z", "X"))


def still_running(pids: list[int], within: float = 60.0) -> list[int]:
    """Those of ``pids`` still running after waiting up to ``within`` seconds for them to exit.

    A process sent SIGKILL exits once the kernel next runs it, which on a loaded machine
    (or from an uninterruptible wait) is not at once: a check right after the kill would
    test the machine's speed, not the kill.
    """
    deadline = time.monotonic() + within
    left = [pid for pid in pids if running(pid)]
    while left and time.monotonic() < deadline:
        time.sleep(0.05)
        left = [pid for pid in left if running(pid)]
    return left
