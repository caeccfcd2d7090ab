"""The :class:`Duration` value type."""

from __future__ import annotations

import datetime
import functools
from fractions import Fraction
from numbers import Real
from typing import Iterable, List, Tuple, Union

from .units import DAY, DISPLAY_UNITS, HOUR, MICROSECOND, MILLISECOND, MINUTE, SECOND, WEEK, Unit

Number = Union[int, float, Fraction]


def _to_micros(value: Number, unit: Unit) -> Fraction:
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(f"expected a number of {unit.plural}, got {type(value).__name__}")
    if isinstance(value, float) and value != value:
        raise ValueError("a duration cannot be NaN")
    if isinstance(value, float) and value in (float("inf"), float("-inf")):
        raise ValueError("a duration cannot be infinite")
    return Fraction(value) * unit.micros


@functools.total_ordering
class Duration:
    """A signed length of time with microsecond resolution.

    >>> Duration(hours=1, minutes=30)
    Duration(seconds=5400)
    >>> Duration(90) == Duration(minutes=1.5)
    True

    Durations are immutable and hashable; they add, subtract, scale and compare like
    numbers, and mix with :class:`datetime.timedelta`.
    """

    __slots__ = ("_micros",)

    def __init__(
        self,
        seconds: Number = 0,
        *,
        weeks: Number = 0,
        days: Number = 0,
        hours: Number = 0,
        minutes: Number = 0,
        milliseconds: Number = 0,
        microseconds: Number = 0,
    ) -> None:
        total = (
            _to_micros(seconds, SECOND)
            + _to_micros(weeks, WEEK)
            + _to_micros(days, DAY)
            + _to_micros(hours, HOUR)
            + _to_micros(minutes, MINUTE)
            + _to_micros(milliseconds, MILLISECOND)
            + _to_micros(microseconds, MICROSECOND)
        )
        self._micros = round(total)

    # -- alternative constructors -------------------------------------------------

    @classmethod
    def from_micros(cls, micros: int) -> "Duration":
        """Build a duration from a whole number of microseconds."""
        if not isinstance(micros, int) or isinstance(micros, bool):
            raise TypeError("micros must be an int")
        duration = cls.__new__(cls)
        duration._micros = micros
        return duration

    @classmethod
    def from_timedelta(cls, delta: datetime.timedelta) -> "Duration":
        """Convert a :class:`datetime.timedelta` (exactly)."""
        micros = (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds
        return cls.from_micros(micros)

    # -- accessors ---------------------------------------------------------------

    @property
    def micros(self) -> int:
        """The duration as a whole number of microseconds."""
        return self._micros

    def total_seconds(self) -> float:
        """The duration in seconds, as a float."""
        return self._micros / 1_000_000

    def in_units(self, unit: Unit) -> Fraction:
        """The duration expressed in ``unit``, exactly (``Duration(90).in_units(MINUTE)`` is 3/2)."""
        return Fraction(self._micros, unit.micros)

    def split(self, units: Iterable[Unit] = DISPLAY_UNITS) -> List[Tuple[Unit, int]]:
        """Break the absolute value into whole counts of ``units`` (largest first).

        What is left below the smallest unit is returned as a ``(MICROSECOND, n)``
        pair when it is not zero. Units with a zero count are left out, so
        ``Duration(3661).split()`` is ``[(HOUR, 1), (MINUTE, 1), (SECOND, 1)]``.
        """
        remaining = abs(self._micros)
        parts: List[Tuple[Unit, int]] = []
        for unit in sorted(units, key=lambda u: u.micros, reverse=True):
            count, remaining = divmod(remaining, unit.micros)
            if count:
                parts.append((unit, count))
        if remaining:
            parts.append((MICROSECOND, remaining))
        return parts

    def to_timedelta(self) -> datetime.timedelta:
        """Convert to :class:`datetime.timedelta`."""
        return datetime.timedelta(microseconds=self._micros)

    def round(self, unit: Unit = SECOND) -> "Duration":
        """Round to the nearest whole multiple of ``unit`` (halves away from zero)."""
        quotient, remainder = divmod(abs(self._micros), unit.micros)
        if remainder * 2 >= unit.micros:
            quotient += 1
        micros = quotient * unit.micros
        return Duration.from_micros(-micros if self._micros < 0 else micros)

    # -- arithmetic --------------------------------------------------------------

    @staticmethod
    def _coerce(other: object) -> Union[int, None]:
        if isinstance(other, Duration):
            return other._micros
        if isinstance(other, datetime.timedelta):
            return Duration.from_timedelta(other)._micros
        return None

    def __add__(self, other: object) -> "Duration":
        micros = self._coerce(other)
        if micros is None:
            return NotImplemented
        return Duration.from_micros(self._micros + micros)

    __radd__ = __add__

    def __sub__(self, other: object) -> "Duration":
        micros = self._coerce(other)
        if micros is None:
            return NotImplemented
        return Duration.from_micros(self._micros - micros)

    def __rsub__(self, other: object) -> "Duration":
        micros = self._coerce(other)
        if micros is None:
            return NotImplemented
        return Duration.from_micros(micros - self._micros)

    def __mul__(self, factor: object) -> "Duration":
        if isinstance(factor, bool) or not isinstance(factor, Real):
            return NotImplemented
        return Duration.from_micros(round(Fraction(factor) * self._micros))

    __rmul__ = __mul__

    def __truediv__(self, other: object) -> Union["Duration", float]:
        micros = self._coerce(other)
        if micros is not None:
            return self._micros / micros
        if isinstance(other, bool) or not isinstance(other, Real):
            return NotImplemented
        return Duration.from_micros(round(Fraction(self._micros) / Fraction(other)))

    def __floordiv__(self, other: object) -> Union["Duration", int]:
        micros = self._coerce(other)
        if micros is not None:
            return self._micros // micros
        if isinstance(other, int) and not isinstance(other, bool):
            return Duration.from_micros(self._micros // other)
        return NotImplemented

    def __mod__(self, other: object) -> "Duration":
        micros = self._coerce(other)
        if micros is None:
            return NotImplemented
        return Duration.from_micros(self._micros % micros)

    def __neg__(self) -> "Duration":
        return Duration.from_micros(-self._micros)

    def __pos__(self) -> "Duration":
        return self

    def __abs__(self) -> "Duration":
        return Duration.from_micros(abs(self._micros))

    def __bool__(self) -> bool:
        return self._micros != 0

    # -- comparison and hashing --------------------------------------------------

    def __eq__(self, other: object) -> bool:
        micros = self._coerce(other)
        if micros is None:
            return NotImplemented
        return self._micros == micros

    def __lt__(self, other: object) -> bool:
        micros = self._coerce(other)
        if micros is None:
            return NotImplemented
        return self._micros < micros

    def __hash__(self) -> int:
        return hash((Duration, self._micros))

    # -- display -----------------------------------------------------------------

    def __repr__(self) -> str:
        seconds = Fraction(self._micros, 1_000_000)
        if seconds.denominator == 1:
            return f"Duration(seconds={seconds.numerator})"
        return f"Duration(seconds={float(seconds)!r})"

    def __str__(self) -> str:
        from .formatting import format_duration

        return format_duration(self)

    def __format__(self, spec: str) -> str:
        if not spec:
            return str(self)
        from .formatting import format_duration

        return format_duration(self, style=spec)

    def __reduce__(self):
        return (Duration.from_micros, (self._micros,))


ZERO = Duration.from_micros(0)
