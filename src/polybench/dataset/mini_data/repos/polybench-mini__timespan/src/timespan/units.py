"""The units timespan understands, and how to look them up by name.

Every unit is an exact number of microseconds; calendar units (months, years) are
deliberately absent because their length depends on the date they are applied to.
"""

from __future__ import annotations

from typing import Dict, NamedTuple, Tuple

from .errors import UnknownUnitError


class Unit(NamedTuple):
    """One unit of time.

    ``symbol`` is used by the compact format (``1h30m``), ``name``/``plural`` by the
    verbose one (``1 hour, 30 minutes``); ``aliases`` are the extra spellings accepted
    by the parser.
    """

    name: str
    plural: str
    symbol: str
    micros: int
    aliases: Tuple[str, ...] = ()

    @property
    def seconds(self) -> float:
        """Length of the unit in seconds."""
        return self.micros / 1_000_000

    def label(self, count: float) -> str:
        """``name`` or ``plural``, whichever reads right after ``count``."""
        return self.name if count == 1 else self.plural


MICROSECOND = Unit("microsecond", "microseconds", "us", 1, ("µs", "usec", "usecs"))
MILLISECOND = Unit("millisecond", "milliseconds", "ms", 1_000, ("msec", "msecs"))
SECOND = Unit("second", "seconds", "s", 1_000_000, ("sec", "secs"))
MINUTE = Unit("minute", "minutes", "m", 60 * SECOND.micros, ("min", "mins"))
HOUR = Unit("hour", "hours", "h", 60 * MINUTE.micros, ("hr", "hrs"))
DAY = Unit("day", "days", "d", 24 * HOUR.micros)
WEEK = Unit("week", "weeks", "w", 7 * DAY.micros, ("wk", "wks"))

#: Every unit, largest first.
UNITS: Tuple[Unit, ...] = (WEEK, DAY, HOUR, MINUTE, SECOND, MILLISECOND, MICROSECOND)

#: The units used when a duration is split for display (weeks are opt-in).
DISPLAY_UNITS: Tuple[Unit, ...] = (DAY, HOUR, MINUTE, SECOND)


def _build_index() -> Dict[str, Unit]:
    index: Dict[str, Unit] = {}
    for unit in UNITS:
        for spelling in (unit.name, unit.plural, unit.symbol, *unit.aliases):
            key = spelling.lower()
            if key in index and index[key] is not unit:
                raise RuntimeError(f"unit spelling {spelling!r} is ambiguous")
            index[key] = unit
    return index


_INDEX = _build_index()


def lookup(name: str) -> Unit:
    """Return the unit called ``name`` (any spelling, case-insensitive).

    Raises :class:`~timespan.errors.UnknownUnitError` for anything else.
    """
    unit = _INDEX.get(name.strip().lower())
    if unit is None:
        raise UnknownUnitError(name)
    return unit


def spellings(unit: Unit) -> Tuple[str, ...]:
    """Every spelling :func:`lookup` accepts for ``unit``."""
    return tuple(sorted(key for key, value in _INDEX.items() if value is unit))
