"""pytest log parser: real output, parametrised ids, imitation, sessions, noise."""

from __future__ import annotations

from polybench.grading.parsers.pytest_log import official_id
from tests.grading.parsers.conftest import result_of, run, sample


def test_real_v_ra_log() -> None:
    assert run("pytest", sample("pytest_v_rA.txt")) == {
        "test_calc.py:None:test_add": "passed",
        "test_calc.py:None:test_sub": "failed",
        "test_calc.py:None:test_skipped": "skipped",
        "test_calc.py:None:test_param[1]": "failed",
        "test_calc.py:None:test_param[2]": "passed",
        "test_calc.py:TestGroup:test_method": "passed",
        "test_calc.py:TestGroup:test_error": "failed",
    }


def test_official_id_shapes() -> None:
    assert official_id("tests/a.py::test_x") == "tests/a.py:None:test_x"
    assert official_id("a.py::C::test_x[1-2]") == "a.py:C:test_x[1-2]"
    assert official_id("a.py::Outer::Inner::t") == "a.py:Outer.Inner:t"
    assert official_id("a.py::t[x::y]") == "a.py:None:t[x::y]"
    assert official_id("a.py::t[a b [c]]") == "a.py:None:t[a b [c]]"
    assert official_id("a.py") is None
    assert official_id("::x") is None


RA_TRICKY = """\
============================= test session starts ==============================
collected 9 items

t.py::test_p[a b] PASSED                                                 [ 11%]
t.py::test_p[c[d]] FAILED                                                [ 22%]
t.py::test_p[\\xe9\\u2713] PASSED                                          [ 33%]
t.py::test_p[x::y] PASSED                                                [ 44%]
t.py::test_p[p - q] PASSED                                               [ 55%]
t.py::Outer::Inner::test_nested PASSED                                   [ 66%]
t.py::test_fixture ERROR                                                 [ 77%]
t.py::test_xfail XFAIL (known)                                           [ 88%]
t.py::test_skip SKIPPED (nah)                                            [100%]
t.py::test_td PASSED                                                     [100%]
t.py::test_td ERROR                                                      [100%]

==================================== ERRORS ====================================
______________________ ERROR at setup of test_fixture __________________________
E       RuntimeError: fixture
=================================== FAILURES ===================================
_______________________________ test_p[c[d]] ___________________________________
E       AssertionError
==================================== PASSES ====================================
_____________________________ test_p[a b] ______________________________________
----------------------------- Captured stdout call -----------------------------
t.py::test_fake PASSED
PASSED t.py::test_fake2
=========================== short test summary info ============================
PASSED t.py::test_p[a b]
PASSED t.py::test_p[\\xe9\\u2713]
PASSED t.py::test_p[x::y]
PASSED t.py::test_p[p - q]
PASSED t.py::Outer::Inner::test_nested
PASSED t.py::test_td
SKIPPED [1] t.py:30: nah
XFAIL t.py::test_xfail - known
ERROR t.py::test_fixture - RuntimeError: fixture
ERROR t.py::test_td - RuntimeError: teardown
FAILED t.py::test_p[c[d]] - AssertionError: assert 'c[d]' != 'c[d]'
==== 1 failed, 6 passed, 1 skipped, 1 xfailed, 2 errors in 0.03s ====
"""


def test_parametrised_ids_sections_and_imitation() -> None:
    statuses = run("pytest", RA_TRICKY)
    assert statuses == {
        "t.py:None:test_p[a b]": "passed",
        "t.py:None:test_p[c[d]]": "failed",
        "t.py:None:test_p[\\xe9\\u2713]": "passed",
        "t.py:None:test_p[x::y]": "passed",
        "t.py:None:test_p[p - q]": "passed",
        "t.py:Outer.Inner:test_nested": "passed",
        "t.py:None:test_fixture": "errored",
        "t.py:None:test_xfail": "xfail",
        "t.py:None:test_skip": "skipped",
        "t.py:None:test_td": "errored",
    }


def test_printed_lines_with_capture_disabled_do_not_pass_when_summary_is_complete() -> None:
    log = """\
============================= test session starts ==============================
collected 2 items

t.py::test_a hello
t.py::test_forged PASSED
PASSED
t.py::test_b FAILED

=========================== short test summary info ============================
PASSED t.py::test_a
FAILED t.py::test_b - assert 0
========================= 1 failed, 1 passed in 0.01s ==========================
"""
    assert run("pytest", log) == {"t.py:None:test_a": "passed", "t.py:None:test_b": "failed"}


def test_v_only_log_without_ra() -> None:
    log = """\
============================= test session starts ==============================
t.py::test_a PASSED                                                      [ 50%]
t.py::TestK::test_b FAILED                                               [100%]
=================================== FAILURES ===================================
=========================== short test summary info ============================
FAILED t.py::TestK::test_b - assert 0
"""
    assert run("pytest", log) == {"t.py:None:test_a": "passed", "t.py:TestK:test_b": "failed"}


def test_ra_only_quiet_log() -> None:
    log = """\
..F                                                                      [100%]
=========================== short test summary info ============================
PASSED tests/unit/test_a.py::test_one
PASSED tests/unit/test_a.py::TestC::test_two
FAILED tests/unit/test_a.py::test_three - ValueError: x
"""
    assert run("pytest", log) == {
        "tests/unit/test_a.py:None:test_one": "passed",
        "tests/unit/test_a.py:TestC:test_two": "passed",
        "tests/unit/test_a.py:None:test_three": "failed",
    }


def test_xdist_lines() -> None:
    log = """\
============================= test session starts ==============================
[gw0] [ 50%] PASSED t.py::test_a
[gw1] [100%] FAILED t.py::test_b[1]
"""
    assert run("pytest", log) == {"t.py:None:test_a": "passed", "t.py:None:test_b[1]": "failed"}


def test_several_sessions_in_one_log() -> None:
    one = "==== test session starts ====\na.py::test_x PASSED [100%]\n"
    two = (
        "==== test session starts ====\nb.py::test_y FAILED [100%]\n"
        "==== short test summary info ====\nFAILED b.py::test_y - boom\n"
    )
    assert run("pytest", one + two) == {"a.py:None:test_x": "passed", "b.py:None:test_y": "failed"}


def test_ansi_colours_and_carriage_returns() -> None:
    log = (
        "\x1b[1m==== test session starts ====\x1b[0m\r\n"
        "collecting ... \rcollected 2 items\r\n"
        "t.py::test_a \x1b[32mPASSED\x1b[0m\x1b[32m   [ 50%]\x1b[0m\r\n"
        "t.py::test_b \x1b[31mFAILED\x1b[0m\x1b[31m   [100%]\x1b[0m\r\n"
    )
    assert run("pytest", log) == {"t.py:None:test_a": "passed", "t.py:None:test_b": "failed"}


def test_collection_error_is_noted() -> None:
    log = (
        "==== test session starts ====\n==== short test summary info ====\n"
        "ERROR tests/test_broken.py - ImportError: nope\n"
    )
    result = result_of("pytest", log)
    assert result.statuses == {}
    assert "collection error" in result.notes[0]


def test_inherited_test_marker_is_dropped() -> None:
    log = "==== test session starts ====\nt.py::TestA::test_x <- base.py PASSED [100%]\n"
    assert run("pytest", log) == {"t.py:TestA:test_x": "passed"}


def test_summary_pass_does_not_hide_an_earlier_failure() -> None:
    log = (
        "==== test session starts ====\nt.py::test_a FAILED [100%]\n"
        "==== short test summary info ====\nFAILED t.py::test_a\n"
    )
    assert run("pytest", log) == {"t.py:None:test_a": "failed"}


def test_legacy_official_ids_for_unusual_node_ids() -> None:
    from polybench.grading.parsers.pytest_log import legacy_official_id

    assert legacy_official_id("tests/a.py::TestA::test_x") == "tests/a.py:TestA:test_x"
    assert legacy_official_id("t.py::t[1-2]") == "t.py:None:t[1-2]"
    assert legacy_official_id("t.py::t[a b]") == "t.py:None:t"
    assert legacy_official_id("libs/a-b/t.py::A::B::t") == "b/t.py:A:B"
    assert legacy_official_id("x/t.ipynb::t") is None


def test_official_python_parser_also_records_legacy_ids() -> None:
    log = (
        "==== test session starts ====\n"
        "t.py::test_p[a b] PASSED [ 33%]\n"
        "t.py::test_p[c d] FAILED [ 66%]\n"
        "t.py::test_q[1-2] PASSED [100%]\n"
    )
    assert run("pytest", log) == {
        "t.py:None:test_p[a b]": "passed",
        "t.py:None:test_p[c d]": "failed",
        "t.py:None:test_q[1-2]": "passed",
    }
    assert run("pytest_or_unittest", log) == {
        "t.py:None:test_p[a b]": "passed",
        "t.py:None:test_p[c d]": "failed",
        "t.py:None:test_q[1-2]": "passed",
        "t.py:None:test_p": "failed",
    }


def test_legacy_ids_read_from_a_whole_log_are_those_of_each_node_id() -> None:
    from polybench.grading.parsers import get_parser
    from polybench.grading.parsers.pytest_log import legacy_official_id

    nodes = [
        "t.py::test_p[a b]",
        "libs/a-b/t.py::A::B::t",
        "a.py.d/t.py::test_dot_dir[x y]",
        "pkg/t.py::TestA::test_x[p q]",
        "x/t.ipynb::t",
        "w-x/mod.py::test_w[1 2]",
        "plain/t.py::TestB::test_ok",
        "ü/t.py::test_u[a b]",
    ]
    log = "==== test session starts ====\n" + "".join(f"{n} PASSED [ 50%]\n" for n in nodes)
    result = get_parser("pytest_or_unittest")(log)
    expected = {
        legacy
        for node in nodes
        if (legacy := legacy_official_id(node)) is not None
        and legacy not in get_parser("pytest")(log).statuses
    }
    assert result.aliases == expected
    assert len(expected) == 6


def test_legacy_ids_of_odd_parameters_are_those_of_each_node_id() -> None:
    """Node ids the official pattern reads whole up to their parameters (the usual case),
    with parameters it reads whole, in part or not at all."""
    from polybench.grading.parsers import get_parser
    from polybench.grading.parsers.pytest_log import legacy_official_id, official_id

    nodes = [
        "t.py::test_p[a b]",
        "t.py::test_p[1.5]",
        "t.py::test_p[a-b]x]",
        "t.py::test_p[]",
        "t.py::test_p[ok-1]",
        "pkg/t.py::TestA::test_x[p q]",
        "pkg/t.py::TestA::test_y",
        "ü/t.py::test_ü[a/b]",
    ]
    progress = "".join(f"{node} PASSED [ 50%]\n" for node in nodes[:-1])
    summary = f"FAILED {nodes[-1]} - boom\n"  # the last one only here
    log = (
        "==== test session starts ====\n"
        + progress
        + "==== short test summary info ====\n"
        + summary
    )
    result = get_parser("pytest_or_unittest")(log)
    expected = {}
    for node in nodes:
        proper, legacy = official_id(node), legacy_official_id(node)
        assert proper is not None and legacy is not None
        if legacy != proper:
            expected[proper] = legacy
    assert result.official_ids == expected
    assert result.aliases == set(expected.values())
    assert result.statuses["ü/t.py:None:test_ü"] == "failed"
    assert result.statuses["t.py:None:test_p[a-b]"] == "passed"
    assert len(expected) == 6


def test_legacy_ids_when_the_official_pattern_keeps_no_parameters() -> None:
    """Every node id read whole up to its parameters, and no parameters read whole (the
    legacy id is the official id without them): also where a legacy id is another test's
    own id, or two tests share one (a failure wins, as for any id)."""
    from polybench.grading.parsers import get_parser
    from polybench.grading.parsers.pytest_log import legacy_official_id, official_id

    lines = [
        ("t.py::test_a[x y]", "PASSED"),
        ("t.py::test_b", "PASSED"),
        ("t.py::TestC::test_c[p q]", "FAILED"),
        ("t.py::test_d[1 2]", "SKIPPED"),
        ("t.py::test_e", "PASSED"),
        ("t.py::test_e[a b]", "FAILED"),
        ("t.py::test_f[a b]", "PASSED"),
        ("t.py::test_f[c d]", "FAILED"),
    ]
    log = "==== test session starts ====\n" + "".join(f"{n} {s} [ 50%]\n" for n, s in lines)
    result = get_parser("pytest_or_unittest")(log)
    expected = {}
    for node, _ in lines:
        proper, legacy = official_id(node), legacy_official_id(node)
        assert proper is not None and legacy is not None
        if legacy != proper:
            expected[proper] = legacy
    assert result.official_ids == expected
    assert len(expected) == 6
    assert result.aliases == {"t.py:None:test_a", "t.py:TestC:test_c", "t.py:None:test_d",
                              "t.py:None:test_f"}  # fmt: skip
    assert result.statuses["t.py:None:test_a"] == "passed"
    assert result.statuses["t.py:TestC:test_c"] == "failed"
    assert result.statuses["t.py:None:test_d"] == "skipped"
    assert result.statuses["t.py:None:test_e"] == "failed"  # the test's own id, and failed
    assert result.statuses["t.py:None:test_f"] == "failed"
    assert [test_id for test_id, _ in result.occurrences] == [
        official_id(node) for node, _ in lines
    ]


def test_parameters_run_to_the_bracket_the_rest_of_the_line_allows() -> None:
    log = (
        "==== test session starts ====\n"
        "t.py::test_f[a] b] PASSED [ 25%]\n"
        "t.py::test_g[x]] FAILED [ 50%]\n"
        "t.py::TestK::test_h[[y] PASSED [ 75%]\n"
        "t.py::test_i[a] PASSED] PASSED [100%]\n"
        "==== short test summary info ====\n"
        "FAILED t.py::test_g[x]] - assert ]\n"
        "FAILED t.py::test_j[a - b] - boom\n"
    )
    assert run("pytest", log) == {
        "t.py:None:test_f[a] b]": "passed",
        "t.py:None:test_g[x]]": "failed",
        "t.py:TestK:test_h[[y]": "passed",
        "t.py:None:test_i[a] PASSED]": "passed",  # "PASSED]" is no status word
        "t.py:None:test_j[a - b]": "failed",
    }


def test_node_ids_that_give_the_same_id_are_one_test() -> None:
    # ``t.py::None::t`` (a class named None) and ``t.py::t`` both give ``t.py:None:t``;
    # ``t.py::A::B::t`` (nested classes) and ``t.py::A.B::t`` both give ``t.py:A.B:t``.
    # Their progress lines are weighed as lines of one test, in either order.
    header = "=" * 20 + " test session starts " + "=" * 20
    summary = "=" * 20 + " short test summary info " + "=" * 20 + "\nPASSED u.py::other\n"
    pairs = [("t.py::None::t", "t.py::t"), ("t.py::A::B::t", "t.py::A.B::t")]
    for first, second in pairs + [(b, a) for a, b in pairs]:
        test_id = official_id(first)
        assert test_id is not None and test_id == official_id(second)
        # A failure is not undone by a later pass.
        result = result_of("pytest", f"{header}\n{first} FAILED\n{second} PASSED\n")
        assert result.statuses == {test_id: "failed"}
        assert result.occurrences == [(test_id, "failed")]
        # With a summary that lists passes, the progress lines give skips only: a skip
        # followed by a pass of the same test is not one.
        text = f"{header}\n{first} SKIPPED\n{second} PASSED\n{summary}"
        result = result_of("pytest", text)
        assert result.statuses == {"u.py:None:other": "passed"}, (first, second)
