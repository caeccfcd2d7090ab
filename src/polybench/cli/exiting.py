"""Ending the ``polybench`` process once its command is done, without the teardown.

When a command returns, Python frees every module and object one by one before the
process ends: after ``polybench eval`` that is about 60 ms, more than the harness's own
work on a short instance. Nothing of the command needs it. :func:`run_and_leave` ends the
process the way the interpreter does up to that point (its non-daemon threads joined,
then every ``atexit`` handler run: log files closed, a Ray session shut down, temporary
folders removed), flushes the standard streams, and ends with the command's exit status.

Both first steps are the interpreter's own (``threading._shutdown`` and
``atexit._run_exitfuncs``); on a Python without either, the command exits the usual way.
"""

from __future__ import annotations

import atexit
import os
import sys
import threading
from collections.abc import Callable
from typing import NoReturn

FLUSH_FAILED = 120
"""The status Python ends with when standard output cannot be flushed at exit."""


def run_and_leave(command: Callable[[], object]) -> NoReturn:
    """Run ``command`` (a command line that ends with :class:`SystemExit`), then
    :func:`leave` with its status. Any other exception propagates as it would."""
    try:
        command()
    except SystemExit as exc:
        leave(exit_status(exc.code))
    leave(0)


def exit_status(code: object) -> int:
    """The process status of ``SystemExit(code)``, as Python computes it (a message is
    printed to standard error and gives 1)."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def leave(status: int) -> NoReturn:
    """End the process with ``status`` after the interpreter's exit steps, skipping only
    its teardown; raise ``SystemExit(status)`` where those steps are not available."""
    join_threads = getattr(threading, "_shutdown", None)
    run_handlers = getattr(atexit, "_run_exitfuncs", None)
    if join_threads is None or run_handlers is None:
        raise SystemExit(status)
    join_threads()
    run_handlers()
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):
            if stream is sys.stdout and status == 0:
                status = FLUSH_FAILED
    os._exit(status)
