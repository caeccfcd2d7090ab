"""Find JSON test reports inside a noisy log, and recover what a truncated report still holds.

A report is recognised by its keys, never by being the first ``{`` of the log: a
candidate is any ``{`` directly followed by one of the report's known keys, and the
decoded object must then satisfy the caller's predicate. Reports cut short (a killed run)
or interrupted by foreign output are decoded as far as they go.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

_DECODER = json.JSONDecoder(strict=False)
_WS = " \t\n\r"
_FIRST_WINDOW = 4096
_WINDOW_GROWTH = 16
_EDGE = 8


def decode_at(text: str, pos: int) -> tuple[Any, int]:
    """``raw_decode`` of the value at ``pos``, with a cost bounded by the value's size.

    A failed ``raw_decode`` on the whole log costs time proportional to ``pos`` (the
    error computes its line number), which makes many failed candidates quadratic. The
    value is first decoded from growing windows of the text; only a value reaching the
    end of the log is decoded in place. Raises ``ValueError`` when it is not valid JSON.
    """
    size = len(text)
    window = _FIRST_WINDOW
    while pos + window < size:
        chunk = text[pos : pos + window]
        try:
            value, end = _DECODER.raw_decode(chunk)
        except json.JSONDecodeError as exc:
            cut_by_window = exc.pos >= len(chunk) - _EDGE or exc.msg.startswith("Unterminated")
            if not cut_by_window:
                raise
        except RecursionError as exc:
            raise ValueError("JSON nested too deeply") from exc
        else:
            if end < len(chunk) or isinstance(value, (dict, list, str)):
                return value, pos + end
        window *= _WINDOW_GROWTH
    try:
        return _DECODER.raw_decode(text, pos)
    except RecursionError as exc:
        raise ValueError("JSON nested too deeply") from exc


@dataclass
class FoundReport:
    """One report found in the log."""

    data: dict[str, Any]
    complete: bool
    start: int
    end: int


def _skip_ws(text: str, pos: int) -> int:
    size = len(text)
    while pos < size and text[pos] in _WS:
        pos += 1
    return pos


def decode_partial(text: str, pos: int, depth: int = 0) -> tuple[Any, int, bool]:
    """Decode the JSON value at ``pos`` as far as it is well formed.

    Returns ``(value, end, complete)``. When the value is cut short, containers hold the
    members decoded before the break and ``complete`` is False. Linear in the size of the
    value times its nesting depth.
    """
    try:
        value, end = decode_at(text, pos)
        return value, end, True
    except ValueError:
        pass
    if pos >= len(text) or depth > 64:
        return None, pos, False
    opener = text[pos]
    if opener == "{":
        return _partial_object(text, pos, depth)
    if opener == "[":
        return _partial_array(text, pos, depth)
    return None, pos, False


def _partial_object(text: str, pos: int, depth: int) -> tuple[Any, int, bool]:
    result: dict[str, Any] = {}
    pos = _skip_ws(text, pos + 1)
    while pos < len(text):
        if text[pos] == "}":
            return result, pos + 1, True
        try:
            key, pos = decode_at(text, pos)
        except ValueError:
            return result, pos, False
        if not isinstance(key, str):
            return result, pos, False
        pos = _skip_ws(text, pos)
        if pos >= len(text) or text[pos] != ":":
            return result, pos, False
        pos = _skip_ws(text, pos + 1)
        value, pos, complete = decode_partial(text, pos, depth + 1)
        if not complete:
            if value is not None:
                result[key] = value
            return result, pos, False
        result[key] = value
        pos = _skip_ws(text, pos)
        if pos < len(text) and text[pos] == ",":
            pos = _skip_ws(text, pos + 1)
        elif pos >= len(text) or text[pos] != "}":
            return result, pos, False
    return result, pos, False


def _partial_array(text: str, pos: int, depth: int) -> tuple[Any, int, bool]:
    items: list[Any] = []
    pos = _skip_ws(text, pos + 1)
    while pos < len(text):
        if text[pos] == "]":
            return items, pos + 1, True
        value, pos, complete = decode_partial(text, pos, depth + 1)
        if not complete:
            if value is not None:
                items.append(value)
            return items, pos, False
        items.append(value)
        pos = _skip_ws(text, pos)
        if pos < len(text) and text[pos] == ",":
            pos = _skip_ws(text, pos + 1)
        elif pos >= len(text) or text[pos] != "]":
            return items, pos, False
    return items, pos, False


def start_pattern(keys: tuple[str, ...]) -> re.Pattern[str]:
    """Regex matching ``{`` immediately followed (after whitespace) by one of ``keys``."""
    alternatives = "|".join(re.escape(key) for key in keys)
    return re.compile(r'\{\s*"(?:' + alternatives + r')"\s*:')


def find_reports(
    text: str,
    start_keys: tuple[str, ...],
    is_report: Callable[[dict[str, Any]], bool],
) -> Iterator[FoundReport]:
    """Yield every report in ``text`` whose first key is one of ``start_keys``.

    Complete reports are yielded whole; an incomplete one is yielded with what could be
    decoded, provided the predicate accepts it. Text inside a report already yielded is
    not searched again.
    """
    pattern = start_pattern(start_keys)
    pos = 0
    while True:
        match = pattern.search(text, pos)
        if match is None:
            return
        start = match.start()
        value, end, complete = decode_partial(text, start)
        if isinstance(value, dict) and is_report(value):
            yield FoundReport(value, complete, start, end)
            pos = max(end, start + 1)
        elif complete:
            pos = max(end, start + 1)
        else:
            pos = start + 1


def items_after(
    text: str, pos: int, item_start: re.Pattern[str], limit: int | None = None
) -> Iterator[tuple[dict[str, Any], int]]:
    """Yield complete objects starting at matches of ``item_start`` from ``pos`` on.

    Used to resynchronise after a report was interrupted: every later complete item of
    the same kind is still recovered. Stops at ``limit`` (an offset) when given.
    """
    while True:
        match = item_start.search(text, pos, limit if limit is not None else len(text))
        if match is None:
            return
        try:
            value, end = decode_at(text, match.start())
        except ValueError:
            pos = match.start() + 1
            continue
        if isinstance(value, dict):
            yield value, end
        pos = max(end, match.start() + 1)


def as_str(value: Any) -> str | None:
    """``value`` if it is a string, else None."""
    return value if isinstance(value, str) else None


def as_list(value: Any) -> list[Any]:
    """``value`` if it is a list, else an empty list."""
    return value if isinstance(value, list) else []
