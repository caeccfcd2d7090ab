"""Severity levels and their names.

The numbers are those of the standard :mod:`logging` module (plus ``TRACE`` = 5), so
records read by logline compare directly with ``logging.WARNING`` and friends.
"""

from __future__ import annotations

from typing import Dict, Union


class Level:
    """Severity levels, lowest first.

    ``Level.WARNING == logging.WARNING``; any other integer is a valid custom level
    and is displayed as ``LEVEL<n>``.
    """

    NOTSET = 0
    TRACE = 5
    DEBUG = 10
    INFO = 20
    WARNING = 30
    ERROR = 40
    CRITICAL = 50


# value -> canonical upper-case name, collected from the attributes of Level.
_NAMES: Dict[int, str] = {
    value: name for name, value in vars(Level).items() if name.isupper()
}

# Every spelling level_from_name() understands (lower case) -> value.
_ALIASES: Dict[str, int] = {name.lower(): value for value, name in _NAMES.items()}
_ALIASES.update(
    {
        "trc": Level.TRACE,
        "dbg": Level.DEBUG,
        "information": Level.INFO,
        "warn": Level.WARNING,
        "err": Level.ERROR,
        "crit": Level.CRITICAL,
        "fatal": Level.CRITICAL,
        "panic": Level.CRITICAL,
    }
)


class UnknownLevelError(ValueError):
    """A level name that is neither a known name nor a number."""

    def __init__(self, text: str) -> None:
        self.text = text
        super().__init__(f"unknown log level {text!r}")


def level_name(level: int) -> str:
    """The canonical name of ``level``: ``"WARNING"``, or ``"LEVEL25"`` for custom ones."""
    name = _NAMES.get(level)
    return name if name is not None else f"LEVEL{int(level)}"


def level_from_name(text: str) -> int:
    """Read a level written as a name (``warn``, ``ERROR``), ``LEVEL25`` or a number.

    Raises :class:`UnknownLevelError` for anything else.
    """
    key = text.strip().lower()
    if key in _ALIASES:
        return _ALIASES[key]
    if key.startswith("level"):
        key = key[len("level"):]
    if key.isdigit():
        return int(key)
    raise UnknownLevelError(text)


def coerce_level(value: Union[int, str]) -> int:
    """Accept a level as an int or as anything :func:`level_from_name` reads."""
    if isinstance(value, bool):
        raise TypeError("a level cannot be a bool")
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        return level_from_name(value)
    raise TypeError(f"expected a level name or number, got {type(value).__name__}")
