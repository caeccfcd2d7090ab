"""Exceptions raised by timespan."""

from __future__ import annotations

from typing import Optional


class TimespanError(Exception):
    """Base class of every error raised by timespan."""


class ParseError(TimespanError, ValueError):
    """A duration string could not be understood.

    ``text`` is the string that was being parsed and ``position`` the index of the
    first character that could not be read (``None`` when the whole string is wrong).
    """

    def __init__(self, message: str, text: str = "", position: Optional[int] = None) -> None:
        self.text = text
        self.position = position
        if position is not None and text:
            message = f"{message} (at position {position} in {text!r})"
        elif text:
            message = f"{message}: {text!r}"
        super().__init__(message)


class UnknownUnitError(ParseError):
    """A number was followed by something that is not a known unit name."""

    def __init__(self, unit: str, text: str = "", position: Optional[int] = None) -> None:
        self.unit = unit
        super().__init__(f"unknown unit {unit!r}", text, position)
