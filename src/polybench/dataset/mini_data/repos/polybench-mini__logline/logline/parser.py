"""Read logfmt lines (``time=... level=info msg="request done" status=200``)."""

from __future__ import annotations

from typing import Dict, Iterable, Iterator, List, Optional, Tuple

from .levels import UnknownLevelError, level_from_name
from .record import LEVEL_KEYS, MESSAGE_KEYS, TIME_KEYS, Record, parse_timestamp

# Escape sequences understood inside double quotes; anything else is kept as written.
_UNESCAPES = {'"': '"', "\\": "\\", "n": "\n", "t": "\t", "r": "\r"}


class LogfmtError(ValueError):
    """A line is not valid logfmt."""

    def __init__(self, message: str, line: str, position: int) -> None:
        self.line = line
        self.position = position
        super().__init__(f"{message} at column {position + 1}: {line!r}")


def _read_key(line: str, position: int) -> Tuple[str, int]:
    start = position
    while position < len(line) and line[position] not in ' ="\t':
        position += 1
    if position == start:
        raise LogfmtError("expected a key", line, position)
    return line[start:position], position


def _read_quoted(line: str, position: int) -> Tuple[str, int]:
    # ``position`` is on the opening quote.
    chars: List[str] = []
    position += 1
    while position < len(line):
        char = line[position]
        if char == '"':
            return "".join(chars), position + 1
        if char == "\\" and position + 1 < len(line):
            escaped = line[position + 1]
            if escaped in _UNESCAPES:
                chars.append(_UNESCAPES[escaped])
            else:
                chars.append("\\" + escaped)
            position += 2
            continue
        chars.append(char)
        position += 1
    raise LogfmtError("unterminated quoted value", line, position)


def _read_bare(line: str, position: int) -> Tuple[str, int]:
    start = position
    while position < len(line) and line[position] not in " \t":
        if line[position] == '"':
            raise LogfmtError("unexpected quote in unquoted value", line, position)
        position += 1
    return line[start:position], position


def tokenize(line: str) -> Iterator[Tuple[str, str]]:
    """Yield the ``(key, value)`` pairs of one logfmt line.

    A key without ``=`` is a flag and gets the value ``"true"``; ``key=`` gives ``""``.
    """
    position = 0
    length = len(line.rstrip("\r\n"))
    line = line[:length]
    while True:
        while position < length and line[position] in " \t":
            position += 1
        if position >= length:
            return
        key, position = _read_key(line, position)
        if position < length and line[position] == "=":
            position += 1
            if position < length and line[position] == '"':
                value, position = _read_quoted(line, position)
            else:
                value, position = _read_bare(line, position)
        elif position < length and line[position] == '"':
            raise LogfmtError("unexpected quote after key", line, position)
        else:
            value = "true"
        yield key, value


def _first(pairs: Dict[str, str], keys: Iterable[str]) -> Optional[str]:
    for key in keys:
        if key in pairs:
            return key
    return None


def parse_line(line: str, *, strict: bool = False) -> Record:
    """Parse one logfmt line into a :class:`~logline.record.Record`.

    The first of ``time``/``ts``/``timestamp``, ``level``/``lvl``/``severity`` and
    ``msg``/``message`` fill the record's own attributes; everything else goes to
    ``fields``. With ``strict=True`` an unreadable time or level is an error; otherwise
    the pair is kept as an ordinary field.
    """
    pairs: Dict[str, str] = {}
    for key, value in tokenize(line):
        pairs[key] = value

    record = Record()
    time_key = _first(pairs, TIME_KEYS)
    if time_key is not None:
        try:
            record.time = parse_timestamp(pairs[time_key])
            del pairs[time_key]
        except ValueError:
            if strict:
                raise
    level_key = _first(pairs, LEVEL_KEYS)
    if level_key is not None:
        try:
            record.level = level_from_name(pairs[level_key])
            del pairs[level_key]
        except UnknownLevelError:
            if strict:
                raise
    message_key = _first(pairs, MESSAGE_KEYS)
    if message_key is not None:
        record.message = pairs.pop(message_key)
    record.fields = pairs
    return record


def parse_lines(lines: Iterable[str], *, strict: bool = False) -> Iterator[Record]:
    """Parse every non-blank line of ``lines`` (a file object works)."""
    for line in lines:
        if line.strip():
            yield parse_line(line, strict=strict)
