"""Ctrl-C in a test as a terminal's process has it."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

needs_main_thread = pytest.mark.skipif(
    threading.current_thread() is not threading.main_thread(),
    reason="Ctrl-C is taken by the main thread",
)


@contextmanager
def terminal_ctrl_c() -> Iterator[None]:
    """SIGINT raises KeyboardInterrupt and is not blocked while the block runs (an
    earlier test's library may have blocked it in this worker; threads started inside
    the block inherit the mask); both are put back after."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    mask = signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        signal.signal(signal.SIGINT, previous)
