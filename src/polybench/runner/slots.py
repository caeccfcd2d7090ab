"""Test slots: how many instances run code under test at once.

A run's workers prepare instances (a sandbox, the patch, the tests' install) and run
their tests. With more workers than slots the extra ones prepare the next instances while
the tests of others run, and wait for a slot before their own tests start: the harness's
own steps overlap the tests instead of adding to them, and no more test commands run at
once than the user asked for.

An instance that held a slot once is *admitted*: Ctrl-C waits for it (it may need a slot
again, for its canary run), and for the oldest unfinished instances as far as slots are
left (their turn had come; they may still be preparing). An instance prepared ahead is
turned away once the slots are closed, before any of its code under test ran.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from polybench.sandbox.cancel import Cancelled, cancelled

_WAKE = 0.25
"""Seconds a waiting worker sleeps at most before it looks at a cancel again."""


class TestSlots:
    """At most ``count`` holders at once; :meth:`close` turns away every instance that
    was not admitted yet."""

    __test__ = False  # not a pytest test class, whatever its name

    def __init__(self, count: int) -> None:
        if count < 1:
            raise ValueError("a run needs at least one test slot")
        self.count = count
        self._free = threading.BoundedSemaphore(count)
        self._lock = threading.Lock()
        self._closed = False
        self._admitted: set[str] = set()

    @contextmanager
    def held(self, instance_id: str) -> Iterator[None]:
        """Hold a slot for ``instance_id`` while the block runs; wait for one first.

        Raises :class:`~polybench.sandbox.cancel.Cancelled` when the whole run was
        cancelled, or when the slots were closed (Ctrl-C) before this instance was
        admitted: it is then not recorded, and a resumed run does it.
        """
        while not self._free.acquire(timeout=_WAKE):
            with self._lock:
                self._turn_away(instance_id)
        try:
            with self._lock:
                self._turn_away(instance_id)
                self._admitted.add(instance_id)
        except Cancelled:
            self._free.release()
            raise
        try:
            yield
        finally:
            self._free.release()

    def close(self, running: Sequence[str] = ()) -> frozenset[str]:
        """Turn away every instance not admitted yet, now and later, but the first of
        ``running`` (the run's unfinished instances, oldest first) as far as slots are
        left for them: those were the instances whose turn it was, not the ones prepared
        ahead. Returns the admitted instances."""
        with self._lock:
            self._closed = True
            left = self.count - sum(instance_id in self._admitted for instance_id in running)
            for instance_id in running:
                if left <= 0:
                    break
                if instance_id not in self._admitted:
                    self._admitted.add(instance_id)
                    left -= 1
            return frozenset(self._admitted)

    def _turn_away(self, instance_id: str) -> None:
        """(With the lock held.)"""
        if cancelled() or (self._closed and instance_id not in self._admitted):
            raise Cancelled("the run stopped before this instance's tests started")
