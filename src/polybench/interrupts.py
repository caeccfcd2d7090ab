"""Holding Ctrl-C (SIGINT) over a block that must not be cut in two."""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType


@contextlib.contextmanager
def ctrl_c_held() -> Iterator[None]:
    """Hold a SIGINT that arrives in the block until the block has ended, then take it as
    it would have been taken. Off the main thread nothing is held (signals reach only it),
    nor where the handler was not set from Python (it could not be put back).

    Ctrl-C is one sender; Ray's task cancellation is another (it interrupts the worker's
    main thread), and it may land anywhere, also between creating a temporary file and
    the clean-up that removes it when the write fails.
    """
    if (
        threading.current_thread() is not threading.main_thread()
        or signal.getsignal(signal.SIGINT) is None  # a handler set outside Python: kept
    ):
        yield
        return
    held: list[tuple[int, FrameType | None]] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: held.append((signum, frame)))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if held:
            if callable(previous):
                previous(*held[0])
            elif previous != signal.SIG_IGN:
                raise KeyboardInterrupt
