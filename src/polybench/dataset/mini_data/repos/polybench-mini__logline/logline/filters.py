"""Small filter expressions over records: ``level>=warning service=api msg~timeout``.

Terms are separated by whitespace (or the word ``and``) and must all match. Each term
is ``key OP value`` with ``OP`` one of ``= != < <= > >= ~`` (``~`` is a
case-insensitive substring test). ``level`` compares by severity, values that look
like numbers compare as numbers, everything else as text. A term that is just a key
(``user``) matches records that have that key.
"""

from __future__ import annotations

import operator
import re
from typing import Callable, List, Optional

from .levels import coerce_level
from .record import LEVEL_KEYS, Record

Predicate = Callable[[Record], bool]

_TERM_RE = re.compile(
    r"""
    \s*(?:and\s+)?
    (?P<key>[^\s=!<>~"]+)
    (?:\s*(?P<op>>=|<=|!=|=|<|>|~)\s*(?P<value>"[^"]*"|[^\s"]+))?
    \s*
    """,
    re.VERBOSE,
)

_COMPARISONS = {
    "=": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}


class FilterError(ValueError):
    """A filter expression could not be read."""


def _number(text: Optional[str]) -> Optional[float]:
    if text is None:
        return None
    try:
        return float(text)
    except ValueError:
        return None


def _term(key: str, op: Optional[str], value: Optional[str]) -> Predicate:
    if op is None:
        return lambda record: record.get(key) is not None

    assert value is not None
    if value.startswith('"'):
        value = value[1:-1]

    if op == "~":
        needle = value.lower()

        def contains(record: Record) -> bool:
            found = record.get(key)
            return found is not None and needle in found.lower()

        return contains

    compare = _COMPARISONS[op]
    if key in LEVEL_KEYS:
        try:
            wanted = coerce_level(value)
        except ValueError as exc:
            raise FilterError(str(exc)) from None
        return lambda record: compare(record.level, wanted)

    wanted_number = _number(value)

    def matches(record: Record) -> bool:
        found = record.get(key)
        if found is None:
            return op == "!="
        found_number = _number(found)
        if wanted_number is not None and found_number is not None:
            return compare(found_number, wanted_number)
        return compare(found, value)

    return matches


def compile_filter(expression: str) -> Predicate:
    """Turn ``expression`` into a function ``Record -> bool``.

    An empty expression matches everything. Raises :class:`FilterError` when the
    expression cannot be read.
    """
    terms: List[Predicate] = []
    position = 0
    text = expression.strip()
    while position < len(text):
        match = _TERM_RE.match(text, position)
        if match is None or match.end() == position:
            raise FilterError(f"cannot read filter at column {position + 1}: {expression!r}")
        terms.append(_term(match.group("key"), match.group("op"), match.group("value")))
        position = match.end()
    return lambda record: all(term(record) for term in terms)
