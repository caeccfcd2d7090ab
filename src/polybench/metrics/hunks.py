"""Applying a diff's hunks to a file's text in memory, and where each change lands.

The applier follows what the evaluation's apply chain accepts (``git apply``, then
``patch --fuzz=5``): a hunk is first looked for exactly at the line its header names,
then at the nearest other line where it matches (an offset), then with up to
:data:`MAX_FUZZ` lines of leading and trailing context ignored. Removed lines must
always match. Lines are compared without their line terminator (``\\n`` / ``\\r\\n``),
and lines are split on ``\\n`` only, as git and tree-sitter count them.

Every run of consecutive removed lines is a change span in the old text, and every run of
consecutive added lines a change span in the new text (1-based, inclusive).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

Span = tuple[int, int]
"""First and last line of a change, 1-based and inclusive."""

MAX_FUZZ = 5
CONTEXT, REMOVED, ADDED = " ", "-", "+"


class HunkMismatch(ValueError):
    """A hunk's context or removed lines are not in the file."""


@dataclass(frozen=True)
class HunkLine:
    """One line of a hunk: its tag (`` ``, ``-``, ``+``), text, and whether it ends the file
    without a newline (``\\ No newline at end of file`` follows it)."""

    tag: str
    text: str
    no_newline: bool = False


@dataclass(frozen=True)
class Hunk:
    """A hunk: where its header says it starts in the old text, and its lines."""

    source_start: int
    source_length: int
    lines: tuple[HunkLine, ...]


@dataclass(frozen=True)
class AppliedText:
    """The new text, the change spans in the old and new texts, and the fuzz that was needed."""

    text: str
    removed: tuple[Span, ...]
    added: tuple[Span, ...]
    fuzz: int = 0


def split_lines(text: str) -> list[str]:
    """Lines of ``text`` with their ``\\n`` kept, split on ``\\n`` only (not ``str.splitlines``)."""
    if not text:
        return []
    lines = text.split("\n")
    if lines[-1] == "":
        return [line + "\n" for line in lines[:-1]]
    return [line + "\n" for line in lines[:-1]] + [lines[-1]]


def _key(line: str) -> str:
    return line.rstrip("\r\n")


def hunks_from_unidiff(patched_file: Iterable[Any]) -> list[Hunk]:
    """Convert the hunks of a ``unidiff`` ``PatchedFile``."""
    hunks = []
    for hunk in patched_file:
        lines: list[HunkLine] = []
        for line in hunk:
            tag = line.line_type
            if tag == "\\":
                if lines:
                    last = lines[-1]
                    lines[-1] = HunkLine(last.tag, last.text, True)
                continue
            if tag in (CONTEXT, REMOVED, ADDED):
                lines.append(HunkLine(tag, line.value))
        hunks.append(Hunk(hunk.source_start, hunk.source_length, tuple(lines)))
    return hunks


class _OldText:
    """The old lines with a first-line index for finding where a hunk matches."""

    def __init__(self, text: str) -> None:
        self.lines = split_lines(text)
        self.keys = [_key(line) for line in self.lines]
        self._index: dict[str, list[int]] | None = None

    def matches(self, pos: int, pattern: Sequence[str]) -> bool:
        return self.keys[pos : pos + len(pattern)] == list(pattern)

    def locate(self, pattern: Sequence[str], expected: int, lowest: int) -> int | None:
        """The start nearest ``expected`` (not before ``lowest``) where ``pattern`` matches."""
        highest = len(self.keys) - len(pattern)
        if highest < lowest:
            return None
        if not pattern:
            return min(max(expected, lowest), highest)
        if lowest <= expected <= highest and self.matches(expected, pattern):
            return expected
        if self._index is None:
            self._index = {}
            for number, key in enumerate(self.keys):
                self._index.setdefault(key, []).append(number)
        candidates = [p for p in self._index.get(pattern[0], ()) if lowest <= p <= highest]
        candidates.sort(key=lambda p: (abs(p - expected), p))
        for pos in candidates:
            if self.matches(pos, pattern):
                return pos
        return None


def _edge_context(lines: Sequence[HunkLine]) -> tuple[int, int]:
    leading = 0
    while leading < len(lines) and lines[leading].tag == CONTEXT:
        leading += 1
    if leading == len(lines):
        return leading, 0
    trailing = 0
    while lines[len(lines) - 1 - trailing].tag == CONTEXT:
        trailing += 1
    return leading, trailing


def _place(old: _OldText, hunk: Hunk, expected: int, lowest: int) -> tuple[int, int, int, int]:
    """Where the hunk goes: (position in old lines, lead lines dropped, trail dropped, fuzz)."""
    leading, trailing = _edge_context(hunk.lines)
    tried: set[tuple[int, int]] = set()
    for fuzz in range(MAX_FUZZ + 1):
        lead, trail = min(fuzz, leading), min(fuzz, trailing)
        if (lead, trail) in tried:
            continue
        tried.add((lead, trail))
        body = hunk.lines[lead : len(hunk.lines) - trail]
        pattern = [_key(line.text) for line in body if line.tag != ADDED]
        pos = old.locate(pattern, expected + lead, lowest)
        if pos is not None:
            return pos, lead, trail, fuzz
    raise HunkMismatch("context or removed lines not found")


def _runs(numbers: list[tuple[int, int]]) -> tuple[Span, ...]:
    """Group ``(run id, line)`` pairs into spans, one per run id."""
    spans: dict[int, Span] = {}
    for run, line in numbers:
        first, _ = spans.get(run, (line, line))
        spans[run] = (first, line)
    return tuple(spans.values())


def apply_hunks(old_text: str, hunks: Sequence[Hunk]) -> AppliedText:
    """Apply ``hunks`` in order to ``old_text``; raises :class:`HunkMismatch` naming the hunk."""
    old = _OldText(old_text)
    out: list[str] = []
    cursor = 0
    shift = 0
    worst_fuzz = 0
    removed: list[tuple[int, int]] = []
    added: list[tuple[int, int]] = []
    run = 0
    for number, hunk in enumerate(hunks, start=1):
        stated = hunk.source_start - 1 if hunk.source_length > 0 else hunk.source_start
        try:
            pos, lead, trail, fuzz = _place(old, hunk, max(stated + shift, 0), cursor)
        except HunkMismatch as exc:
            raise HunkMismatch(f"hunk {number} (line {hunk.source_start}): {exc}") from None
        worst_fuzz = max(worst_fuzz, fuzz)
        shift = pos - lead - stated
        out.extend(old.lines[cursor:pos])
        current = pos
        previous_tag = CONTEXT
        for line in hunk.lines[lead : len(hunk.lines) - trail]:
            if line.tag != previous_tag:
                run += 1
                previous_tag = line.tag
            if line.tag == CONTEXT:
                out.append(old.lines[current])
                current += 1
            elif line.tag == REMOVED:
                removed.append((run, current + 1))
                current += 1
            else:
                text = line.text
                if line.no_newline and text.endswith("\n"):
                    text = text[:-1]
                out.append(text)
                added.append((run, len(out)))
        cursor = current
    out.extend(old.lines[cursor:])
    for index in range(len(out) - 1):
        if not out[index].endswith("\n"):
            out[index] += "\n"
    return AppliedText("".join(out), _runs(removed), _runs(added), worst_fuzz)
