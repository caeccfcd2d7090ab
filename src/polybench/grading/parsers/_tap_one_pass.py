"""One pass over a TAP stream with subtests, as node:test prints them (see ``tap``)."""

from __future__ import annotations

import re
from itertools import islice

from polybench.grading.parsers._tap_lines import (
    FAIL_COUNT,
    PLAN,
    VERSION,
    Level,
    TapState,
    line_entry,
    rejected_note,
)
from polybench.grading.parsers.base import ParseResult, Tally, TestStatus

# The lines of a stream with subtests that change what ``feed`` reads, for
# ``read_regular``; the others (blank lines, comments, output) only settle a subtest
# announced just before them, which the subtest's own match says. A match is one line,
# or a subtest's line with its own test line right after it (a leaf, as node:test
# prints them), and a YAML block two spaces deeper right after a line ("---", lines at
# least that deep, and "..." at the block's own indent: with no other "..." in it, the
# block ``feed`` would skip). Groups: the indent; "#" for a leaf; for a test line in the
# form ``feed`` reads without its pattern ("ok N " or "not ok N "), "n" if negated and
# the number; for a subtest alone, "#", the indent of the next line that is not blank
# and the first letter of that line if it is a test line in that form; the rest of the
# line; the YAML block. Patterns never cross a line where ``feed`` reads one. A block
# holds no "---" line: the search for a block's end stops at the next one, so that no
# line is searched through for two blocks (subtests nested ever deeper, each with a
# "---" and no "...", would otherwise be searched to the end of the log, one after the
# other), and a block with one in it is read by ``feed``.
REGULAR_LINES = re.compile(
    r"\n([ \t]*+)(?=[-#onT1B]|[^\S \t\n])"  # at once past lines that start otherwise
    r"(?:(?:(#)[^\S\n]*+Subtest(?::|[^\S\n])[^\n]*+\n\1(?=(?:not )?ok [0-9]++ ))?"
    r"(?:(n)ot )?ok ([0-9]++) "
    r"|(?=(#)[^\S\n]*+Subtest(?::|[^\S\n])[^\n]*+(?:\n[ \t]*+(?=\n|\Z))*+\n?"
    r"([ \t]*+)((?=(?:not )?ok [0-9]++ )[no])?)"
    r"|(?=#[^\S\n]*+fail|(?:not )?ok(?=\s|\Z)|TAP version |1\.\.|Bail out!|---|[^\S \t\n]))"
    r"([^\n]*+)"
    r"(\n\1  ---[ \t]*+(?:\n\1  (?![ \t]*+---)[^\n]*+)*?\n\1  \.\.\.[ \t]*+(?=\n|\Z))?"
)


def read_regular(result: ParseResult, text: str) -> tuple[TapState | None, int]:
    """Read a stream with subtests (``visible_text``) into ``result`` as ``feed`` would,
    in one pass over ``REGULAR_LINES`` with the numbering kept in plain ints and sets;
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
    for index, token in enumerate(REGULAR_LINES.findall(text)):
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
                # The next test of its level, no subtest left to settle (most lines; a
                # leaf's subtest line closed the deeper levels already).
                announced = None
                if not leaf and len(last) > 1 and max(last) > indent:
                    _close_deeper(last, planned, waiting, entries, indent)
                last[indent] = level + 1
                entry = line_entry(negated, rest)
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
                    entry = line_entry(negated, rest)
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
            if indent == 0 and (count := FAIL_COUNT.match(rest)) is not None:
                failed = int(count.group(1)) + (failed or 0)
        elif first == "1":
            if indent in last and PLAN.match(rest):
                if indent in waiting:
                    held = waiting.pop(indent)
                    last[indent] = held[0]
                    entries.append(held[1:])
                planned.add(indent)
        elif first == "T":
            if indent == 0 and VERSION.match(rest):  # a new stream
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
            result.notes.append(rejected_note(rejected))
        return None, len(text)
    state = TapState(raw=False, result=result, rejected=rejected, announced=announced)
    state.last_test_indent = after_test
    levels = state.levels
    for key, number in last.items():
        level_state = levels[key] = Level()
        level_state.last = number
        level_state.plan_seen = key in planned
        level_state.tentative = waiting.get(key)
    if stop_in_yaml:
        for match in islice(REGULAR_LINES.finditer(text), stop, stop + 1):
            return state, match.start(9)
    elif stop == 0:
        return state, 0
    else:
        for match in islice(REGULAR_LINES.finditer(text), stop - 1, stop):
            return state, match.end()
    raise AssertionError("unreachable: the match was found before")


def _close_deeper(
    last: dict[int, int],
    planned: set[int],
    waiting: dict[int, tuple[int, str, TestStatus]],
    entries: list[tuple[str, TestStatus]],
    indent: int,
) -> None:
    """``TapState.close_deeper`` for ``read_regular``'s levels."""
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
    """A new level at ``indent`` for ``read_regular`` (what was there is dropped)."""
    last[indent] = 0
    planned.discard(indent)
    waiting.pop(indent, None)
