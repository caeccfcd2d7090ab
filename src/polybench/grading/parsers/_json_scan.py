"""Find JSON test reports inside a noisy log, and recover what a truncated report still holds.

A report is recognised by its keys, never by being the first ``{`` of the log: a
candidate is any ``{`` directly followed by one of the report's known keys, and the
decoded object must then satisfy the caller's predicate. Reports cut short (a killed run)
or interrupted by foreign output are decoded as far as they go.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

_DECODER = json.JSONDecoder(strict=True)
_WS = " \t\n\r"
_FIRST_WINDOW = 4096
_EDGE = 8


class DecodeError(ValueError):
    """Invalid JSON at an absolute offset ``pos`` of the log (the log's end when the value
    is nested too deeply to decode: the decoder's work is then charged in full)."""

    def __init__(self, message: str, pos: int) -> None:
        super().__init__(f"{message} at offset {pos}")
        self.pos = pos


def decode_at(text: str, pos: int) -> tuple[Any, int]:
    """``raw_decode`` of the value at ``pos``; raises ``DecodeError`` if it is not JSON.

    A failed ``raw_decode`` on the whole log costs time proportional to ``pos`` (the
    error computes its line number), so past the log's first few windows the value is
    first tried on a small window (or the rest of the log, if shorter): garbage
    candidates fail cheaply, and only values longer than the window are decoded in
    place. Near the start of the log a failure is cheap and the value is decoded in place.
    """
    if pos > 4 * _FIRST_WINDOW:
        chunk = text[pos : pos + _FIRST_WINDOW]
        whole = pos + _FIRST_WINDOW >= len(text)
        try:
            value, end = _DECODER.raw_decode(chunk)
        except json.JSONDecodeError as exc:
            cut_by_window = exc.pos >= len(chunk) - _EDGE or exc.msg.startswith("Unterminated")
            if whole or not cut_by_window:
                raise DecodeError(exc.msg, pos + exc.pos) from None
        except RecursionError:
            raise DecodeError("JSON nested too deeply", len(text)) from None
        else:
            if whole or end < len(chunk) or isinstance(value, (dict, list, str)):
                return value, pos + end
    try:
        return _DECODER.raw_decode(text, pos)
    except json.JSONDecodeError as exc:
        raise DecodeError(exc.msg, exc.pos) from None
    except RecursionError:
        raise DecodeError("JSON nested too deeply", len(text)) from None


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


def decode_partial(
    text: str, pos: int, depth: int = 0, work: list[int] | None = None
) -> tuple[Any, int, bool]:
    """Decode the JSON value at ``pos`` as far as it is well formed.

    Returns ``(value, end, complete)``. When the value is cut short, containers hold the
    members decoded before the break and ``complete`` is False. ``work`` (a one-item
    list), when given, accumulates the number of characters the decoder went through.
    """
    try:
        value, end = decode_at(text, pos)
    except DecodeError as exc:
        if work is not None:
            work[0] += max(exc.pos - pos, 1)
    else:
        if work is not None:
            work[0] += end - pos
        return value, end, True
    if pos >= len(text) or depth > 64:
        return None, pos, False
    opener = text[pos]
    if opener == "{":
        return _partial_object(text, pos, depth, work)
    if opener == "[":
        return _partial_array(text, pos, depth, work)
    return None, pos, False


def _partial_object(
    text: str, pos: int, depth: int, work: list[int] | None
) -> tuple[Any, int, bool]:
    result: dict[str, Any] = {}
    pos = _skip_ws(text, pos + 1)
    while pos < len(text):
        if text[pos] == "}":
            return result, pos + 1, True
        try:
            key, pos = decode_at(text, pos)
        except DecodeError:
            return result, pos, False
        if not isinstance(key, str):
            return result, pos, False
        pos = _skip_ws(text, pos)
        if pos >= len(text) or text[pos] != ":":
            return result, pos, False
        pos = _skip_ws(text, pos + 1)
        value, pos, complete = decode_partial(text, pos, depth + 1, work)
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


def _partial_array(
    text: str, pos: int, depth: int, work: list[int] | None
) -> tuple[Any, int, bool]:
    items: list[Any] = []
    pos = _skip_ws(text, pos + 1)
    while pos < len(text):
        if text[pos] == "]":
            return items, pos + 1, True
        value, pos, complete = decode_partial(text, pos, depth + 1, work)
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


@functools.lru_cache(maxsize=32)
def start_pattern(keys: tuple[str, ...]) -> re.Pattern[str]:
    """Regex matching ``{`` immediately followed (after whitespace) by one of ``keys``."""
    alternatives = "|".join(re.escape(key) for key in keys)
    return re.compile(r'\{\s*"(?:' + alternatives + r')"\s*:')


class ReportScanner:
    """Finds reports and items in one log, within a work budget linear in its size.

    Every decode attempt is charged the length of text it went through; once the budget
    (a few passes over the log) is spent, scanning stops and ``exhausted`` is set, so
    adversarial logs full of almost-JSON cannot make a parser quadratic.
    """

    def __init__(self, text: str, passes: int = 6) -> None:
        self.text = text
        self.budget = passes * len(text) + (1 << 20)
        self.exhausted = False

    def _charge(self, amount: int) -> bool:
        self.budget -= max(amount, 1)
        if self.budget < 0:
            self.exhausted = True
        return not self.exhausted

    def find_reports(
        self, start_keys: tuple[str, ...], is_report: Callable[[dict[str, Any]], bool]
    ) -> Iterator[FoundReport]:
        """Yield every report whose first key is one of ``start_keys``.

        Complete reports are yielded whole; an incomplete one is yielded with what could
        be decoded, provided the predicate accepts it. Text inside a report already
        yielded (or inside any complete JSON value) is not searched again.
        """
        text = self.text
        pattern = start_pattern(start_keys)
        pos = 0
        while not self.exhausted:
            match = pattern.search(text, pos)
            if match is None:
                return
            start = match.start()
            work = [0]
            value, end, complete = decode_partial(text, start, work=work)
            if not self._charge(work[0]):
                return
            if isinstance(value, dict) and is_report(value):
                yield FoundReport(value, complete, start, end)
                pos = max(end, start + 1)
            elif complete:
                pos = max(end, start + 1)
            else:
                pos = start + 1

    def items_after(
        self, pos: int, item_start: re.Pattern[str], limit: int | None = None
    ) -> Iterator[dict[str, Any]]:
        """Yield complete objects starting at matches of ``item_start`` from ``pos`` on.

        Used to resynchronise after a report was interrupted: every later complete item
        of the same kind is still recovered. Stops at ``limit`` (an offset) when given.
        """
        text = self.text
        stop = len(text) if limit is None else limit
        while not self.exhausted:
            match = item_start.search(text, pos, stop)
            if match is None:
                return
            start = match.start()
            try:
                value, end = decode_at(text, start)
            except DecodeError as exc:
                self._charge(exc.pos - start)
                pos = start + 1
                continue
            if not self._charge(end - start):
                return
            if isinstance(value, dict):
                yield value
            pos = max(end, start + 1)


def as_str(value: Any) -> str | None:
    """``value`` if it is a string, else None."""
    return value if isinstance(value, str) else None


def as_list(value: Any) -> list[Any]:
    """``value`` if it is a list, else an empty list."""
    return value if isinstance(value, list) else []
