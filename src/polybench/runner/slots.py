"""Test slots: how many instances run code under test at once.

A run's workers prepare instances (a sandbox, the patch, the tests' install) and run
their tests. With more workers than slots the extra ones prepare the next instances while
the tests of others run, and wait for a slot before their own tests start: the harness's
own steps overlap the tests instead of adding to them, and no more test commands run at
once than the user asked for.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from polybench.sandbox.cancel import Cancelled, cancelled

_WAKE = 0.25
"""Seconds a waiting worker sleeps at most before it looks at a cancel again."""


class TestSlots:
    """At most ``count`` holders at once; :meth:`close` turns away every waiter."""

    __test__ = False  # not a pytest test class, whatever its name

    def __init__(self, count: int) -> None:
        if count < 1:
            raise ValueError("a run needs at least one test slot")
        self.count = count
        self._free = threading.BoundedSemaphore(count)
        self._closed = threading.Event()

    @contextmanager
    def held(self) -> Iterator[None]:
        """Hold a slot while the block runs; wait for one first.

        Raises :class:`~polybench.sandbox.cancel.Cancelled` when the slots were closed
        (Ctrl-C: an instance whose tests have not started is not recorded, a resumed run
        does it) or the whole run was cancelled while waiting.
        """
        while not self._free.acquire(timeout=_WAKE):
            self._turn_away()
        try:
            self._turn_away()
        except Cancelled:
            self._free.release()
            raise
        try:
            yield
        finally:
            self._free.release()

    def close(self) -> None:
        """Turn away every worker waiting for a slot, and every later one."""
        self._closed.set()

    def _turn_away(self) -> None:
        if self._closed.is_set() or cancelled():
            raise Cancelled("the run stopped before this instance's tests started")
