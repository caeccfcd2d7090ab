"""Turn human-written strings into :class:`~timespan.duration.Duration` values.

Accepted forms::

    "90s"  "1h30m"  "1h 30m"  "1.5 hours"  "2 days, 4 hours and 5 minutes"
    "-45m"  "1:30:00"  "05:30"  "90" (only with ``default_unit``)
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Optional, Set, Union

from .duration import Duration
from .errors import ParseError, UnknownUnitError
from .units import HOUR, MINUTE, SECOND, Unit, lookup

# One "<number> <unit>" component, followed by an optional separator ("," or "and").
_COMPONENT_RE = re.compile(
    r"""
    (?P<value>[+-]?(?:\d+(?:\.\d*)?|\.\d+))   # 1, 1.5, .5, -2
    \s*
    (?P<unit>[^\W\d_]+)                      # h, hours, µs ...
    \s*(?:,\s*)?(?:and\s+)?                  # separators
    """,
    re.VERBOSE | re.UNICODE,
)

# [-]hh:mm:ss[.ffffff] or [-]mm:ss[.ffffff]
_CLOCK_RE = re.compile(
    r"""
    ^(?P<sign>[+-])?
    (?:(?P<hours>\d+):)?
    (?P<minutes>\d+):
    (?P<seconds>\d{1,2}(?:\.\d+)?)$
    """,
    re.VERBOSE,
)

_NUMBER_RE = re.compile(r"^[+-]?(?:\d+(?:\.\d*)?|\.\d+)$")


def _fraction(text: str) -> Fraction:
    # Fraction() rejects "1." but that is a perfectly good way to write one.
    return Fraction(text + "0" if text.endswith(".") else text)


def _parse_clock(text: str) -> Optional[Duration]:
    match = _CLOCK_RE.match(text)
    if match is None:
        return None
    hours = int(match.group("hours") or 0)
    minutes = int(match.group("minutes"))
    seconds = Fraction(match.group("seconds"))
    if match.group("hours") is not None and minutes >= 60:
        raise ParseError("minutes must be below 60 in a clock value", text)
    if seconds >= 60:
        raise ParseError("seconds must be below 60 in a clock value", text)
    micros = (hours * HOUR.micros) + (minutes * MINUTE.micros) + seconds * SECOND.micros
    if match.group("sign") == "-":
        micros = -micros
    return Duration.from_micros(round(micros))


def parse(text: str, default_unit: Union[Unit, str, None] = None) -> Duration:
    """Parse ``text`` into a :class:`Duration`.

    ``default_unit`` is the unit of a bare number (``parse("90", "s")``); without it a
    bare number is an error, because "90" alone is ambiguous.

    Raises :class:`~timespan.errors.ParseError` when ``text`` is not a duration.
    """
    if not isinstance(text, str):
        raise TypeError(f"expected a string, got {type(text).__name__}")
    stripped = text.strip()
    if not stripped:
        raise ParseError("empty duration", text)

    clock = _parse_clock(stripped)
    if clock is not None:
        return clock

    if _NUMBER_RE.match(stripped):
        if default_unit is None:
            raise ParseError("a bare number needs a unit", text)
        unit = lookup(default_unit) if isinstance(default_unit, str) else default_unit
        return Duration.from_micros(round(_fraction(stripped) * unit.micros))

    total = Fraction(0)
    seen: Set[Unit] = set()
    position = 0
    while position < len(stripped):
        match = _COMPONENT_RE.match(stripped, position)
        if match is None:
            raise ParseError("expected a number followed by a unit", text, position)
        try:
            unit = lookup(match.group("unit"))
        except UnknownUnitError as exc:
            raise UnknownUnitError(exc.unit, text, match.start("unit")) from None
        if unit in seen:
            raise ParseError(f"unit {unit.name!r} given more than once", text, match.start())
        seen.add(unit)
        total += _fraction(match.group("value")) * unit.micros
        position = match.end()
    return Duration.from_micros(round(total))


def try_parse(text: str, default_unit: Union[Unit, str, None] = None) -> Optional[Duration]:
    """Like :func:`parse`, but return ``None`` instead of raising on bad input."""
    try:
        return parse(text, default_unit)
    except ParseError:
        return None
