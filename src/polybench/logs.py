"""Logging for polybench: levels for people, and a JSON event stream for machines.

Library modules log with ``logging.getLogger(__name__)`` (under ``polybench``); a long
run also emits *events* (:func:`emit`: a run started, an instance finished, a warning, a
run ended) on the ``polybench.events`` logger. The command line sets it up once
(:func:`configure`): ``--verbose`` shows debug messages on stderr, ``--quiet`` keeps only
warnings, errors and results, and ``--log-json FILE`` writes every event and message as
one JSON object a line (``-``: standard error), for a sweep or a dashboard to follow.
"""

from __future__ import annotations

import json
import logging
import sys
import threading
from datetime import datetime, timezone
from pathlib import Path
from typing import IO, Any

ROOT = "polybench"
EVENTS = "polybench.events"
QUIET, NORMAL, VERBOSE = -1, 0, 1

_state = {"verbosity": NORMAL}


def verbosity() -> int:
    """``QUIET`` (-1), ``NORMAL`` (0) or ``VERBOSE`` (1), as the command line set it."""
    return _state["verbosity"]


def emit(event: str, **fields: Any) -> None:
    """Send one event (``run_started``, ``instance_finished``, ...) with its fields."""
    logging.getLogger(EVENTS).info(event, extra={"event": event, "fields": fields})


class JsonLinesHandler(logging.Handler):
    """Writes each record as one JSON line: time, level, logger, then the event and its
    fields, or the message."""

    def __init__(self, stream: IO[str] | None, close: bool) -> None:
        """``stream`` None writes to whatever ``sys.stderr`` is at each record (a stream
        taken once may be closed by then: a test runner's capture, a redirected stderr)."""
        super().__init__(logging.DEBUG)
        self.stream = stream
        self._close = close
        self._write_lock = threading.Lock()

    def emit(self, record: logging.LogRecord) -> None:
        line: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, timezone.utc).isoformat(
                timespec="milliseconds"
            ),
            "level": record.levelname.lower(),
            "logger": record.name,
        }
        event = getattr(record, "event", None)
        if event is not None:
            line["event"] = event
            line.update(getattr(record, "fields", {}))
        else:
            line["message"] = record.getMessage()
        text = json.dumps(line, default=str, ensure_ascii=False)
        try:
            stream = self.stream if self.stream is not None else sys.stderr
            with self._write_lock:
                stream.write(text + "\n")
                stream.flush()
        except (OSError, ValueError):
            self.handleError(record)

    def close(self) -> None:
        if self._close and self.stream is not None:
            self.stream.close()
        super().close()


class _PlainHandler(logging.Handler):
    """Messages (not events) on standard error as ``level: message``."""

    def emit(self, record: logging.LogRecord) -> None:
        if getattr(record, "event", None) is not None:
            return
        try:
            sys.stderr.write(f"{record.levelname.lower()}: {record.getMessage()}\n")
            sys.stderr.flush()
        except (OSError, ValueError):
            self.handleError(record)


def configure(level: int = NORMAL, json_path: Path | None = None) -> None:
    """Set up the ``polybench`` loggers for a command (see the module docstring)."""
    _state["verbosity"] = level
    root = logging.getLogger(ROOT)
    for handler in list(root.handlers):
        if isinstance(handler, (JsonLinesHandler, _PlainHandler)):
            root.removeHandler(handler)
            handler.close()
    root.propagate = False
    plain = _PlainHandler(
        {VERBOSE: logging.DEBUG, QUIET: logging.ERROR}.get(level, logging.WARNING)
    )
    root.addHandler(plain)
    root.setLevel(logging.DEBUG if level == VERBOSE or json_path is not None else plain.level)
    if json_path is not None:
        if str(json_path) == "-":
            root.addHandler(JsonLinesHandler(None, close=False))
        else:
            json_path.parent.mkdir(parents=True, exist_ok=True)
            stream = json_path.open("a", encoding="utf-8")
            root.addHandler(JsonLinesHandler(stream, close=True))
