"""Render :class:`~timespan.duration.Duration` values as text."""

from __future__ import annotations

from fractions import Fraction
from typing import List, Optional, Sequence, Tuple

from .duration import Duration
from .units import DISPLAY_UNITS, HOUR, MINUTE, SECOND, Unit

STYLES = ("compact", "verbose", "clock")


def _seconds_text(micros: int) -> str:
    """Seconds with the fraction kept but trailing zeros dropped: 1500000 -> "1.5"."""
    whole, fraction = divmod(micros, SECOND.micros)
    if not fraction:
        return str(whole)
    return f"{whole}.{fraction:06d}".rstrip("0")


def _parts(duration: Duration, units: Sequence[Unit]) -> List[Tuple[Unit, int]]:
    """Split ``duration`` and fold any sub-unit remainder into fractional seconds.

    The last element may then be ``(SECOND, micros)`` with the count in microseconds;
    callers format it with :func:`_seconds_text`.
    """
    parts = duration.split(units)
    folded: List[Tuple[Unit, int]] = []
    sub_second = 0
    for unit, count in parts:
        if unit.micros <= SECOND.micros:
            sub_second += count * unit.micros
        else:
            folded.append((unit, count))
    if sub_second:
        folded.append((SECOND, sub_second))
    return folded


def _truncate(parts: List[Tuple[Unit, int]], max_units: Optional[int]) -> List[Tuple[Unit, int]]:
    if max_units is None:
        return parts
    if max_units < 1:
        raise ValueError("max_units must be at least 1")
    return parts[:max_units]


def _format_compact(duration: Duration, units: Sequence[Unit], max_units: Optional[int]) -> str:
    parts = _truncate(_parts(duration, units), max_units)
    if not parts:
        return "0s"
    pieces = []
    for unit, count in parts:
        if unit is SECOND:
            pieces.append(_seconds_text(count) + unit.symbol)
        else:
            pieces.append(f"{count}{unit.symbol}")
    sign = "-" if duration.micros < 0 else ""
    return sign + "".join(pieces)


def _format_verbose(duration: Duration, units: Sequence[Unit], max_units: Optional[int]) -> str:
    parts = _truncate(_parts(duration, units), max_units)
    if not parts:
        return "0 seconds"
    pieces = []
    for unit, count in parts:
        if unit is SECOND:
            amount = Fraction(count, SECOND.micros)
            pieces.append(f"{_seconds_text(count)} {unit.label(amount)}")
        else:
            pieces.append(f"{count} {unit.label(count)}")
    text = pieces[0] if len(pieces) == 1 else ", ".join(pieces[:-1]) + " and " + pieces[-1]
    return ("minus " if duration.micros < 0 else "") + text


def _format_clock(duration: Duration) -> str:
    micros = abs(duration.micros)
    hours, micros = divmod(micros, HOUR.micros)
    minutes, micros = divmod(micros, MINUTE.micros)
    seconds, micros = divmod(micros, SECOND.micros)
    text = f"{hours:02d}:{minutes:02d}:{seconds:02d}"
    if micros:
        text += f".{micros:06d}".rstrip("0")
    return ("-" if duration.micros < 0 else "") + text


def format_duration(
    duration: Duration,
    style: str = "compact",
    *,
    units: Sequence[Unit] = DISPLAY_UNITS,
    max_units: Optional[int] = None,
) -> str:
    """Render ``duration``.

    ``style`` is one of:

    * ``"compact"``: ``1h30m``, ``2d4h``, ``1.5s``, ``0s``
    * ``"verbose"``: ``1 hour and 30 minutes``, ``minus 5 seconds``
    * ``"clock"``: ``01:30:00``, ``26:00:00``, ``-00:00:01.5``

    ``units`` chooses the units the compact and verbose styles break the duration
    into (pass ``UNITS`` to get weeks); ``max_units`` keeps only the largest N
    non-zero parts (the rest is dropped, not rounded).
    """
    if not isinstance(duration, Duration):
        raise TypeError(f"expected a Duration, got {type(duration).__name__}")
    if style == "compact":
        return _format_compact(duration, units, max_units)
    if style == "verbose":
        return _format_verbose(duration, units, max_units)
    if style == "clock":
        return _format_clock(duration)
    raise ValueError(f"unknown style {style!r}; expected one of {', '.join(STYLES)}")


def humanize(duration: Duration) -> str:
    """A rough, friendly rendering: the largest unit only, rounded.

    ``humanize(Duration(minutes=95))`` is ``"2 hours"``; anything under a second is
    ``"a moment"``.
    """
    size = abs(duration)
    for unit in DISPLAY_UNITS:
        if size.micros >= unit.micros:
            count = size.round(unit).micros // unit.micros
            text = f"{count} {unit.label(count)}"
            return ("minus " if duration.micros < 0 else "") + text
    return "a moment"

