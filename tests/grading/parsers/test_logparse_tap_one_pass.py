"""TAP streams with subtests: the one-pass reader (``read_regular``) reads what the line
reader (``TapState.feed``) reads, and hands over to it with the same state.

Every test compares the two readers on the same stream: ``parse_tap`` (one pass, then line
by line from where it stopped) against ``feed`` alone over every line.
"""

from __future__ import annotations

import random

import pytest

from polybench.grading.parsers import ParseResult, tap
from polybench.grading.parsers._tap_lines import (
    TAP_OFFICIAL_FAILING,
    TAP_OFFICIAL_PASSING,
    TapState,
    finish_reading,
    read_lines,
)
from polybench.grading.parsers._tap_one_pass import read_regular
from polybench.grading.parsers._text import visible_text
from tests.grading.parsers.conftest import CORPUS, sample


def line_by_line(text: str) -> ParseResult:
    """``text`` read by ``feed`` alone, every line of it."""
    state = TapState(raw=False)
    state.result.official_passing = TAP_OFFICIAL_PASSING
    state.result.official_failing = TAP_OFFICIAL_FAILING
    read_lines(state, iter(visible_text(text)[1:].split("\n")))
    return finish_reading(state)


def one_pass_stops(text: str) -> bool:
    """Whether the one-pass reader hands ``text`` over to ``feed`` before its end."""
    state, _ = read_regular(ParseResult(), visible_text(text))
    return state is not None


def outcome(result: ParseResult) -> tuple[object, ...]:
    return (
        result.statuses,
        result.occurrences,
        result.notes,
        result.reported,
        result.parsed_anything,
    )


def assert_read_alike(text: str) -> ParseResult:
    result = tap.parse_tap(text)
    assert outcome(result) == outcome(line_by_line(text)), text
    return result


@pytest.mark.parametrize(
    "text",
    [
        sample("node_test_tap.txt"),
        sample("node_test_default.txt"),
        *(path.read_text() for path in sorted((CORPUS / "tap").glob("*node*.log"))),
    ],
)
def test_node_test_streams_are_read_in_one_pass_as_line_by_line(text: str) -> None:
    assert not one_pass_stops(text)
    assert assert_read_alike(text).statuses


def test_a_number_printed_ahead_is_held_and_dropped_in_the_one_pass() -> None:
    text = (
        "TAP version 13\n"
        "# Subtest: a\n"
        "ok 1 - a\n"
        "ok 5 - printed by a test\n"  # the next line carries 2: this one was printed
        "# Subtest: b\n"
        "not ok 2 - b # TODO later\n"
        "  ---\n  duration_ms: 1\n  ...\n"
        "# Subtest: c\n"
        "ok 3 - c\n"
        "ok 9 - held to the end\n"
        "1..3\n"
        "# fail 0\n"
    )
    assert not one_pass_stops(text)
    result = assert_read_alike(text)
    assert [test_id for test_id, _ in result.occurrences] == ["a", "b", "c", "held to the end"]
    assert result.statuses["b"] == "xfail"
    assert result.notes == ["ignored 1 TAP-looking lines out of sequence (printed by tests?)"]


@pytest.mark.parametrize(
    ("case", "text"),
    [
        ("a test line of another form", "# Subtest: a\nok 1 - a\nok\nok 3\n"),
        (
            "a YAML line holding '...'",
            "# Subtest: a\nok 1 - a\n  ---\n  msg: wait...\n  ...\nok 2 - b\n",
        ),
        (
            "a YAML block holding a '---' line",
            "# Subtest: a\nok 1 - a\n  ---\n  ---\n  x: 1\n  ...\nok 2 - b\n",
        ),
        (
            "a YAML line that ends the block for feed",
            "# Subtest: a\nok 1 - a\n  ---\n  ...\x0c\n  ok 2 - after\n  ...\nok 2 - b\n",
        ),
        (
            "a YAML block after a line feed does not read",
            "# Subtest: a\nok 1 - a\nok 1 - again\n  ---\n  ok 7 - in it\n  ...\nok 2 - b\n",
        ),
        (
            "a YAML block after a subtest line",
            "# Subtest: a\n  ---\n  ...\nok 1 - a\n",
        ),
        (
            "a '---' deeper than the pattern takes",
            "# Subtest: a\nok 1 - a\n     ---\n     x: 1\n     ...\nok 2 - b\n",
        ),
        (
            "unusual white space in front of a line",
            "# Subtest: a\n\u3000# Subtest: b\nok 1 - a\n",
        ),
        (
            "a test line out of sequence before a YAML block, deep",
            "# Subtest: s\n    # Subtest: a\n    ok 1 - a\n    ok 1 - a\n"
            "      ---\n      ...\n    1..1\nok 1 - s\n",
        ),
    ],
)
def test_the_one_pass_hands_over_to_feed_at_what_it_does_not_read(case: str, text: str) -> None:
    assert one_pass_stops(text), case
    assert_read_alike(text)


def test_subtest_settling_reads_alike_in_one_pass() -> None:
    text = (
        "# Subtest: suite\n"
        "\n"
        "    # Subtest: own test after a blank line\n"
        "\n"
        "    ok 1 - own test after a blank line\n"
        "    # Subtest: a suite with output first\n"
        "    some output\n"
        "        # Subtest: deep\n"
        "        ok 1 - deep\n"
        "        1..1\n"
        "    ok 2 - a suite with output first\n"
        "    1..2\n"
        "ok 1 - suite\n"
        "1..1\n"
        "# Subtest: after a plan, numbering restarts\n"
        "ok 1 - after a plan, numbering restarts\n"
        "# Subtest: not before one\n"
        "ok 1 - not before one\n"
        "TAP version 13\n"
        "# Subtest: x\n"
        "ok 1 - x\n"
    )
    assert not one_pass_stops(text)
    result = assert_read_alike(text)
    assert [test_id for test_id, _ in result.occurrences] == [
        "own test after a blank line",
        "deep",
        "a suite with output first",
        "suite",
        "after a plan, numbering restarts",
        "x",
    ]


# Pieces of node:test-shaped streams, for the differential test below.
_NAMES = ["a", "b c", "x # SKIP", "y # TODO", "z # skip why", "e \\# f", "-", "", " pad ", "- d"]
_YAML = ["duration_ms: 0.5", "error: |-", "  Expected values", "  ", "  ok 9 - in yaml", "  1..3"]
_ODD = ["...", "...\x0c", "x ... y", "  ---", "TAP version 13", "# Subtest: fake", ""]
_NOISE = ["# tests 3", "# fail 1", "ok", "ok 2", "not ok 3 - c # TODO t", "---", "1..2"]
_NOISE += ["- x", "Bail out! boom", "some output", "#Subtest: t", "\x0bok 1 - v", "ok 1\rok 2"]


def _stream(rng: random.Random, chaos: float) -> str:
    lines: list[str] = []

    def yaml_block(indent: int) -> None:
        if rng.random() < 0.1 * chaos:
            return
        dent = indent if rng.random() > 0.1 * chaos else rng.choice([indent + 2, indent - 1])
        lines.append(" " * dent + "---")
        for _ in range(rng.randint(0, 4)):
            piece = rng.choice(_ODD) if rng.random() < 0.2 * chaos else rng.choice(_YAML)
            lines.append(" " * dent + piece)
        if rng.random() > 0.05 * chaos:
            lines.append(" " * dent + "...")

    def suite(indent: int, depth: int) -> None:
        count = rng.randint(0, 4)
        for number in range(1, count + 1):
            if rng.random() < 0.08 * chaos:
                lines.append(" " * rng.choice([0, indent, indent + 2]) + rng.choice(_NOISE))
            name = rng.choice(_NAMES)
            lines.append(" " * indent + "# Subtest: " + name)
            if depth < 2 and rng.random() < 0.3:
                suite(indent + 4, depth + 1)
            shown = number if rng.random() > 0.15 * chaos else rng.choice([number + 2, 1, 0])
            word = "ok" if rng.random() < 0.8 else "not ok"
            lines.append(" " * indent + f"{word} {shown}{rng.choice([' - ', ' ', '  - '])}{name}")
            yaml_block(indent + 2)
        if rng.random() < 0.8:
            lines.append(" " * indent + f"1..{count}")

    lines.append("TAP version 13")
    suite(0, 0)
    if rng.random() < 0.3:
        suite(0, 0)
    lines.append(f"# fail {rng.randint(0, 2)}")
    return "\n".join(lines) + "\n"


def test_one_pass_and_line_by_line_agree_on_generated_streams() -> None:
    rng = random.Random(20261127)
    read_whole = handed_over = 0
    for index in range(600):
        text = _stream(rng, chaos=(0.0, 0.3, 1.0)[index % 3])
        assert_read_alike(text)
        if one_pass_stops(text):
            handed_over += 1
        else:
            read_whole += 1
    # Both ways are exercised: streams read in one pass, and streams handed over.
    assert read_whole >= 150
    assert handed_over >= 100
