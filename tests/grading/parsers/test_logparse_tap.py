"""TAP parsers: description ids (tap), official raw ids (tap_raw), structure and imitation."""

from __future__ import annotations

from tests.grading.parsers.conftest import result_of, run, sample


def test_node_test_tap_real_log() -> None:
    assert run("tap", sample("node_test_tap.txt")) == {
        "adds numbers": "passed",
        "subtracts numbers": "failed",
        "skipped one": "skipped",
        "deep ok": "passed",
        "nested": "passed",
        "calc": "failed",
        "top level ok": "passed",
    }


def test_node_test_default_real_log() -> None:
    assert run("tap", sample("node_test_default.txt"))["subtracts numbers"] == "failed"


def test_mocha_tap_real_log() -> None:
    assert run("tap", sample("mocha_tap.txt")) == {
        "calc adds numbers": "passed",
        "calc subtracts numbers": "failed",
        "calc skipped one": "skipped",
        "calc nested deep ok": "passed",
    }


def test_raw_ids_keep_number_and_directive() -> None:
    assert run("tap_raw", sample("mocha_tap.txt")) == {
        "1 calc adds numbers": "passed",
        "2 calc subtracts numbers": "failed",
        "3 calc skipped one # SKIP -": "skipped",
        "4 calc nested deep ok": "passed",
    }


QUNIT = """\
TAP version 13
ok 1 Core > InterleavedBuffer > set
not ok 2 # TODO Extras > Curves > CubicBezierCurve3 > Instancing
  ---
  message: "not implemented"
  severity: todo
  actual  : null
  expected: undefined
  stack: |
    ok 99 - inside yaml
  ...
not ok 3 Source > Maths > Plane > setFromCoplanarPoints
  ---
  message: failed
  ...
ok 4 # SKIP Loaders > BufferGeometryLoader > load
1..4
"""


def test_qunit_tap_raw_three_js_ids() -> None:
    assert run("tap_raw", QUNIT) == {
        "1 Core > InterleavedBuffer > set": "passed",
        "2 # TODO Extras > Curves > CubicBezierCurve3 > Instancing": "xfail",
        "3 Source > Maths > Plane > setFromCoplanarPoints": "failed",
        "4 # SKIP Loaders > BufferGeometryLoader > load": "skipped",
    }


def test_qunit_tap_description_ids() -> None:
    assert run("tap", QUNIT) == {
        "Core > InterleavedBuffer > set": "passed",
        "Extras > Curves > CubicBezierCurve3 > Instancing": "xfail",
        "Source > Maths > Plane > setFromCoplanarPoints": "failed",
        "Loaders > BufferGeometryLoader > load": "skipped",
    }


def test_printed_tap_lines_out_of_sequence_are_ignored() -> None:
    log = (
        "ok 1 - a\nok 2 - b\nok 1 - forged by a test\nnot ok 3 - c\n  ok 1 - indented noise\n1..3\n"
    )
    result = result_of("tap", log)
    assert {k: v.value for k, v in result.statuses.items()} == {
        "a": "passed",
        "b": "passed",
        "c": "failed",
    }
    assert "out of sequence" in result.notes[0]


def test_new_stream_after_plan_or_version_restarts_numbering() -> None:
    log = "ok 1 - a\n1..1\nok 1 - b\nTAP version 13\nok 1 - c\n"
    assert run("tap", log) == {"a": "passed", "b": "passed", "c": "passed"}


def test_escapes_todo_pass_and_unnumbered() -> None:
    log = "TAP version 14\nok - issue \\#12 fixed\nok 2 - later # TODO not yet\nnot ok\n"
    assert run("tap", log) == {"issue #12 fixed": "passed", "later": "passed"}


def test_bail_out_is_noted() -> None:
    result = result_of("tap", "ok 1 - a\nBail out! database down\n")
    assert result.statuses == {"a": "passed"}
    assert "database down" in result.notes[0]


def test_mocha_json_or_tap_prefers_mocha_json() -> None:
    mocha = '{"stats": {"tests": 1}, "tests": [], "passes": [{"fullTitle": "x y"}]}'
    assert run("mocha_json_or_tap", "ok 1 foo\n" + mocha) == {"x y": "passed"}
    assert run("mocha_json_or_tap", QUNIT)["1 Core > InterleavedBuffer > set"] == "passed"


def test_ansi_and_crlf() -> None:
    log = "TAP version 13\r\n\x1b[32mok 1 - a\x1b[0m\r\n\x1b[31mnot ok 2 - b\x1b[0m\r\n"
    assert run("tap", log) == {"a": "passed", "b": "failed"}


def _occurrences(parser: str, log: str) -> list[tuple[str, str]]:
    return [(test_id, status.value) for test_id, status in result_of(parser, log).occurrences]


def test_the_level_a_subtest_announces_exists_unless_its_own_test_line_closes_it() -> None:
    # The subtest's own test line, printed again out of sequence, is ignored: the level
    # the "# Subtest:" announced stays open and its child is read.
    repeated = "ok 1 - a\n# Subtest: p\nok 1 - forged\n    ok 1 - child\nok 2 - p\n"
    assert _occurrences("tap", repeated) == [("a", "passed"), ("child", "passed"), ("p", "passed")]
    # A blank line between the "# Subtest:" and its test line changes nothing; the test
    # line closes the level, so a later indented line is noise.
    blank = "# Subtest: p\n\nok 1 - p\n    ok 1 - late\nok 2 - q\n"
    assert _occurrences("tap", blank) == [("p", "passed"), ("q", "passed")]
    # A plan of the subtests, then the subtests, then the parent.
    planned = "# Subtest: p\n    1..1\n    ok 1 - c\nok 1 - p\n"
    assert _occurrences("tap", planned) == [("c", "passed"), ("p", "passed")]
    # A test line that jumps ahead closes the level too (it waits to be confirmed).
    jump = "# Subtest: p\nok 3 - p\n    ok 1 - child\n"
    assert _occurrences("tap", jump) == [("p", "passed")]
    # A nested "# Subtest:" right after another: both levels are there.
    nested = "# Subtest: p\n    # Subtest: c\n        ok 1 - g\n    ok 1 - c\nok 1 - p\n"
    assert _occurrences("tap", nested) == [("g", "passed"), ("c", "passed"), ("p", "passed")]


def test_test_lines_are_read_alike_whatever_their_spacing() -> None:
    log = (
        "# Subtest: s\n"
        "ok 1 - one\n"
        "ok 2\t- tab after the number\n"
        "ok  3 - two spaces before the number\n"
        "ok \u0664 - an Arabic-Indic four\n"
        "not ok 5x - no number\n"
        "ok 6 -  spaced  \n"
        "ok 7 -\n"
    )
    assert _occurrences("tap", log) == [
        ("one", "passed"),
        ("tab after the number", "passed"),
        ("two spaces before the number", "passed"),
        ("an Arabic-Indic four", "passed"),
        ("5x - no number", "failed"),
        (" spaced", "passed"),  # the text after "ok 6 - ", trailing space trimmed
    ]
    assert not result_of("tap", log).notes  # every number was in sequence


def test_a_directive_starts_with_a_hash_after_white_space() -> None:
    log = (
        "# Subtest: s\n"
        "ok 1 - a#SKIP\n"
        "ok 2 - b # SKIP not now\n"
        "ok 3 - \\# SKIP escaped\n"
        "not ok 4 # TODO later\n"
        "not ok 5 - e\t#todo\n"
    )
    assert _occurrences("tap", log) == [
        ("a#SKIP", "passed"),
        ("b", "skipped"),
        ("# SKIP escaped", "passed"),
        ("later", "xfail"),
        ("e", "xfail"),
    ]
