"""The :class:`Record` type: one parsed log line."""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field
from typing import Dict, Iterator, Optional, Tuple

from .levels import Level, level_name

#: Keys with a meaning of their own; everything else ends up in ``Record.fields``.
TIME_KEYS = ("time", "ts", "timestamp")
LEVEL_KEYS = ("level", "lvl", "severity")
MESSAGE_KEYS = ("msg", "message")


@dataclass
class Record:
    """A structured log record.

    ``fields`` keeps the remaining key/value pairs in the order they appeared.
    """

    message: str = ""
    level: int = Level.INFO
    time: Optional[datetime.datetime] = None
    fields: Dict[str, str] = field(default_factory=dict)

    @property
    def level_name(self) -> str:
        """The canonical name of :attr:`level` (``"WARNING"``)."""
        return level_name(self.level)

    def get(self, key: str, default: Optional[str] = None) -> Optional[str]:
        """Look a key up the way a filter does: the special keys first, then ``fields``."""
        if key in MESSAGE_KEYS:
            return self.message
        if key in LEVEL_KEYS:
            return self.level_name.lower()
        if key in TIME_KEYS:
            return format_timestamp(self.time) if self.time is not None else default
        return self.fields.get(key, default)

    def items(self) -> Iterator[Tuple[str, str]]:
        """All pairs of the record as text, in logfmt order: time, level, msg, fields."""
        if self.time is not None:
            yield "time", format_timestamp(self.time)
        yield "level", self.level_name.lower()
        yield "msg", self.message
        yield from self.fields.items()


def parse_timestamp(text: str) -> datetime.datetime:
    """Read an RFC 3339 timestamp (``2024-03-01T12:00:00Z``, with optional fraction/offset)."""
    value = text.strip()
    if value.endswith(("Z", "z")):
        value = value[:-1] + "+00:00"
    if len(value) > 10 and value[10] in " t":
        value = value[:10] + "T" + value[11:]
    try:
        return datetime.datetime.fromisoformat(value)
    except ValueError:
        raise ValueError(f"not an RFC 3339 timestamp: {text!r}") from None


def format_timestamp(moment: datetime.datetime) -> str:
    """Write ``moment`` as RFC 3339, using ``Z`` for UTC."""
    text = moment.isoformat()
    if text.endswith("+00:00"):
        text = text[: -len("+00:00")] + "Z"
    return text
