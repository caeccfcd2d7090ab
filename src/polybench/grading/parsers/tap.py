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
with subtests is read line by line by ``_TapState.feed``; as node:test prints them, most
of its lines are read in one pass of a line pattern (``_read_regular``) by the same
rules, and ``feed`` takes over, from the state that pass left, at the first line that
needs more of it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import islice
from operator import itemgetter

from polybench.grading.parsers._text import TwoWayPattern, split_lines, visible_text
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


_BARE_DIRECTIVES = (" # SKIP", " # TODO")


def _status(failed: bool, directive: re.Match[str] | None) -> TestStatus:
    """A test line's status: by ``ok``/``not ok`` and its directive (``_DIRECTIVE``)."""
    kind = directive.group(1).lower() if directive else ""
    if kind == "skip":
        return SKIPPED
    if kind == "todo" and failed:
        return XFAIL
    return FAILED if failed else PASSED


def _described(failed: bool, description: str) -> tuple[str, TestStatus]:
    """The id (``tap``) and status of a test line with ``description``."""
    if description.endswith(_BARE_DIRECTIVES) and description.count("#") == 1:
        # "name # SKIP" or "name # TODO" (as node:test prints them): read as below,
        # without the pattern (the directive is the only "#")
        name = _description_name(description[:-7])
        if "\\" in name:
            name = _unescape(name)
        if description[-4] == "S":
            return name, SKIPPED
        return name, XFAIL if failed else PASSED
    directive = _DIRECTIVE.search(description) if "#" in description else None
    if directive is None:
        return _unescape(_description_name(description)), FAILED if failed else PASSED
    name = _description_name(description[: directive.start()])
    if not name:
        name = directive.group(2).strip()
    return _unescape(name), _status(failed, directive)


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
        if self.raw:
            directive = _DIRECTIVE.search(description) if "#" in description else None
            return line[len("not ok ") if failed else len("ok ") :], _status(failed, directive)
        return _described(failed, description)

    def _test_line(
        self, line: str, indent: int, groups: tuple[str | None, str | None, str]
    ) -> bool:
        """Read a test line; False if it was ignored before its number was taken."""
        level = self.levels.get(indent)
        if level is None or (self.raw and indent != 0):
            return False
        negated, digits, description = groups
        if self.raw:
            test_id, status = self._identify(line, negated is not None, description)
        else:
            test_id, status = _entry(negated, description)
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
    result = ParseResult(official_passing=_OFFICIAL_PASSING, official_failing=_OFFICIAL_FAILING)
    if "Subtest" not in text:
        flat = _TapState(raw=raw, result=result)
        _read_flat(flat, text)
        return _finish(flat)
    text = visible_text(text)
    if raw:
        state: _TapState | None = _TapState(raw=True, result=result)
        read_to = 0
    else:
        state, read_to = _read_regular(result, text)
    if state is None:  # read in one pass
        return result
    _read_lines(state, split_lines(text, read_to + 1))
    return _finish(state)


def _read_lines(state: _TapState, lines: Iterator[str]) -> None:
    """Feed ``lines`` to ``state`` one by one."""
    feed = state.feed
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


# The lines of a stream with subtests that change what ``feed`` reads, for
# ``_read_regular``; the others (blank lines, comments, output) only settle a subtest
# announced just before them, which the subtest's own match says. A match is one line,
# or a subtest's line with its own test line right after it (a leaf, as node:test
# prints them), and a YAML block two spaces deeper right after a line ("---", lines at
# least that deep, and "..." at the block's own indent: with no other "..." in it, the
# block ``feed`` would skip). Groups: the indent; "#" for a leaf; for a test line in the
# form ``feed`` reads without its pattern ("ok N " or "not ok N "), "n" if negated and
# the number; for a subtest alone, "#", the indent of the next line that is not blank
# and the first letter of that line if it is a test line in that form; the rest of the
# line; the YAML block. Patterns never cross a line where ``feed`` reads one.
_REGULAR_LINES = re.compile(
    r"\n([ \t]*+)(?=[-#onT1B]|[^\S \t\n])"  # at once past lines that start otherwise
    r"(?:(?:(#)[^\S\n]*+Subtest(?::|[^\S\n])[^\n]*+\n\1(?=(?:not )?ok [0-9]++ ))?"
    r"(?:(n)ot )?ok ([0-9]++) "
    r"|(?=(#)[^\S\n]*+Subtest(?::|[^\S\n])[^\n]*+(?:\n[ \t]*+(?=\n|\Z))*+\n?"
    r"([ \t]*+)((?=(?:not )?ok [0-9]++ )[no])?)"
    r"|(?=#[^\S\n]*+fail|(?:not )?ok(?=\s|\Z)|TAP version |1\.\.|Bail out!|---|[^\S \t\n]))"
    r"([^\n]*+)"
    r"(\n\1  ---[ \t]*+(?:\n\1  [^\n]*+)*?\n\1  \.\.\.[ \t]*+(?=\n|\Z))?"
)


def _read_regular(result: ParseResult, text: str) -> tuple[_TapState | None, int]:
    """Read a stream with subtests (``visible_text``) into ``result`` as ``feed`` would,
    in one pass over ``_REGULAR_LINES`` with the numbering kept in plain ints and sets;
    None when it read it all.

    It stops at the first line that needs more of ``feed`` (a test line of another form,
    a YAML block not skipped as the pattern did or that ``feed`` would not skip, unusual
    white space in front of a line), and returns the state ``feed`` would be in after the
    lines before and where the lines left to read start (the line break in front). Ids
    only (``tap``)."""
    last = {0: 0}  # the last number of each level (by indent)
    planned: set[int] = set()  # levels that printed a plan
    waiting: dict[int, tuple[int, str, TestStatus]] = {}  # a number jumping ahead, held
    announced: int | None = None  # a subtest whose next line is not read yet
    own_test_next = False  # ... and that line is its own test line
    after_test: int | None = None  # the indent of an accepted test line with no YAML
    rejected = 0
    entries: list[tuple[str, TestStatus]] = []
    failed: int | None = None  # the failures the stream's "# fail N" lines count
    bail_outs: list[str] = []
    stop = -1  # the match before which (or, with ``stop_in_yaml``, in whose YAML) to stop
    stop_in_yaml = False
    for index, token in enumerate(_REGULAR_LINES.findall(text)):
        prefix, leaf, negated, digits, subtest, next_prefix, next_test, rest, yaml = token
        indent = len(prefix)
        if digits:  # a test line
            if yaml and yaml.count("...") != 1:
                stop = index  # a YAML line holds "...": it may end the block
                break
            if leaf:  # its subtest line first: it announces the line that follows
                if announced is not None:
                    _open_level(last, planned, waiting, announced + 4)
                if len(last) > 1 and max(last) > indent:
                    _close_deeper(last, planned, waiting, entries, indent)
                if indent not in last:
                    last[indent] = 0
                announced, own_test_next = indent, True
            level = last.get(indent)
            if (
                level is not None
                and not waiting
                and int(digits) == level + 1
                and (announced is None or (own_test_next and announced == indent))
            ):
                # The next test of its level, no subtest left to settle (most lines).
                announced = None
                if len(last) > 1 and max(last) > indent:
                    _close_deeper(last, planned, waiting, entries, indent)
                last[indent] = level + 1
                entry = _entry(negated, rest)
                if entry[0]:
                    entries.append(entry)
                after_test = None if yaml else indent
                continue
            own = announced if own_test_next else None
            if announced is not None:
                if not own_test_next:
                    _open_level(last, planned, waiting, announced + 4)
                announced = None
            level = last.get(indent)
            if level is not None:
                number = int(digits)
                held = waiting.pop(indent, None) if waiting else None
                if held is not None:
                    if number == level + 1:
                        rejected += 1  # the jump was printed by a test
                    else:
                        level = last[indent] = held[0]
                        entries.append(held[1:])
                if number > level or (number == 1 and indent in planned):
                    if number <= level:  # a new stream at this level
                        level = 0
                        planned.discard(indent)
                    if len(last) > 1 and max(last) > indent:
                        _close_deeper(last, planned, waiting, entries, indent)
                    entry = _entry(negated, rest)
                    if number > level + 1:  # held until the next line of the level
                        if entry[0]:
                            waiting[indent] = (number, *entry)
                    else:
                        last[indent] = number
                        if entry[0]:
                            entries.append(entry)
                    after_test = None if yaml else indent
                    continue
                rejected += 1
            # The line is not read.
            if own is not None:
                _open_level(last, planned, waiting, own + 4)
            after_test = None
            if yaml:
                stop, stop_in_yaml = index, True  # ``feed`` reads its lines as lines
                break
            continue
        first = rest[0]
        if yaml or first.isspace() or first in "on" or (first == "-" and rest.strip() == "---"):
            # A YAML block after a line that opens none, or a line that may open one or
            # be a test line of another form.
            stop = index
            break
        if announced is not None:
            _open_level(last, planned, waiting, announced + 4)
            announced = None
        after_test = None
        if subtest:
            if max(last) > indent:
                _close_deeper(last, planned, waiting, entries, indent)
            if indent not in last:
                last[indent] = 0
            announced = indent
            own_test_next = bool(next_test) and len(next_prefix) == indent
        elif first == "#":
            if indent == 0 and (count := _FAIL_COUNT.match(rest)) is not None:
                failed = int(count.group(1)) + (failed or 0)
        elif first == "1":
            if indent in last and _PLAN.match(rest):
                if indent in waiting:
                    held = waiting.pop(indent)
                    last[indent] = held[0]
                    entries.append(held[1:])
                planned.add(indent)
        elif first == "T":
            if indent == 0 and _VERSION.match(rest):  # a new stream
                if waiting:
                    entries += [waiting[key][1:] for key in last if key in waiting]
                last, planned, waiting = {0: 0}, set(), {}
        elif first == "B" and indent == 0 and rest.startswith("Bail out!"):
            bail_outs.append(f"TAP bail out: {rest[9:].strip()}")
    if stop < 0 and waiting:  # the end of the stream: every line held is accepted
        entries += [waiting[key][1:] for key in last if key in waiting]
    result.add_all(entries)
    if failed is not None:
        result.report(Tally(failed=failed))
    result.notes += bail_outs
    if stop < 0:
        if rejected:
            result.notes.append(_rejected_note(rejected))
        return None, len(text)
    state = _TapState(raw=False, result=result, rejected=rejected, announced=announced)
    state.last_test_indent = after_test
    levels = state.levels
    for key, number in last.items():
        level_state = levels[key] = _Level()
        level_state.last = number
        level_state.plan_seen = key in planned
        level_state.tentative = waiting.get(key)
    if stop_in_yaml:
        for match in islice(_REGULAR_LINES.finditer(text), stop, stop + 1):
            return state, match.start(9)
    elif stop == 0:
        return state, 0
    else:
        for match in islice(_REGULAR_LINES.finditer(text), stop - 1, stop):
            return state, match.end()
    raise AssertionError("unreachable: the match was found before")


def _entry(negated: str | None, rest: str) -> tuple[str, TestStatus]:
    """The id (``tap``) and status of a test line, negated or not, with ``rest`` after its
    number (its description)."""
    if "#" in rest or "\\" in rest:  # a directive, or an escape
        return _described(bool(negated), rest)
    test_id = rest.strip()
    if test_id.startswith("- "):
        test_id = test_id[2:]
    elif test_id == "-":
        test_id = ""
    return test_id, FAILED if negated else PASSED


def _close_deeper(
    last: dict[int, int],
    planned: set[int],
    waiting: dict[int, tuple[int, str, TestStatus]],
    entries: list[tuple[str, TestStatus]],
    indent: int,
) -> None:
    """``_TapState.close_deeper`` for ``_read_regular``'s levels."""
    for deeper in [key for key in last if key > indent]:
        del last[deeper]
        planned.discard(deeper)
        if deeper in waiting:
            entries.append(waiting.pop(deeper)[1:])


def _open_level(
    last: dict[int, int],
    planned: set[int],
    waiting: dict[int, tuple[int, str, TestStatus]],
    indent: int,
) -> None:
    """A new level at ``indent`` for ``_read_regular`` (what was there is dropped)."""
    last[indent] = 0
    planned.discard(indent)
    waiting.pop(indent, None)


def _finish(state: _TapState) -> ParseResult:
    state.finish()
    if state.rejected:
        state.result.notes.append(_rejected_note(state.rejected))
    return state.result


def _rejected_note(rejected: int) -> str:
    return f"ignored {rejected} TAP-looking lines out of sequence (printed by tests?)"


@register("tap")
def parse_tap(text: str) -> ParseResult:
    """TAP: id is the test description (text after ``ok N - ``), directives removed."""
    return _parse_tap(text, raw=False)


@register("tap_raw")
def parse_tap_raw(text: str) -> ParseResult:
    """TAP, official three.js/svelte ids: the whole text after ``ok ``/``not ok ``."""
    return _parse_tap(text, raw=True)
