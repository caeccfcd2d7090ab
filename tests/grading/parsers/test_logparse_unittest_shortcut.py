"""unittest logs: the one-pattern reading of ``test (module.Class) ... ok`` lines changes no
result.

Each generated log is parsed twice: as it is, and with the shortcut pattern replaced by one
that never matches, so that every line goes through the general reading (``_HEADER``,
``_status``, the waiting-test state). Both must give the same results, field by field.
The logs mix result lines with lines that change the state the shortcut depends on: a
test still waiting for its status, the error report, a ``Ran N tests`` line and its
verdict.
"""

from __future__ import annotations

import random
import re

import pytest

from polybench.grading.parsers import unittest_log
from polybench.grading.parsers.base import ParseResult

TESTS = ["test_a", "test_b", "runTest", "helper", "tést", "test_a.b", "=====t", "Ran", "setUpClass"]
CLASSES = ["m.A", "pkg.mod.C", "A", "m.A.test_a", "m.B.helper", ".test_a", "m.A.test_b", "Ran"]
WORDS = [
    "ok",
    "FAIL",
    "ERROR",
    "skipped",
    "skipped 'why (x) ... ok'",
    "expected failure",
    "unexpected success",
    "ok ",
    "ok\x0c",
    "OK",
    "ok (x)",
    "FAILED",
    "",
    "ok ... ok",
    " ok",
]
SPACES = ["", " ", "\t", "\u3000"]


def _line(rng: random.Random) -> str:
    test, cls = rng.choice(TESTS), rng.choice(CLASSES)
    word = rng.choice(WORDS)
    kind = rng.random()
    if kind < 0.5:  # most of them: a result line, or something close to one
        dots = rng.choice([" ... ", " ...  ", " ..."])
        return f"{rng.choice(SPACES)}{test} ({cls}){dots}{word}{rng.choice(SPACES)}"
    lines = [
        f"{test} ({cls}) ...",  # waits for its status
        f"{test} ({cls}) (i=1) ... {word}",  # a subtest
        word,  # a status on a line of its own
        "=" * 70,  # the error report starts
        "-" * 70,
        f"FAIL: {test} ({cls})",
        f"ERROR: {test} ({cls}) (i=1)",
        f"Ran {rng.randint(0, 3)} tests in 0.1s",  # a verdict may follow
        rng.choice(["OK", "FAILED (failures=1)", "OK (skipped=1)"]),
        "",
        f"printed ... {word}",
        f"\x1b[32m{test} ({cls}) ... ok\x1b[0m",
        f"{test} ({cls}) ... ok\r{test} ({cls}) ... FAIL",
        "Traceback (most recent call last):",
    ]
    return rng.choice(lines)


def _fields(result: ParseResult) -> tuple[object, ...]:
    return (
        list(result.statuses.items()),
        result.occurrences,
        result.aliases,
        result.subresults,
        result.official_ids,
        result.notes,
        result.unnamed_failures,
        result.parsed_anything,
        result.reported,
        result.distrust,
    )


def _logs(seed: int, count: int) -> list[str]:
    rng = random.Random(seed)
    return ["\n".join(_line(rng) for _ in range(rng.randint(1, 40))) for _ in range(count)]


HAND_MADE = [
    # after a test that waits for its status, a result line is held back (printed output)
    "test_a (m.A) ...\ntest_b (m.A) ... ok\nok",
    "test_a (m.A) ...\ntest_b (m.A) ... FAIL\nERROR",
    # in the error report a result line is not a result
    "=" * 70 + "\nFAIL: test_a (m.A)\ntest_b (m.A) ... ok\n" + "-" * 70,
    # after ``Ran``, a blank line or a verdict is expected
    "test_a (m.A) ... ok\nRan 1 test in 0.1s\ntest_b (m.A) ... FAIL\nOK",
    # Python 3.11+ form with the official spelling, and names unittest would not run
    "test_a (m.A.test_a) ... ok\nhelper (m.B.helper) ... FAIL\nhelper (m.B) ... ok",
    "  test_a (m.A) ...   ok  \ntest_a (A) ... ok\ntest_b (m.A) ... skipped 'x (y) ... ok'",
]


def _both_ways(text: str, legacy_ids: bool, monkeypatch: pytest.MonkeyPatch) -> tuple[object, ...]:
    shortcut = _fields(unittest_log.parse_unittest_text(text, legacy_ids=legacy_ids))
    with monkeypatch.context() as patch:
        patch.setattr(unittest_log, "_RESULT_LINE", re.compile(r"(?!)"))
        general = _fields(unittest_log.parse_unittest_text(text, legacy_ids=legacy_ids))
    assert shortcut == general, text
    return shortcut


@pytest.mark.parametrize("legacy_ids", [False, True])
def test_hand_made_logs_read_the_same_with_and_without_the_shortcut(
    legacy_ids: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    for text in HAND_MADE:
        _both_ways(text, legacy_ids, monkeypatch)


@pytest.mark.parametrize("seed", range(4))
def test_generated_logs_read_the_same_with_and_without_the_shortcut(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    for text in _logs(seed, 600):
        for legacy_ids in (False, True):
            _both_ways(text, legacy_ids, monkeypatch)


def test_the_shortcut_reads_plain_result_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    # (the comparison above would pass if the shortcut read nothing: it must read these)
    text = "test_a (m.A) ... ok\ntest_b (m.A.test_b) ... FAIL\ntest_c (m.A) ... skipped 'x'"
    read: list[str] = []
    pattern = unittest_log._RESULT_LINE

    class Spy:
        def fullmatch(self, line: str) -> re.Match[str] | None:
            match = pattern.fullmatch(line)
            if match is not None:
                read.append(line)
            return match

    monkeypatch.setattr(unittest_log, "_RESULT_LINE", Spy())
    result = _both_ways(text, True, monkeypatch)
    assert read == text.split("\n")
    assert result[0] == [
        ("m.A:test_a:", "passed"),
        ("m.A:test_b:", "failed"),
        ("m.A:test_c:", "skipped"),
        ("m.A.test_b:test_b:", "failed"),
    ]
