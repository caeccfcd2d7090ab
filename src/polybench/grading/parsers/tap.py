"""TAP (Test Anything Protocol) streams: node:test, mocha ``--reporter tap``, QUnit, tape.

Two id flavours:

* ``tap``: the test description, i.e. the text after ``ok N - `` / ``not ok N - `` (the
  dash is optional, as in mocha's TAP), with the directive (``# SKIP``/``# TODO``) removed
  and TAP escapes (``\\#``, ``\\\\``, ``\\n``...) undone. Nested subtests (node:test) give
  their own description too.
* ``tap_raw``: the whole text after ``ok `` / ``not ok `` on a top-level line, TAP number
  and directive included (``285 Core > Object3D > set``, ``445 # TODO Loaders > load``),
  which is how the official harness names three.js/svelte TAP tests.

Statuses: ``ok`` passed, ``not ok`` failed, ``# SKIP`` skipped, ``not ok # TODO`` xfail
(the official harness lists the latter as failed and skips as passed; ids are the same).
Every accepted test line is a test of its own (an occurrence), even when its description
repeats another's.

Lines that only look like TAP are ignored: YAML diagnostic blocks are skipped, indented
lines count only inside a ``# Subtest:`` announced by the stream, and a test number that
breaks the sequence of its level is rejected: a number already used (a test printing
``ok 1 - foo`` mid-run) unless a new stream has started (``TAP version``, or after a
plan), and a number jumping ahead when the very next line carries the expected number.

How: a stream without subtests is read from the whole text at once (``_read_flat``). One
with subtests is read line by line (``_tap_lines.TapState.feed``, where the rules above
live); as node:test prints them, most of its lines are read in one pass of a line
pattern (``_tap_one_pass.read_regular``) by the same rules, and ``feed`` takes over,
from the state that pass left, at the first line that needs more of it.
"""

from __future__ import annotations

import re
from operator import itemgetter

from polybench.grading.parsers._tap_lines import (
    TAP_OFFICIAL_FAILING,
    TAP_OFFICIAL_PASSING,
    TapState,
    finish_reading,
    read_lines,
)
from polybench.grading.parsers._tap_one_pass import read_regular
from polybench.grading.parsers._text import TwoWayPattern, split_lines, visible_text
from polybench.grading.parsers.base import FAILED, PASSED, ParseResult, register

# A stream without subtests, read from the whole text at once: only lines that start in
# column 0 can be tests there (a YAML block never hides one), and of the other lines only
# a version, a plan, a fail count and a bail out change anything. Patterns never cross a
# line (``{L}`` is ``\s`` within one).
# Groups: negation, the number (if any), the description; for raw ids also the text after
# ``ok`` (negation, that text, number, description). No part gives back what it matched
# (possessive): the character after a shorter one could never be what follows.
_TOP_TEST_LINES = TwoWayPattern(
    r"\n(not )?ok(?=[{L}]|$)(?:[{L}]++(\d++)(?=[{L}]|$))?([^\n]*+)", re.MULTILINE
)
_TOP_RAW_TEST_LINES = TwoWayPattern(
    r"\n(not )?ok(?=[{L}]|$)((?:[{L}]++(\d++)(?=[{L}]|$))?([^\n]*+))", re.MULTILINE
)
_LINE_STATUS = {"": PASSED, "not ": FAILED}


def _raw_line(test: tuple[str, ...]) -> str:
    """The test line a ``_TOP_RAW_TEST_LINES`` match was read from (only raw ids need it:
    otherwise the line is never looked at)."""
    return ("not ok" if test[0] else "ok") + test[1]


_TOP_OTHER_LINES = TwoWayPattern(
    r"\n((?:(?![ \t])[{L}]+)?TAP version \d+[{L}]*"
    r"|(?:(?![ \t])[{L}]+)?1\.\.\d+[{L}]*(?:#[^\n]*)?"
    r"|#[{L}]*fail(?:ed)?[{L}]+\d+[{L}]*"
    r"|Bail out![^\n]*)$",
    re.MULTILINE,
)


def _read_flat(state: TapState, text: str) -> None:
    """Read a stream without subtests (see ``_TOP_TEST_LINES``)."""
    text = visible_text(text)
    pos = 0
    others = _TOP_OTHER_LINES.of(text)
    lines = (_TOP_RAW_TEST_LINES if state.raw else _TOP_TEST_LINES).of(text)
    for other in others.finditer(text):
        tests = lines.findall(text, pos, other.start())
        if tests:
            _top_level_run(state, tests)
        state.feed(other.group(1))
        pos = other.end()
    tests = lines.findall(text, pos)
    if tests:
        _top_level_run(state, tests)


def _top_level_run(state: TapState, tests: list[tuple[str, ...]]) -> None:
    """Consecutive top-level test lines of a stream without subtests, as
    ``_TOP_TEST_LINES`` reads them (negation, number, description) or, for raw ids,
    ``_TOP_RAW_TEST_LINES`` (negation, the text after ``ok``, number, description).
    When they are numbered in sequence they are all accepted at once (a line with a
    directive or an escape is named as usual), else they are read one by one."""
    raw = state.raw
    number, text = (2, 3) if raw else (1, 2)
    level = state.levels[0]
    numbers = list(map(itemgetter(number), tests))
    first = level.last + 1
    if (
        level.tentative is not None
        or "" in numbers
        or list(map(int, numbers)) != list(range(first, first + len(numbers)))
    ):
        for test in tests:
            negated, digits, description = test[0], test[number], test[text]
            line = _raw_line(test) if raw else ""
            state.test_line(line, 0, (negated or None, digits or None, description))
        return
    statuses = list(map(_LINE_STATUS.__getitem__, map(itemgetter(0), tests)))
    if raw:
        ids = [test[1][1:] for test in tests]
        odd = [index for index, test in enumerate(tests) if "#" in test[3]]
    else:
        ids = [test[2].strip().removeprefix("- ") for test in tests]
        if "-" in ids:
            ids = ["" if test_id == "-" else test_id for test_id in ids]
        odd = [index for index, test in enumerate(tests) if "#" in test[2] or "\\" in test[2]]
    for index in odd:  # a directive, or an escape: named line by line
        test = tests[index]
        line = _raw_line(test) if raw else ""
        ids[index], statuses[index] = state.identify(line, bool(test[0]), test[text])
    entries = list(zip(ids, statuses, strict=True))
    if "" in ids:
        entries = [entry for entry in entries if entry[0]]
    state.result.add_all(entries)
    level.last = first + len(numbers) - 1
    state.last_test_indent = 0


def _parse_tap(text: str, raw: bool) -> ParseResult:
    result = ParseResult(
        official_passing=TAP_OFFICIAL_PASSING, official_failing=TAP_OFFICIAL_FAILING
    )
    if "Subtest" not in text:
        flat = TapState(raw=raw, result=result)
        _read_flat(flat, text)
        return finish_reading(flat)
    text = visible_text(text)
    if raw:
        state: TapState | None = TapState(raw=True, result=result)
        read_to = 0
    else:
        state, read_to = read_regular(result, text)
    if state is None:  # read in one pass
        return result
    read_lines(state, split_lines(text, read_to + 1))
    return finish_reading(state)


@register("tap")
def parse_tap(text: str) -> ParseResult:
    """TAP: id is the test description (text after ``ok N - ``), directives removed."""
    return _parse_tap(text, raw=False)


@register("tap_raw")
def parse_tap_raw(text: str) -> ParseResult:
    """TAP, official three.js/svelte ids: the whole text after ``ok ``/``not ok ``."""
    return _parse_tap(text, raw=True)
