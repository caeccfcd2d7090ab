"""Arming fail-to-pass tests for the canary run: one of the test's own assertions is turned
round in place, nothing else changes, and the armed test fails under a correct fix.

Armed files are run for real where the framework is on this machine (pytest with warnings
as errors and strict markers, unittest, node:test with node:assert); the other forms are
checked on their text and syntax tree.
"""

from __future__ import annotations

import random
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from polybench.grading.arming import apply_inversions, find_tests
from polybench.grading.canaries import (
    ArmedTest,
    CanaryCheck,
    CanaryOutcome,
    CanaryStatus,
    arm,
    armed_from_json,
    armed_json,
    check_armed,
    detection_probability,
    planted_failure,
)
from polybench.grading.parsers import get_parser
from polybench.grading.parsers.base import TestStatus
from polybench.metrics.languages import language_for, parser_for

PYTEST_FILE = textwrap.dedent(
    """\
    import pytest


    def double(value):
        return value * 2


    def test_equal():
        result = double(2)
        assert result == 4


    def test_identity():
        assert double(None or 0) is not None


    def test_membership():
        assert 4 in [double(2)]


    def test_negated_call():
        assert not callable(double(1))


    def test_truth():
        assert double(1)


    def test_order():
        assert double(3) > 5


    @pytest.mark.parametrize("value, expected", [(1, 2), (2, 4)])
    def test_cases(value, expected):
        assert double(value) == expected


    def test_ends_early():
        if double(1):
            return
        assert double(1) == 2


    def test_chained():
        assert 1 < double(1) < 3


    class TestGrouped:
        def test_in_class(self):
            assert double(5) == 10
    """
)

UNITTEST_FILE = textwrap.dedent(
    """\
    import unittest


    def double(value):
        return value * 2


    class DoubleTests(unittest.TestCase):
        def test_equal(self):
            self.assertEqual(double(2), 4)

        def test_true(self):
            self.assertTrue(double(1) == 2)

        def test_none(self):
            self.assertIsNotNone(double(1))

        def test_in(self):
            self.assertIn(4, [double(2)])

        def test_instance(self):
            self.assertIsInstance(double(2), int)

        def test_sequence(self):
            self.assertListEqual([double(1)], [2])

        def test_raises(self):
            with self.assertRaises(TypeError):
                double(None)
    """
)


def _arm_all(path: str, text: str, ids: list[str], seed: int = 0) -> tuple[str, list[ArmedTest]]:
    arming = arm({path: text}, ids, random.Random(seed))
    return arming.texts.get(path, text), arming.armed


def _pytest(tmp_path: Path, text: str) -> dict[str, TestStatus]:
    (tmp_path / "test_double.py").write_text(text)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-rA", "-W", "error", "--strict-markers",
         "-p", "no:cacheprovider", "test_double.py"],
        capture_output=True, text=True, cwd=tmp_path, timeout=600,
    )  # fmt: skip
    return get_parser("pytest")(done.stdout).statuses


def test_every_python_form_keeps_lines_and_makes_a_passing_test_fail(tmp_path: Path) -> None:
    names = ["test_equal", "test_identity", "test_membership", "test_negated_call",
             "test_truth", "test_order", "test_cases[1-2]", "test_cases[2-4]",
             "test_ends_early", "test_chained"]  # fmt: skip
    ids = [f"test_double.py:None:{name}" for name in names]
    ids.append("test_double.py:TestGrouped:test_in_class")
    before = _pytest(tmp_path, PYTEST_FILE)
    assert set(before.values()) == {TestStatus.PASSED} and set(before) == set(ids)
    armed_text, armed = _arm_all("test_double.py", PYTEST_FILE, ids)

    assert armed_text.count("\n") == PYTEST_FILE.count("\n")
    assert {a.form for a in armed} == {
        "python ==", "python is not", "python in", "python not", "python truth", "python >",
    }  # fmt: skip
    # A test that may end before its assertion, and a chained comparison, are not armed.
    assert {a.test for a in armed} == {
        "test_equal", "test_identity", "test_membership", "test_negated_call", "test_truth",
        "test_order", "test_cases", "TestGrouped > test_in_class",
    }  # fmt: skip
    assert "    assert result != 4\n" in armed_text
    assert "assert double(None or 0) is None" in armed_text
    assert "assert 4 not in [double(2)]" in armed_text
    assert "assert callable(double(1))" in armed_text
    assert "assert not double(1)\n" in armed_text
    assert "assert double(3) <= 5" in armed_text

    after = _pytest(tmp_path, armed_text)
    for test in armed:
        for test_id in test.ids:
            assert after[test_id] is TestStatus.FAILED, (test_id, armed_text)
    assert after["test_double.py:None:test_ends_early"] is TestStatus.PASSED
    assert after["test_double.py:None:test_chained"] is TestStatus.PASSED
    records = check_armed(armed, {i: TestStatus.FAILED for a in armed for i in a.ids})
    assert {r.outcome for r in records} == {CanaryOutcome.AS_PLANTED}


def test_every_unittest_form_makes_a_passing_test_fail(tmp_path: Path) -> None:
    methods = ["test_equal", "test_true", "test_none", "test_in", "test_instance",
               "test_sequence", "test_raises"]  # fmt: skip
    ids = [f"tests.test_double.DoubleTests:{m}:" for m in methods]
    armed_text, armed = _arm_all("tests/test_double.py", UNITTEST_FILE, ids)
    assert {a.form for a in armed} == {
        "assertEqual", "assertTrue", "assertIsNotNone", "assertIn", "assertIsInstance",
        "assertListEqual",
    }  # fmt: skip
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "__init__.py").write_text("")
    for text, expected in ((UNITTEST_FILE, "ok"), (armed_text, "FAIL")):
        (tmp_path / "tests" / "test_double.py").write_text(text)
        done = subprocess.run(
            [sys.executable, "-W", "error", "-m", "unittest", "-v", "tests.test_double"],
            capture_output=True, text=True, cwd=tmp_path, timeout=600,
        )  # fmt: skip
        statuses = get_parser("unittest")(done.stderr).statuses
        for test in armed:
            (test_id,) = test.ids
            assert statuses[test_id] is (
                TestStatus.PASSED if expected == "ok" else TestStatus.FAILED
            ), done.stderr
        assert statuses["tests.test_double.DoubleTests:test_raises:"] is TestStatus.PASSED


NODE_TEST_FILE = textwrap.dedent(
    """\
    import { describe, it } from 'node:test';
    import assert from 'node:assert/strict';
    import * as loose from 'node:assert';

    const double = (value) => value * 2;

    describe('double', () => {
      it('doubles', () => {
        assert.equal(double(2), 4);
      });

      it('doubles lists', () => {
        assert.deepEqual([double(1)], [2]);
      });

      it('is not odd', () => {
        assert.notStrictEqual(double(3) % 2, 1);
      });

      it('throws on symbols', () => {
        assert.throws(() => double(Symbol('x')), TypeError);
      });

      it('matches', () => {
        loose.match(String(double(21)), /^42$/);
      });

      it('is truthy', () => {
        assert(double(1));
      });

      it('is ok when negated', () => {
        assert.ok(!Number.isNaN(double(1)));
      });

      it('rejects', async () => {
        await assert.rejects(async () => double(Symbol('y')), TypeError);
      });

      it('ends early', (t) => {
        t.diagnostic('callback tests are not armed');
        assert.equal(double(1), 2);
      });
    });
    """
)


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node")
def test_every_node_assert_form_makes_a_passing_test_fail(tmp_path: Path) -> None:
    titles = ["doubles", "doubles lists", "is not odd", "throws on symbols", "matches",
              "is truthy", "is ok when negated", "rejects", "ends early"]  # fmt: skip
    armed_text, armed = _arm_all("test/double.test.mjs", NODE_TEST_FILE, titles)
    assert {a.form for a in armed} == {
        "node assert.equal", "node assert.deepEqual", "node assert.notStrictEqual",
        "node assert.throws", "node assert.match", "assert(value)", "assert.ok remove !",
        "node assert.rejects",
    }  # fmt: skip
    assert armed_text.count("\n") == NODE_TEST_FILE.count("\n")
    for text, expected in ((NODE_TEST_FILE, TestStatus.PASSED), (armed_text, TestStatus.FAILED)):
        (tmp_path / "double.test.mjs").write_text(text)
        done = subprocess.run(
            ["node", "--test", "--test-reporter=tap", "double.test.mjs"],
            capture_output=True, text=True, cwd=tmp_path, timeout=600,
        )  # fmt: skip
        statuses = get_parser("tap")(done.stdout).statuses
        for title in titles[:-1]:
            assert statuses[title] is expected, (title, done.stdout)
        assert statuses["ends early"] is TestStatus.PASSED


EXPECT_FILE = textwrap.dedent(
    """\
    import { expect as chaiExpect } from 'chai';

    describe('parse', () => {
      it('reads a number', () => {
        expect(parse('1')).toBe(1);
      });

      test('never reads text', () => {
        expect(parse('x')).not.toBe('x');
      });

      it('resolves', async () => {
        await expect(load('1')).resolves.toEqual({ value: 1 });
      });

      it('reads with chai', () => {
        chaiExpect(parse('2')).to.equal(2);
      });

      it('keeps snapshots', () => {
        expect(parse('3')).toMatchSnapshot();
      });

      it.each([1, 2])('reads %s', (value) => {
        expect(parse(String(value))).toBe(value);
      });
    });
    """
)


def test_expect_chains_get_or_lose_a_not_where_jest_vitest_and_chai_read_it() -> None:
    ids = ["/testbed/test/parse.test.ts->parse reads a number",
           "/testbed/test/parse.test.ts->parse never reads text",
           "/testbed/test/parse.test.ts->parse resolves",
           "/testbed/test/parse.test.ts->parse reads with chai",
           "/testbed/test/parse.test.ts->parse keeps snapshots"]  # fmt: skip
    armed_text, armed = _arm_all("test/parse.test.ts", EXPECT_FILE, ids)
    assert "expect(parse('1')).not.toBe(1);" in armed_text
    assert "expect(parse('x')).toBe('x');" in armed_text
    assert "await expect(load('1')).resolves.not.toEqual({ value: 1 });" in armed_text
    assert "chaiExpect(parse('2')).to.equal(2);" in armed_text  # not the file's `expect`
    assert "toMatchSnapshot" in armed_text and ".not.toMatchSnapshot" not in armed_text
    assert {a.test for a in armed} == {"parse > reads a number", "parse > never reads text",
                                       "parse > resolves"}  # fmt: skip
    tree = parser_for(language_for("x.ts")).parse(armed_text.encode())  # type: ignore[arg-type]
    assert not tree.root_node.has_error


def test_chai_assert_methods_are_swapped_for_their_opposites() -> None:
    text = (
        "const { assert } = require('chai');\n\n"
        "it('adds', function () {\n  assert.isTrue(add(1, 1) === 2);\n});\n\n"
        "it('subtracts', function () {\n  assert.strictEqual(sub(2, 1), 1);\n});\n"
    )
    armed_text, armed = _arm_all("test/add.test.js", text, ["adds", "subtracts"])
    assert "assert.isFalse(add(1, 1) === 2);" in armed_text
    assert "assert.notStrictEqual(sub(2, 1), 1);" in armed_text
    assert {a.form for a in armed} == {"chai assert.isTrue", "chai assert.strictEqual"}


JUNIT_FILE = textwrap.dedent(
    """\
    package io.example;

    import static org.junit.jupiter.api.Assertions.assertEquals;
    import static org.junit.jupiter.api.Assertions.assertNotNull;
    import static org.junit.jupiter.api.Assertions.assertNull;
    import static org.assertj.core.api.Assertions.assertThat;

    import org.junit.jupiter.api.Assertions;
    import org.junit.jupiter.api.Nested;
    import org.junit.jupiter.api.Test;
    import org.junit.jupiter.params.ParameterizedTest;
    import org.junit.jupiter.params.provider.ValueSource;

    class DoubleTest {
        @Test
        void doublesTwo() {
            int result = Doubler.twice(2);
            assertEquals(4, result);
        }

        @Test
        void isNeverNull() {
            assertNotNull(Doubler.twice(3));
        }

        @Test
        void qualified() {
            Assertions.assertTrue(Doubler.twice(1) == 2);
        }

        @ParameterizedTest
        @ValueSource(ints = {1, 2})
        void fluent(int value) {
            assertThat(Doubler.twice(value)).isEqualTo(value * 2);
        }

        @Nested
        class Inner {
            @Test
            void nested() {
                assertEquals(0, Doubler.twice(0));
            }
        }
    }
    """
)


def test_junit_assertions_are_inverted_with_an_opposite_that_compiles() -> None:
    ids = ["io.example.DoubleTest.doublesTwo", "io.example.DoubleTest.isNeverNull",
           "io.example.DoubleTest.qualified", "io.example.DoubleTest.fluent(int)[1]",
           "io.example.DoubleTest.fluent(int)[2]",
           "io.example.DoubleTest$Inner.nested"]  # fmt: skip
    path = "src/test/java/io/example/DoubleTest.java"
    armed_text, armed = _arm_all(path, JUNIT_FILE, ids)
    # assertNotEquals is not imported: the opposite is qualified with the imported class.
    assert "org.junit.jupiter.api.Assertions.assertNotEquals(4, result);" in armed_text
    assert "        assertNull(Doubler.twice(3));" in armed_text  # imported already
    assert "Assertions.assertFalse(Doubler.twice(1) == 2);" in armed_text
    assert "assertThat(Doubler.twice(value)).isNotEqualTo(value * 2);" in armed_text
    assert {a.test: a.ids for a in armed}["DoubleTest > fluent"] == (ids[3], ids[4])
    assert {a.test: a.ids for a in armed}["DoubleTest > Inner > nested"] == (ids[5],)
    assert armed_text.count("\n") == JUNIT_FILE.count("\n")
    tree = parser_for(language_for(path)).parse(armed_text.encode())  # type: ignore[arg-type]
    assert not tree.root_node.has_error


def test_tests_of_other_files_and_other_names_are_not_armed() -> None:
    found = find_tests("tests/test_double.py", PYTEST_FILE)
    assert len(found) == 11 - 1  # the parametrized test is one function
    arming = arm(
        {"tests/test_double.py": PYTEST_FILE}, ["other.py:None:test_equal"], random.Random(0)
    )
    assert not arming.armed and not arming.texts
    assert apply_inversions(PYTEST_FILE, []) == PYTEST_FILE


@pytest.mark.parametrize(
    ("log", "expected"),
    [
        ("[ERROR] /testbed/src/test/java/a/DoubleTest.java:[19,9] cannot find symbol",
         ("src/test/java/a/DoubleTest.java", 19)),
        ("[WARNING] /testbed/src/test/java/a/DoubleTest.java:[19,26] [StringCaseLocaleUsage] x\n"
         "[ERROR] warnings found and -Werror specified", ("src/test/java/a/DoubleTest.java", 19)),
        ("test/parse.test.ts(5,5): error TS6133: 'x' is declared but never read.",
         ("test/parse.test.ts", 5)),
        ("test/parse.test.ts:5:5 - error TS2339: Property 'nott' does not exist",
         ("test/parse.test.ts", 5)),
        ("/testbed/test/parse.test.ts\n   5:5  error  Unexpected negation  no-restricted-syntax\n",
         ("test/parse.test.ts", 5)),
        ('  File "/testbed/tests/test_double.py", line 9\n    assert x !=\nSyntaxError: bad',
         ("tests/test_double.py", 9)),
        ("[WARN] /testbed/src/test/java/a/DoubleTest.java:19:101: Line is longer than 100",
         ("src/test/java/a/DoubleTest.java", 19)),
        ("[ERROR] /testbed/src/test/java/a/DoubleTest.java:[20,9] cannot find symbol", None),
        ("test/other.test.ts(5,5): error TS6133: 'x' is declared but never read.", None),
    ],
)  # fmt: skip
def test_a_failure_the_log_blames_on_an_armed_line_is_found(
    log: str, expected: tuple[str, int] | None
) -> None:
    armed = [
        ArmedTest("src/test/java/a/DoubleTest.java", "DoubleTest", 19, "assertEquals", ("a",)),
        ArmedTest("test/parse.test.ts", "parse > reads", 5, "expect .not", ("b",)),
        ArmedTest("tests/test_double.py", "test_equal", 9, "python ==", ("c",)),
    ]  # fmt: skip
    blamed = planted_failure(log, armed, "/testbed")
    assert (blamed[:2] if blamed else None) == expected


def test_armed_tests_outcomes_and_records() -> None:
    armed = [
        ArmedTest("t.py", "test_a", 3, "python ==", ("t.py:None:test_a[1]", "t.py:None:test_a[2]"))
    ]
    statuses = {"t.py:None:test_a[1]": TestStatus.FAILED, "t.py:None:test_a[2]": TestStatus.PASSED}
    assert check_armed(armed, statuses)[0].outcome is CanaryOutcome.WRONG
    assert check_armed(armed, {})[0].outcome is CanaryOutcome.NOT_RUN
    skipped = {"t.py:None:test_a[1]": TestStatus.SKIPPED}
    assert check_armed(armed, skipped)[0].outcome is CanaryOutcome.NOT_RUN
    assert armed_from_json(armed_json(armed)) == armed
    assert armed_from_json("not json") == []


def test_detection_probability_is_the_bound_on_a_gamble() -> None:
    assert detection_probability(0) == 0.0
    assert detection_probability(1) == 0.75
    assert detection_probability(2) == pytest.approx(1 - 4 / 27, abs=1e-4)
    # No gamble does better: p(1-p) over a grid never exceeds 1/4.
    assert max(p / 100 * (1 - p / 100) for p in range(101)) <= 1 - detection_probability(1)


def test_results_written_when_canaries_were_planted_in_the_graded_run_still_read() -> None:
    old = {
        "planted": 3,
        "not_planted_reason": None,
        "records": [
            {"file": "t.py", "expect": "fail", "outcome": "missing", "observed": "absent"},
            {"file": "t.py", "expect": "pass", "outcome": "as_planted", "observed": "passed"},
        ],
    }
    check = CanaryCheck.model_validate(old)
    assert check.status is CanaryStatus.CHECKED and check.tampered
    assert CanaryCheck.model_validate({"planted": 0, "records": []}).status is (
        CanaryStatus.NOT_ARMED
    )
