"""TAP lines as ``TapState.feed`` reads them, one at a time: the rules of every TAP
reader (see ``tap``): the line patterns, how a test line is named and given its status,
the numbering of each level of subtests, and YAML blocks skipped."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from polybench.grading.parsers.base import (
    ERRORED,
    FAILED,
    PASSED,
    SKIPPED,
    XFAIL,
    ParseResult,
    Tally,
    TestStatus,
)

# ok / not ok, the test number if any, and the description (directive included).
_TEST_LINE = re.compile(r"(not )?ok(?=\s|$)(?:\s+(\d+)(?=\s|$))?(.*)")
# A '#' at the start or after white space (so never escaped); the lookbehind follows the
# '#' so that the pattern starts with it, which lets the search skip to each '#' at once.
_DIRECTIVE = re.compile(r"#(?<!\S#)\s*(skip|todo)\w*\s*(.*)$", re.IGNORECASE)
PLAN = re.compile(r"\s*1\.\.\d+\s*(?:#.*)?$")
VERSION = re.compile(r"\s*TAP version \d+\s*$")
_SUBTEST = re.compile(r"#\s*Subtest(?::|\s)")
FAIL_COUNT = re.compile(r"#\s*fail(?:ed)?\s+(\d+)\s*$")
_UNESCAPE = re.compile(r"\\([\\#nrtbf])")
_ESCAPES = {"\\": "\\", "#": "#", "n": "\n", "r": "\r", "t": "\t", "b": "\b", "f": "\f"}
# As the official harness reads TAP: by ``ok``/``not ok`` alone.
TAP_OFFICIAL_PASSING = frozenset({PASSED, SKIPPED})
TAP_OFFICIAL_FAILING = frozenset({FAILED, ERRORED, XFAIL})


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


def described(failed: bool, description: str) -> tuple[str, TestStatus]:
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


class Level:
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
class TapState:
    raw: bool
    result: ParseResult = field(default_factory=ParseResult)
    levels: dict[int, Level] = field(default_factory=lambda: {0: Level()})
    yaml_indent: int | None = None
    last_test_indent: int | None = None
    rejected: int = 0
    # The indent of a "# Subtest:" line whose subtests' level is not made yet: the next
    # line makes it, unless that line is the subtest's own test line (a leaf), which
    # would close it at once.
    announced: int | None = None

    def commit(self, level: Level) -> None:
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
        self.levels = {0: Level()}
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
                self.levels[announced + 4] = Level()
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
                    levels[indent] = Level()
                self.announced = indent
            elif indent == 0 and "fail" in body and (count := FAIL_COUNT.match(body)) is not None:
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
                read = self.test_line(line, indent, (negated, digits, " " + description))
            elif (match := _TEST_LINE.match(body)) is not None:
                read = self.test_line(line, indent, match.groups())  # type: ignore[arg-type]
            else:
                read = False
            if announced is not None and not read:
                self.levels[announced + 4] = Level()
            return
        if indent == 0 and (first == "T" or first.isspace()) and VERSION.match(line):
            self.reset()
            return
        if first == "1" or first.isspace():
            if PLAN.match(body):
                level = self.levels.get(indent)
                if level is not None:
                    self.commit(level)
                    level.plan_seen = True
            return
        if first == "B" and indent == 0 and body.startswith("Bail out!"):
            self.result.notes.append(f"TAP bail out: {body[9:].strip()}")

    def identify(self, line: str, failed: bool, description: str) -> tuple[str, TestStatus]:
        if self.raw:
            directive = _DIRECTIVE.search(description) if "#" in description else None
            return line[len("not ok ") if failed else len("ok ") :], _status(failed, directive)
        return described(failed, description)

    def test_line(self, line: str, indent: int, groups: tuple[str | None, str | None, str]) -> bool:
        """Read a test line; False if it was ignored before its number was taken."""
        level = self.levels.get(indent)
        if level is None or (self.raw and indent != 0):
            return False
        negated, digits, description = groups
        if self.raw:
            test_id, status = self.identify(line, negated is not None, description)
        else:
            test_id, status = line_entry(negated, description)
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

    def finish(self) -> None:
        """End of the log: accept every line still waiting."""
        for level in self.levels.values():
            self.commit(level)


def line_entry(negated: str | None, rest: str) -> tuple[str, TestStatus]:
    """The id (``tap``) and status of a test line, negated or not, with ``rest`` after its
    number (its description)."""
    if "#" in rest or "\\" in rest:  # a directive, or an escape
        return described(bool(negated), rest)
    test_id = rest.strip()
    if test_id.startswith("- "):
        test_id = test_id[2:]
    elif test_id == "-":
        test_id = ""
    return test_id, FAILED if negated else PASSED


def read_lines(state: TapState, lines: Iterator[str]) -> None:
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


def finish_reading(state: TapState) -> ParseResult:
    state.finish()
    if state.rejected:
        state.result.notes.append(rejected_note(state.rejected))
    return state.result


def rejected_note(rejected: int) -> str:
    return f"ignored {rejected} TAP-looking lines out of sequence (printed by tests?)"
