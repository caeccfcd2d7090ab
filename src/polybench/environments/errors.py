"""Why a sandbox could not be provided: errors that carry their kind.

Every backend raises :class:`ProvisionError` (or a subclass) when it cannot make a
sandbox; ``kind`` is one of the infrastructure error kinds of ``result.json``
(``environment_unavailable``, ``environment_setup_failed``, ``image_build_failed``,
``repository_unavailable``, ``sandbox_failed``), so the runner maps any backend's failure
the same way, in one place.
"""

from __future__ import annotations

from pathlib import Path


class ProvisionError(RuntimeError):
    """A sandbox could not be provided; ``log_path`` holds a log when there is one."""

    kind = "sandbox_failed"

    def __init__(self, message: str, log_path: Path | None = None, kind: str | None = None) -> None:
        super().__init__(message)
        self.log_path = log_path
        if kind is not None:
            self.kind = kind

    def summary(self, log_path: Path | None = None) -> str:
        """The error in one line: the message's first line and where the log is
        (``log_path``, e.g. a copy of it, else the error's own)."""
        return one_line(str(self), log_path or self.log_path, self.kind)


def one_line(message: str, log_path: Path | None = None, kind: str = "") -> str:
    """``message``'s first line (the rest, such as a log's tail, is in the log), with the
    log's path when there is one."""
    first = next((line.strip() for line in message.splitlines() if line.strip()), "")
    first = first or "unknown error"
    if log_path is None:
        return first
    what = "build log" if kind == "image_build_failed" else "log"
    return f"{first} ({what}: {log_path})"
