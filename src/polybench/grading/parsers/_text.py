"""Text helpers shared by the line-based parsers: ANSI removal and bounded line iteration."""

from __future__ import annotations

import re
from collections.abc import Iterator

TESTBED = "/testbed"
"""Where the harness mounts the repository; text reporters that print relative paths get it."""

# CSI sequences (colours, cursor moves), OSC sequences (titles, hyperlinks) and lone escapes.
_ANSI_RE = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI
    r"|\x1b\][^\x07\x1b\n]*(?:\x07|\x1b\\)?"  # OSC, terminated by BEL or ST
    r"|\x1b[@-Z\\-_]"  # two-byte sequences
    r"|\x9b[0-?]*[ -/]*[@-~]"  # 8-bit CSI
)

_CHUNK = 1 << 20

SPACE = r"\t\n\x0b\x0c\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
"""The characters ``\\s`` matches (``str.isspace``), as the body of a regex class: a
pattern that names them runs faster than one that asks ``\\s`` of every character."""
LINE_SPACE = SPACE.replace(r"\n", "")
"""``SPACE`` without the line break (``[^\\S\\n]``)."""
_ASCII_SPACE = r"\t\n\x0b\x0c\r\x1c-\x1f "


class TwoWayPattern:
    """A line pattern compiled twice: for any text, and for ASCII text, where ``\\w``,
    ``\\d`` and white space need no Unicode tables (much faster; the same matches).
    ``{S}`` in the template stands for the class body ``SPACE``, ``{L}`` for
    ``LINE_SPACE``. Each form is compiled when first asked for: a run uses the patterns of
    the parsers its instances name, mostly on ASCII logs."""

    __slots__ = ("_ascii", "_flags", "_template", "_unicode")

    def __init__(self, template: str, flags: int = 0) -> None:
        self._template = template
        self._flags = flags
        self._ascii: re.Pattern[str] | None = None
        self._unicode: re.Pattern[str] | None = None

    def of(self, text: str) -> re.Pattern[str]:
        """The pattern to use on ``text`` (``str.isascii`` costs nothing)."""
        if text.isascii():
            if self._ascii is None:
                self._ascii = self._build(_ASCII_SPACE, self._flags | re.ASCII)
            return self._ascii
        if self._unicode is None:
            self._unicode = self._build(SPACE, self._flags)
        return self._unicode

    def _build(self, space: str, flags: int) -> re.Pattern[str]:
        line_space = space.replace(r"\n", "")
        return re.compile(self._template.replace("{S}", space).replace("{L}", line_space), flags)


def strip_ansi(text: str) -> str:
    """Remove ANSI escape sequences (colours, cursor movement, hyperlinks) from ``text``."""
    if "\x1b" not in text and "\x9b" not in text:
        return text
    return _ANSI_RE.sub("", text)


def visible_text(text: str) -> str:
    """``text`` as ``iter_lines`` shows it, as one string for patterns that read it whole:
    ANSI sequences removed, each carriage return a line break (a line that only held what
    a carriage return overwrote shows as a blank line), and a line break in front, so
    that a pattern starting with ``\\n`` finds every line, the first one included."""
    text = strip_ansi(text)
    return "\n" + (text.replace("\r", "\n") if "\r" in text else text)


def _block_lines(block: str) -> list[str]:
    """The visible lines of one block of text (see ``iter_lines``)."""
    block = strip_ansi(block)
    if "\r" not in block:
        return block.split("\n")
    lines: list[str] = []
    for line in block.split("\n"):
        if "\r" in line:
            lines.extend(line.rstrip("\r").split("\r"))
        else:
            lines.append(line)
    return lines


def iter_lines(text: str, chunk_size: int = _CHUNK) -> Iterator[str]:
    """Yield the visible lines of ``text`` without holding a full split copy in memory.

    Lines are split on ``\\n`` only (never on the Unicode separators ``str.splitlines``
    honours, which can occur inside test names). ANSI sequences are removed. A line that
    carries carriage returns (progress bars, CRLF endings) yields each ``\\r``-separated
    segment as its own line, so that text overwritten on a terminal is still seen.
    """
    if len(text) <= chunk_size:  # most logs: one block, split at once
        return iter(_block_lines(text) if text else ())
    return _chunked_lines(text, chunk_size)


def _chunked_lines(text: str, chunk_size: int) -> Iterator[str]:
    size = len(text)
    start = 0
    while start < size:
        cut = min(start + chunk_size, size)
        end = text.find("\n", cut) if cut < size else -1
        if end == -1:
            end = size
        yield from _block_lines(text[start:end])
        start = end + 1


def split_lines(text: str, start: int = 0, chunk_size: int = _CHUNK) -> Iterator[str]:
    """The lines of ``text[start:]``, text already made visible (``visible_text``), split
    on ``\\n`` a block of about ``chunk_size`` at a time (never a full split copy of a
    long log)."""
    if len(text) - start <= chunk_size:  # most logs: split at once
        return iter(text[start:].split("\n"))
    return _chunked_split(text, start, chunk_size)


def _chunked_split(text: str, start: int, chunk_size: int) -> Iterator[str]:
    for block_start, block_end in line_blocks(text, start, len(text), chunk_size):
        # (a block after the first starts with the line break that ends the line before)
        yield from text[block_start + (block_start != start) : block_end].split("\n")


def line_blocks(
    text: str, start: int, end: int, block_size: int = _CHUNK
) -> Iterator[tuple[int, int]]:
    """``text[start:end]`` cut into spans of about ``block_size`` characters, each cut at a
    line break (which starts the next span), for line patterns that start with the line
    break before their line: they find in the spans what they find in the whole."""
    block_size = max(block_size, 1)  # (a span always moves past its first line break)
    while end - start > block_size:
        cut = text.find("\n", start + block_size, end)
        if cut < 0:
            break
        yield start, cut
        start = cut
    yield start, end


def leading_spaces(line: str) -> int:
    """Number of leading spaces (tabs count as one) of ``line``."""
    return len(line) - len(line.lstrip(" \t"))
