"""Byte sizes from text such as ``12 KiB`` or ``3 MB``."""

from __future__ import annotations

UNITS = {"B": 1, "KB": 1000, "MB": 1000**2, "KIB": 1024, "MIB": 1024**2}


def parse_size(text: str) -> int:
    """The number of bytes ``text`` names."""
    number, _, unit = text.strip().partition(" ")
    return int(float(number) * UNITS[unit or "B"])


def unit_of(text: str) -> str | None:
    """The unit ``text`` is written in, or None for a bare number."""
    _, _, unit = text.strip().partition(" ")
    return unit or None


def known_units() -> list[str]:
    """Every unit name, as written."""
    return list(UNITS)
