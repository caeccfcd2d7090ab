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
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from operator import itemgetter

from polybench.grading.parsers._text import TwoWayPattern, iter_lines, visible_text
from polybench.grading.parsers.base import (
    ERRORED,
    FAILED,
    PASSED,
    SKIPPED,
    XFAIL,
    ParseResult,
    Tally,
    TestStatus,
    register,
)

# ok / not ok, the test number if any, and the description (directive included).
_TEST_LINE = re.compile(r"(not )?ok(?=\s|$)(?:\s+(\d+)(?=\s|$))?(.*)")
# A '#' at the start or after white space (so never escaped); the lookbehind follows the
# '#' so that the pattern starts with it, which lets the search skip to each '#' at once.
_DIRECTIVE = re.compile(r"#(?<!\S#)\s*(skip|todo)\w*\s*(.*)$", re.IGNORECASE)
_PLAN = re.compile(r"\s*1\.\.\d+\s*(?:#.*)?$")
_VERSION = re.compile(r"\s*TAP version \d+\s*$")
_SUBTEST = re.compile(r"#\s*Subtest(?::|\s)")
_FAIL_COUNT = re.compile(r"#\s*fail(?:ed)?\s+(\d+)\s*$")
_UNESCAPE = re.compile(r"\\([\\#nrtbf])")
_ESCAPES = {"\\": "\\", "#": "#", "n": "\n", "r": "\r", "t": "\t", "b": "\b", "f": "\f"}
# As the official harness reads TAP: by ``ok``/``not ok`` alone.
_OFFICIAL_PASSING = frozenset({PASSED, SKIPPED})
_OFFICIAL_FAILING = frozenset({FAILED, ERRORED, XFAIL})


def _unescape(text: str) -> str:
    if "\\" not in text:
        return text
    return _UNESCAPE.sub(lambda match: _ESCAPES[match.group(1)], text)


class _Level:
    """The numbering of one level of subtests (the class attributes are a new level's:
    a level is made for each subtest announced, most of them never numbered)."""

    last = 0
    plan_seen = False
    # A line whose number jumps ahead waits here: if the next line carries the number
    # that was expected, the jump was printed by a test and is dropped.
    tentative: tuple[int, str, TestStatus] | None = None


def _description_name(description: str) -> str:
    """The test's name in a description (directive removed): without the dash that
    may separate it from the number, escapes not yet undone."""
    name = description.strip()
    if name.startswith("- "):
        return name[2:]
    return "" if name == "-" else name


@dataclass
class _TapState:
    raw: bool
    result: ParseResult = field(default_factory=ParseResult)
    levels: dict[int, _Level] = field(default_factory=lambda: {0: _Level()})
    yaml_indent: int | None = None
    last_test_indent: int | None = None
    rejected: int = 0
    # The indent of a "# Subtest:" line whose subtests' level is not made yet: the next
    # line makes it, unless that line is the subtest's own test line (a leaf), which
    # would close it at once.
    announced: int | None = None

    def commit(self, level: _Level) -> None:
        """Accept the line waiting at ``level``, if any."""
        if level.tentative is not None:
            number, test_id, status = level.tentative
            level.tentative = None
            level.last = number
            self.result.add(test_id, status)

    def reset(self) -> None:
        """A new TAP stream starts: numbering restarts."""
        for level in self.levels.values():
            self.commit(level)
        self.levels = {0: _Level()}
        self.yaml_indent = None
        self.announced = None

    def close_deeper(self, indent: int) -> None:
        """Subtests deeper than ``indent`` are over (callers first check that there are
        some: ``max(levels) > indent``)."""
        levels = self.levels
        for key in [key for key in levels if key > indent]:
            level = levels.pop(key)
            if level.tentative is not None:
                self.commit(level)

    def feed(self, line: str) -> None:
        """Read one line of the stream."""
        body = line.lstrip(" \t")
        if not body:
            return
        indent = len(line) - len(body)
        first = body[0]
        announced = self.announced
        if announced is not None:
            self.announced = None
            if indent != announced or first not in "on":
                self.levels[announced + 4] = _Level()
                announced = None
        # Each kind of line starts with its own character (white space aside): comments
        # and subtests first (most lines of a stream with subtests), then test lines.
        if first == "#":
            self.last_test_indent = None
            if body.startswith("# Subtest: ") or ("Subtest" in body and _SUBTEST.match(body)):
                levels = self.levels
                if max(levels) > indent:
                    self.close_deeper(indent)
                if indent not in levels:
                    levels[indent] = _Level()
                self.announced = indent
            elif indent == 0 and "fail" in body and (count := _FAIL_COUNT.match(body)) is not None:
                self.result.report(Tally(failed=int(count.group(1))))
            return
        # Only a line starting with '-' or white space can be blank or a "---".
        if first == "-" or first.isspace():
            stripped = body.strip()
            if not stripped:
                return
            if (
                stripped == "---"
                and self.last_test_indent is not None
                and indent > self.last_test_indent
            ):
                self.yaml_indent = indent
                self.last_test_indent = None
                return
        self.last_test_indent = None
        if first in "on":  # the common case: only a test line can start so
            # "ok N - ..." is read without the pattern, as it would read it.
            if body.startswith("ok "):
                negated, rest = None, body[3:]
            elif body.startswith("not ok "):
                negated, rest = "not ", body[7:]
            else:
                negated, rest = None, ""
            digits, space, description = rest.partition(" ")
            if space and digits.isdigit() and digits.isascii():
                read = self._test_line(line, indent, (negated, digits, " " + description))
            elif (match := _TEST_LINE.match(body)) is not None:
                read = self._test_line(line, indent, match.groups())  # type: ignore[arg-type]
            else:
                read = False
            if announced is not None and not read:
                self.levels[announced + 4] = _Level()
            return
        if indent == 0 and (first == "T" or first.isspace()) and _VERSION.match(line):
            self.reset()
            return
        if first == "1" or first.isspace():
            if _PLAN.match(body):
                level = self.levels.get(indent)
                if level is not None:
                    self.commit(level)
                    level.plan_seen = True
            return
        if first == "B" and indent == 0 and body.startswith("Bail out!"):
            self.result.notes.append(f"TAP bail out: {body[9:].strip()}")

    def _identify(self, line: str, failed: bool, description: str) -> tuple[str, TestStatus]:
        directive = _DIRECTIVE.search(description) if "#" in description else None
        kind = directive.group(1).lower() if directive else ""
        status = FAILED if failed else PASSED
        if kind == "skip":
            status = SKIPPED
        elif kind == "todo" and failed:
            status = XFAIL
        if self.raw:
            return line[len("not ok ") if failed else len("ok ") :], status
        name = _description_name(description[: directive.start()] if directive else description)
        if not name and directive:
            name = directive.group(2).strip()
        return _unescape(name), status

    def _test_line(
        self, line: str, indent: int, groups: tuple[str | None, str | None, str]
    ) -> bool:
        """Read a test line; False if it was ignored before its number was taken."""
        level = self.levels.get(indent)
        if level is None or (self.raw and indent != 0):
            return False
        negated, digits, description = groups
        failed = negated is not None
        if "#" in description:  # a directive, or an escaped '#'
            test_id, status = self._identify(line, failed, description)
        elif self.raw:
            test_id = line[7:] if failed else line[3:]
            status = FAILED if failed else PASSED
        else:  # what ``_identify`` gives for a description without a directive
            test_id = description.strip()  # ``_description_name``, inline
            if test_id.startswith("- "):
                test_id = test_id[2:]
            elif test_id == "-":
                test_id = ""
            if "\\" in test_id:
                test_id = _unescape(test_id)
            status = FAILED if failed else PASSED
        number = int(digits) if digits is not None else None
        if level.tentative is not None:
            if number == level.last + 1:
                level.tentative = None  # the jump was printed by a test
                self.rejected += 1
            else:
                self.commit(level)
        if number is None:
            number = level.last + 1
        elif number <= level.last:
            if number == 1 and level.plan_seen:
                level.last, level.plan_seen = 0, False
            else:
                self.rejected += 1
                return False
        levels = self.levels
        if len(levels) > 1 and max(levels) > indent:
            self.close_deeper(indent)
        self.last_test_indent = indent
        if number > level.last + 1:
            level.tentative = (number, test_id, status) if test_id else None
            return True
        level.last = number
        if test_id:
            self.result.add(test_id, status)
        return True

    def top_level_run(self, tests: list[tuple[str, ...]]) -> None:
        """Consecutive top-level test lines of a stream without subtests, as
        ``_TOP_TEST_LINES`` reads them (negation, number, description) or, for raw ids,
        ``_TOP_RAW_TEST_LINES`` (negation, the text after ``ok``, number, description).
        When they are numbered in sequence they are all accepted at once (a line with a
        directive or an escape is named as usual), else they are read one by one."""
        raw = self.raw
        number, text = (2, 3) if raw else (1, 2)
        level = self.levels[0]
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
                self._test_line(line, 0, (negated or None, digits or None, description))
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
            ids[index], statuses[index] = self._identify(line, bool(test[0]), test[text])
        entries = list(zip(ids, statuses, strict=True))
        if "" in ids:
            entries = [entry for entry in entries if entry[0]]
        self.result.add_all(entries)
        level.last = first + len(numbers) - 1
        self.last_test_indent = 0

    def finish(self) -> None:
        """End of the log: accept every line still waiting."""
        for level in self.levels.values():
            self.commit(level)


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


def _read_flat(state: _TapState, text: str) -> None:
    """Read a stream without subtests (see ``_TOP_TEST_LINES``)."""
    text = visible_text(text)
    pos = 0
    others = _TOP_OTHER_LINES.of(text)
    lines = (_TOP_RAW_TEST_LINES if state.raw else _TOP_TEST_LINES).of(text)
    for other in others.finditer(text):
        tests = lines.findall(text, pos, other.start())
        if tests:
            state.top_level_run(tests)
        state.feed(other.group(1))
        pos = other.end()
    tests = lines.findall(text, pos)
    if tests:
        state.top_level_run(tests)


def _parse_tap(text: str, raw: bool) -> ParseResult:
    state = _TapState(raw=raw)
    state.result.official_passing = _OFFICIAL_PASSING
    state.result.official_failing = _OFFICIAL_FAILING
    if "Subtest" not in text:
        _read_flat(state, text)
        return _finish(state)
    feed = state.feed
    lines = iter_lines(text)
    for line in lines:
        feed(line)
        yaml_indent = state.yaml_indent
        if yaml_indent is None:
            continue
        # The line opened a YAML diagnostic block (most lines of a log with failures): its
        # lines are read here, by the same rules as ``feed``, without a call per line. A
        # line indented at least as far as the block's "---" (its spaces) and with no "..."
        # in it is the block's own, whatever else it holds. The line that ends a block
        # without "..." cannot open another (only a "---" right after a test line does).
        inside = " " * yaml_indent
        for line in lines:
            if line.startswith(inside) and "..." not in line:
                continue
            indent = len(line) - len(line.lstrip(" \t"))
            if indent > yaml_indent:
                continue
            stripped = line.strip()
            if stripped == "...":
                state.yaml_indent = None
                break
            if stripped and indent < yaml_indent:
                state.yaml_indent = None
                feed(line)
                break
    return _finish(state)


def _finish(state: _TapState) -> ParseResult:
    state.finish()
    if state.rejected:
        state.result.notes.append(
            f"ignored {state.rejected} TAP-looking lines out of sequence (printed by tests?)"
        )
    return state.result


@register("tap")
def parse_tap(text: str) -> ParseResult:
    """TAP: id is the test description (text after ``ok N - ``), directives removed."""
    return _parse_tap(text, raw=False)


@register("tap_raw")
def parse_tap_raw(text: str) -> ParseResult:
    """TAP, official three.js/svelte ids: the whole text after ``ok ``/``not ok ``."""
    return _parse_tap(text, raw=True)
