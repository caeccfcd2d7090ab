"""Write :class:`~logline.record.Record` values back as logfmt."""

from __future__ import annotations

from typing import Iterable, List, Optional, Sequence

from .levels import Level, level_name
from .record import Record, format_timestamp

# How characters are written inside a quoted value (the inverse of the parser's table).
_ESCAPES = str.maketrans(
    {
        '"': '\\"',
        "\n": "\\n",
        "\t": "\\t",
        "\r": "\\r",
    }
)

# A value containing any of these (or nothing at all) has to be quoted.
_NEEDS_QUOTES = frozenset(' ="\t\n\r')

# The label written for the well-known levels.
_LEVEL_LABELS = {
    Level.TRACE: "trace",
    Level.DEBUG: "debug",
    Level.INFO: "info",
    Level.WARNING: "warning",
    Level.ERROR: "error",
    Level.CRITICAL: "critical",
}


def quote(value: str) -> str:
    """Return ``value`` ready to be written after ``key=``: quoted and escaped if needed."""
    if value and not _NEEDS_QUOTES.intersection(value):
        return value
    return '"' + value.translate(_ESCAPES) + '"'


def level_label(level: int) -> str:
    """The label written for ``level``: ``info``, ``warning`` ... or ``level25``."""
    return _LEVEL_LABELS.get(level) or level_name(level).lower()


def format_pairs(pairs: Iterable[Sequence[str]]) -> str:
    """Join ``(key, value)`` pairs into one logfmt line."""
    parts: List[str] = []
    for key, value in pairs:
        if not key or _NEEDS_QUOTES.intersection(key):
            raise ValueError(f"invalid logfmt key {key!r}")
        parts.append(f"{key}={quote(value)}")
    return " ".join(parts)


def format_record(record: Record, *, fields: Optional[Sequence[str]] = None) -> str:
    """Write ``record`` as one logfmt line: ``time``, ``level``, ``msg``, then the fields.

    ``fields`` restricts (and orders) the extra fields written.
    """
    pairs = []
    if record.time is not None:
        pairs.append(("time", format_timestamp(record.time)))
    pairs.append(("level", level_label(record.level)))
    pairs.append(("msg", record.message))
    keys = list(record.fields) if fields is None else [k for k in fields if k in record.fields]
    pairs.extend((key, record.fields[key]) for key in keys)
    return format_pairs(pairs)
