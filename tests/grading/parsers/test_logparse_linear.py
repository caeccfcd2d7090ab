"""Adversarial inputs must stay fast: no catastrophic regexes, no quadratic rescans.

Each input is ~60 kB; a linear parser needs milliseconds, a quadratic one seconds.
The bound is on this process's CPU time, which other work on a loaded machine does not
inflate the way it inflates wall-clock time; it is some 30 times the slowest parser's need.
"""

from __future__ import annotations

import time

import pytest

from polybench.grading.parsers import known_parsers, registered_parsers

N = 20_000
PATHOLOGICAL = {
    "equals": "=" * (3 * N) + "x",
    "colons": "a" + "::" * N + " PASSED",
    "brackets": "t.py::x[" + "]" * (3 * N),
    "bracket_dashes": "FAILED t.py::x[" + "] - " * N,
    "angles": "<testsuite " + "<" * (3 * N),
    "open_attribute": '<?xml ?><testsuite><testcase name="' + "a" * (3 * N),
    "attributes": "<testsuite>" + '<testcase a="1" ' * (N // 4),
    "parens": "test_x (" + "(" * (3 * N),
    "close_parens": "test_x (a.b) (" + ")" * (3 * N),
    "json_brackets": '{"stats":' + "[" * N,
    "json_bad_items": '{"testResults":[' + '{"name":"x",' * (N // 4),
    "json_open_errs": '{"stats":{},"tests":[' + '{"fullTitle":"x","err":{' * (N // 8),
    "json_many_reports": '{"numFailedTests":1,"numTotalTests":2,' * (N // 8),
    "json_open_strings": '{"stats": "' * (N // 4),
    "hashes": "ok 1 " + "# " * N,
    "indent": " " * (3 * N) + "ok 1 - x",
    "subtests": "# Subtest: x\n" * (N // 4) + "ok 1 - y\n",
    "tree": "\u2502  " * N + "\u251c\u2500 x \u2714",
    "durations": "\u2714 " + "(1ms) " * (N // 2),
    "arrows": " \u2713 a" + " > " * N,
    "cdata": "<?xml ?><testsuite>" + "<![CDATA[" * (N // 2),
    "declarations": "<?xml " * (N // 2),
}


@pytest.mark.parametrize("name", known_parsers())
def test_pathological_inputs_are_linear(name: str) -> None:
    parser = registered_parsers()[name]
    for case, text in PATHOLOGICAL.items():
        start = time.process_time()
        parser(text)
        cpu = time.process_time() - start
        assert cpu < 2.0, f"{name} took {cpu:.2f}s of CPU on {case}"


def _nested_yaml_staircase(levels: int) -> str:
    """Subtests nested ever deeper, each test line followed by a YAML block's "---" and no
    "...": a reader that looks for each block's end through the lines after it reads the
    log once per level."""
    lines = ["TAP version 13", "# Subtest: s"]
    for level in range(levels):
        lines += [" " * (2 * level) + "ok 1 - x", " " * (2 * level + 2) + "---"]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("name", ["tap", "tap_raw", "mocha_json_or_tap"])
def test_unclosed_yaml_blocks_nested_ever_deeper_are_linear(name: str) -> None:
    text = _nested_yaml_staircase(1400)  # ~4 MB
    parser = registered_parsers()[name]
    start = time.process_time()
    parser(text)
    cpu = time.process_time() - start
    assert cpu < 2.0, f"{name} took {cpu:.2f}s of CPU on unclosed YAML blocks"
