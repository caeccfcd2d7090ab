"""Ctrl-C in a test as a terminal's process has it."""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest

from polybench.runner.run import RunInterrupted

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


def run_until_ctrl_c(
    run: Callable[[], object],
    release: Callable[[], None],
    press: Callable[[], None] | None = None,
) -> RunInterrupted:
    """Call ``run`` with Ctrl-C as a terminal has it, ``press`` (which sends it) in a
    thread of its own; ``run`` must stop with ``RunInterrupted``, which is returned.
    ``release`` lets whatever the test holds go, however ``run`` ended."""
    presser = None if press is None else threading.Thread(target=press)
    with terminal_ctrl_c():
        if presser is not None:
            presser.start()
        try:
            with pytest.raises(RunInterrupted) as stopped:
                run()
        finally:
            release()
            if presser is not None:
                presser.join()
    return stopped.value
