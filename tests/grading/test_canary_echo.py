"""The must-fail canary repeats a real test's body: it reaches the code under test as the
real tests do, so tampering aimed only at the tests that reach that code turns it too.

Each planted file is run for real (Python by exec, JavaScript by node) or parsed (Java),
and the control is the self-contained canary a test that cannot be repeated gets.
"""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from polybench.grading.canaries import (
    Canary,
    CanaryOutcome,
    check_canaries,
    take_out_canaries,
)
from polybench.grading.canary_source import PlantedTest, plant
from polybench.grading.parsers import get_parser
from polybench.grading.parsers.base import TestStatus
from polybench.metrics.languages import language_for, parser_for

PYTEST_FILE = textwrap.dedent(
    """\
    def double(value):
        return value * 2


    def test_double_of_two():
        result = double(2)
        assert result == 4


    def test_double_of_three():
        assert double(3) == 6
    """
)


def _plant_one(
    path: str, text: str, expect: str, seed: int = 0, **kw: object
) -> tuple[str, PlantedTest]:
    new_text, planted = plant(path, text, [expect], random.Random(seed), **kw)  # type: ignore[arg-type]
    assert len(planted) == 1, new_text
    return new_text, planted[0]


def _function_source(text: str, name: str) -> str:
    start = text.index(f"def {name}(")
    end = text.find("\n\n\ndef ", start)
    return text[start:] if end < 0 else text[start:end]


def _run_python(text: str, name: str, double: object = None) -> Exception | None:
    namespace: dict[str, object] = {}
    exec(compile(text, "test_file.py", "exec"), namespace)
    if double is not None:
        namespace["double"] = double
    try:
        namespace[name]()  # type: ignore[operator]
    except Exception as exc:
        return exc
    return None


def test_python_fail_canary_repeats_a_real_test_and_fails() -> None:
    text, canary = _plant_one(
        "tests/test_double.py", PYTEST_FILE, "fail", prefer=["test_double_of_two"]
    )
    assert canary.sibling == "test_double_of_two"
    body = _function_source(text, canary.name)
    assert "result = double(2)" in body and "assert result == 4" in body
    assert isinstance(_run_python(text, canary.name), AssertionError)
    # It reaches the code under test as the real test does.
    calls: list[int] = []

    def counted(value: int) -> int:
        calls.append(value)
        return value * 2

    assert isinstance(_run_python(text, canary.name, counted), AssertionError)
    assert calls == [2]


def test_python_pass_canary_stays_self_contained() -> None:
    text, canary = _plant_one(
        "tests/test_double.py", PYTEST_FILE, "pass", prefer=["test_double_of_two"]
    )
    body = _function_source(text, canary.name)
    assert "double(" not in body
    assert _run_python(text, canary.name) is None


@pytest.mark.parametrize(
    "sibling",
    [
        "@pytest.mark.xfail\ndef test_double_of_two():\n    assert double(2) == 5\n",
        "def test_double_of_two(tmp_path):\n    assert double(2) == 4\n",
        "def test_double_of_two():\n    if double(2) == 4:\n        return\n    assert False\n",
        "def test_double_of_two():\n    pytest.skip('later')\n",
        "async def test_double_of_two():\n    assert double(2) == 4\n",
        "def test_double_of_two(): assert double(2) == 4\n",
    ],
    ids=["decorated", "fixture", "early-return", "skips", "async", "one-line"],
)
def test_python_tests_that_cannot_be_repeated_give_a_self_contained_canary(sibling: str) -> None:
    source = "import pytest\n\n\ndef double(value):\n    return value * 2\n\n\n" + sibling
    text, canary = _plant_one("tests/test_double.py", source, "fail", prefer=["test_double_of_two"])
    body = _function_source(text, canary.name)
    assert "double(" not in body
    assert isinstance(_run_python(text, canary.name), AssertionError)


def test_python_unittest_body_keeps_its_own_indentation() -> None:
    source = textwrap.dedent(
        """\
        import unittest


        class DoubleTests(unittest.TestCase):
          def test_double_of_two(self):
            value = 2 * 2
            self.assertEqual(value, 4)

          def test_double_of_three(self):
            self.assertEqual(3 * 2, 6)
        """
    )
    text, canary = _plant_one(
        "tests/test_double.py", source, "fail", unittest_style=True, prefer=["test_double_of_two"]
    )
    namespace: dict[str, object] = {}
    exec(compile(text, "test_file.py", "exec"), namespace)
    case = namespace["DoubleTests"](canary.name)  # type: ignore[operator]
    result = case.run()
    assert result is not None and len(result.failures) == 1 and not result.errors
    assert re.search(rf"  def {canary.name}\(self\):\n    value = 2 \* 2\n", text)


JEST_FILE = textwrap.dedent(
    """\
    const { double } = require('./double');

    describe('double', () => {
      it('doubles two', async () => {
        const result = double(2);
        expect(result).toBe(4);
      });

      it('doubles three', () => {
        expect(double(3)).toBe(6);
      });

      it('doubles later', (done) => {
        expect(double(5)).toBe(10);
        done();
      });
    });
    """
)

_NODE_HARNESS = """
const tests = [];
global.describe = (name, body) => body();
global.it = (name, body) => tests.push([name, body]);
global.expect = (actual) => ({ toBe(expected) {
  if (actual !== expected) throw new Error(`${actual} !== ${expected}`);
} });
const calls = [];
const counted = (v) => { calls.push(v); return v * 2; };
require.cache[require.resolve('./double')] = { loaded: true, exports: { double: counted } };
"""


def test_javascript_fail_canary_repeats_a_real_test_and_fails(tmp_path: Path) -> None:
    text, canary = _plant_one("test/double.test.js", JEST_FILE, "fail", prefer=["doubles two"])
    assert canary.sibling == "doubles two"
    tree = parser_for(language_for("test/double.test.js")).parse(text.encode())  # type: ignore[arg-type]
    assert not tree.root_node.has_error
    (tmp_path / "double.js").write_text("module.exports = { double: (v) => v * 2 };\n")
    (tmp_path / "double.test.js").write_text(text)
    runner = tmp_path / "run.js"
    runner.write_text(
        _NODE_HARNESS
        + "require('./double.test.js');\n"
        + "(async () => { const out = {};\n"
        + "for (const [name, body] of tests) {\n"
        + "  if (body.length) continue;\n"
        + "  try { await body(); out[name] = 'passed'; } catch (e) { out[name] = 'failed'; }\n"
        + "}\nconsole.log(JSON.stringify({ out, calls })); })();\n"
    )
    done = subprocess.run(
        ["node", str(runner)], capture_output=True, text=True, check=True, cwd=tmp_path
    )
    report = json.loads(done.stdout)
    assert report["out"][canary.name] == "failed"
    assert report["out"]["doubles two"] == "passed"
    assert report["calls"].count(2) == 2  # the real test and the canary both reached the code


JUNIT_FILE = textwrap.dedent(
    """\
    package io.example;

    import static org.junit.jupiter.api.Assertions.assertEquals;

    import org.junit.jupiter.api.Test;

    class DoubleTest {
        @Test
        void doublesTwo() throws java.io.IOException {
            int result = Doubler.twice(2);
            assertEquals(4, result);
        }

        @Test
        void doublesThree() {
            assertEquals(6, Doubler.twice(3));
        }
    }
    """
)


def test_java_fail_canary_repeats_a_real_test_with_its_throws_clause() -> None:
    text, canary = _plant_one(
        "src/test/java/io/example/DoubleTest.java", JUNIT_FILE, "fail", prefer=["doublesTwo"]
    )
    tree = parser_for(language_for("x/DoubleTest.java")).parse(text.encode())  # type: ignore[arg-type]
    assert not tree.root_node.has_error
    planted = text.split(f"void {canary.name}()", 1)[1].split("\n    }\n", 1)[0]
    assert planted.startswith(" throws java.io.IOException {")
    assert "int result = Doubler.twice(2);" in planted
    assert planted.rstrip().endswith(");") and "assertEquals(" in planted.splitlines()[-1]


PARAMETRIZED_FILE = textwrap.dedent(
    """\
    import pytest


    def double(value):
        return value * 2


    @pytest.mark.parametrize(
        "value, expected",
        [pytest.param(2, 4, id="two"), pytest.param(3, 6, id="three")],
    )
    def test_double(value, expected):
        assert double(value) == expected


    def test_double_of_zero():
        assert double(0) == 0
    """
)


def test_a_parametrized_test_is_repeated_with_its_cases_and_each_case_fails(
    tmp_path: Path,
) -> None:
    text, canary = _plant_one(
        "tests/test_double.py", PARAMETRIZED_FILE, "fail", prefer=["test_double"]
    )
    assert canary.sibling == "test_double"
    assert (
        '    [pytest.param(2, 4, id="two"), pytest.param(3, 6, id="three")],\n)\n'
        f"def {canary.name}(value, expected):\n    assert double(value) == expected\n" in text
    )
    (tmp_path / "test_double.py").write_text(text)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-rA", "-p", "no:cacheprovider", "test_double.py"],
        capture_output=True, text=True, cwd=tmp_path, timeout=600,
    )  # fmt: skip
    statuses = get_parser("pytest")(done.stdout).statuses
    planted = {k: v for k, v in statuses.items() if canary.name in k}
    assert len(planted) == 2 and set(planted.values()) == {TestStatus.FAILED}, done.stdout
    parsed = get_parser("pytest")(done.stdout)
    canary_record = Canary("test_double.py", canary.name, "fail", "test_double")
    records, ids = check_canaries([canary_record], parsed.statuses)
    assert ids == set(planted) and records[0].outcome is CanaryOutcome.AS_PLANTED
    # Taken out of the results, each failing case still counts for the summary check.
    assert parsed.reported is not None and parsed.reported.failed == 2
    take_out_canaries([canary_record], parsed)
    assert not set(parsed.statuses) & ids
    assert parsed.summary_disagreement() is None


def test_parametrize_with_marks_or_fixtures_is_not_repeated() -> None:
    for variant in (
        PARAMETRIZED_FILE.replace('id="three")', 'id="three", marks=pytest.mark.xfail)'),
        PARAMETRIZED_FILE.replace(
            "def test_double(value, expected):", "def test_double(value, expected, tmp_path):"
        ),
    ):
        text, canary = _plant_one("tests/test_double.py", variant, "fail", prefer=["test_double"])
        assert f"def {canary.name}():" in text
