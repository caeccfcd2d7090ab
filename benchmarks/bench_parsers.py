"""Throughput of every registered log parser on large synthetic logs.

For each parser a log of about ``--size-mb`` megabytes is generated in that parser's
format (unique test ids, a few failures and skips, some noise lines), then parsed. The
baseline is a plain ``str.splitlines()`` pass over the same text, timed in the same run;
``ratio`` is parser time / baseline time.

    python benchmarks/bench_parsers.py                 # ~200 MB per format
    python benchmarks/bench_parsers.py --size-mb 20 --parsers pytest tap
"""

from __future__ import annotations

import argparse
import gc
import json
import resource
import sys
import time
from collections.abc import Callable, Iterator

from polybench.grading.parsers import get_parser, known_parsers

Block = Callable[[int], str]
"""Renders the ``i``-th chunk of a log (many tests)."""

PER_BLOCK = 50


def _status(i: int) -> str:
    return "failed" if i % 97 == 0 else ("skipped" if i % 89 == 0 else "passed")


def _pytest(i: int) -> str:
    word = {"passed": "PASSED", "failed": "FAILED", "skipped": "SKIPPED"}
    lines = []
    for k in range(i * PER_BLOCK, (i + 1) * PER_BLOCK):
        node = f"tests/unit/test_mod{k // 1000}.py::TestCase{k % 7}::test_case_{k}[param {k}-x]"
        lines.append(f"{node} {word[_status(k)]}{' ' * 10}[ 42%]")
        if k % 13 == 0:
            lines.append("INFO some captured log line that is not a result")
    return "\n".join(lines) + "\n"


def _pytest_summary(i: int) -> str:
    word = {"passed": "PASSED", "failed": "FAILED", "skipped": "SKIPPED"}
    return "".join(
        f"{word[_status(k)]} tests/unit/test_mod{k // 1000}.py::TestCase{k % 7}::"
        f"test_case_{k}[param {k}-x]\n"
        for k in range(i * PER_BLOCK, (i + 1) * PER_BLOCK)
        if _status(k) != "skipped"
    )


def _unittest(i: int) -> str:
    word = {"passed": "ok", "failed": "FAIL", "skipped": "skipped 'slow'"}
    return "".join(
        f"test_case_{k} (pkg.mod{k // 1000}.TestCase{k % 7}.test_case_{k}) ... {word[_status(k)]}\n"
        for k in range(i * PER_BLOCK, (i + 1) * PER_BLOCK)
    )


def _jest_suite(i: int, *, vitest: bool = False) -> str:
    status = {"passed": "passed", "failed": "failed", "skipped": "pending"}
    assertions = [
        {
            "ancestorTitles": ["suite", f"group {k % 5}"],
            "duration": 3,
            "failureMessages": ["Error: expected 1 to be 2\n    at x.js:1:1"]
            if _status(k) == "failed"
            else [],
            "fullName": f"suite group {k % 5} does thing {k}",
            "status": "skipped" if vitest and _status(k) == "skipped" else status[_status(k)],
            "title": f"does thing {k}",
        }
        for k in range(i * PER_BLOCK, (i + 1) * PER_BLOCK)
    ]
    suite = {
        "assertionResults": assertions,
        "endTime": 2,
        "message": "",
        "name": f"/testbed/test/unit/file{i}.test.ts",
        "startTime": 1,
        "status": "passed",
        "summary": "",
    }
    return json.dumps(suite, separators=(",", ":"))


def _mocha_test(k: int, with_status: bool) -> str:
    entry: dict[str, object] = {
        "title": f"does thing {k}",
        "fullTitle": f"Suite {k // 100} does thing {k}",
        "file": f"/testbed/test/file{k // 100}.spec.js",
        "duration": 2,
        "currentRetry": 0,
        "err": {"message": "boom", "stack": "Error: boom"} if _status(k) == "failed" else {},
    }
    if with_status:
        entry["status"] = {"passed": "passed", "failed": "failed", "skipped": "pending"}[_status(k)]
    return json.dumps(entry, indent=2).replace("\n", "\n    ")


def _tap(i: int) -> str:
    out = []
    for k in range(i * PER_BLOCK, (i + 1) * PER_BLOCK):
        status = _status(k)
        prefix = "not ok" if status == "failed" else "ok"
        skip = " # SKIP later" if status == "skipped" else ""
        out.append(f"{prefix} {k + 1} - Core > Module{k // 100} > does thing {k}{skip}\n")
        if status == "failed":
            out.append("  ---\n  message: boom\n  severity: failed\n  ...\n")
    return "".join(out)


def _junit_xml(i: int) -> str:
    cases = []
    for k in range(i * PER_BLOCK, (i + 1) * PER_BLOCK):
        body = {
            "passed": "/>",
            "failed": '><failure message="x"><![CDATA[java.lang.AssertionError: <x>\n'
            "\tat com.example.Calc.test(Calc.java:1)]]></failure></testcase>",
            "skipped": "><skipped/></testcase>",
        }[_status(k)]
        cases.append(
            f'  <testcase name="testThing{k}" classname="com.example.pkg{i}.CalcTest" '
            f'time="0.001"{body}\n'
        )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<testsuite name="com.example.pkg{i}.CalcTest" tests="{PER_BLOCK}">\n'
        '  <properties>\n    <property name="java.version" value="17"/>\n  </properties>\n'
        + "".join(cases)
        + "</testsuite>\n"
    )


def _bazel(i: int) -> str:
    word = {
        "passed": "PASSED in 1.2s",
        "failed": "FAILED in 3 out of 3 in 9s",
        "skipped": "NO STATUS",
    }
    return "".join(
        f"//packages/pkg{k // 100}/test/suite{k}:test{' ' * 30}{word[_status(k)]}\n"
        "INFO: From Testing //packages/x:y: some output\n"
        for k in range(i * PER_BLOCK, (i + 1) * PER_BLOCK)
    )


def _jest_verbose(i: int) -> str:
    mark = {"passed": "\u2713", "failed": "\u2715", "skipped": "\u25cb skipped"}
    lines = [f"PASS test/unit/file{i}.test.ts", "  suite"]
    for k in range(i * PER_BLOCK, (i + 1) * PER_BLOCK):
        lines.append(f"    {mark[_status(k)]} does thing {k} (3 ms)")
    return "\n".join(lines) + "\n\n"


def _mocha_spec(i: int) -> str:
    lines = [f"  Suite {i}"]
    for n, k in enumerate(range(i * PER_BLOCK, (i + 1) * PER_BLOCK)):
        status = _status(k)
        mark = {"passed": "\u2714", "failed": f"{n + 1})", "skipped": "-"}[status]
        lines.append(f"    {mark} does thing {k}")
    return "\n".join(lines) + "\n\n"


def _vitest_verbose(i: int) -> str:
    mark = {"passed": "\u2713", "failed": "\u00d7", "skipped": "\u2193"}
    return "".join(
        f" {mark[_status(k)]} test/file{i}.test.ts > suite > does thing {k} 3ms\n"
        for k in range(i * PER_BLOCK, (i + 1) * PER_BLOCK)
    )


def _node_spec(i: int) -> str:
    mark = {"passed": "\u2714", "failed": "\u2716", "skipped": "\ufe63"}
    lines = [f"\u25b6 suite {i}"]
    for k in range(i * PER_BLOCK, (i + 1) * PER_BLOCK):
        skip = " # SKIP" if _status(k) == "skipped" else ""
        lines.append(f"  {mark[_status(k)]} does thing {k} (0.51ms){skip}")
    lines.append(f"\u2714 suite {i} (25.1ms)")
    return "\n".join(lines) + "\n"


def _junit_console(i: int) -> str:
    mark = {"passed": "\u2714", "failed": "\u2718 expected: <1>", "skipped": "\u21b7 later"}
    lines = [f"\u2502  \u251c\u2500 CalcTest{i} \u2714"]
    for k in range(i * PER_BLOCK, (i + 1) * PER_BLOCK):
        lines.append(f"\u2502  \u2502  \u251c\u2500 testThing{k}() {mark[_status(k)]}")
    return "\n".join(lines) + "\n"


def _build(size: int, head: str, block: Block, tail: str, sep: str = "") -> tuple[str, int]:
    parts = [head]
    total = len(head) + len(tail)
    count = 0
    while total < size:
        chunk = block(count)
        parts.append(chunk if count == 0 or not sep else sep + chunk)
        total += len(chunk) + len(sep)
        count += 1
    parts.append(tail)
    return "".join(parts), count * PER_BLOCK


def generate(name: str, size: int) -> tuple[str, int]:
    """A log of about ``size`` characters in the format of parser ``name``."""
    session = "=" * 29 + " test session starts " + "=" * 30 + "\ncollected many items\n\n"
    summary = "=" * 27 + " short test summary info " + "=" * 28 + "\n"
    if name in ("pytest", "pytest_or_unittest"):
        body, count = _build(size * 3 // 5, session, _pytest, "")
        sums = "".join(_pytest_summary(i) for i in range(count // PER_BLOCK))
        # The official-repository parser also records each test under its official-harness
        # id, which drops parameters with spaces: twice the ids.
        ids = 2 * count if name == "pytest_or_unittest" else count
        return body + summary + sums + "==== done in 1.0s ====\n", ids
    if name == "unittest":
        return _build(size, "", _unittest, "\n" + "-" * 70 + "\nRan many tests in 9s\n")
    if name in ("jest_json", "jest_json_title"):
        head = '{"numFailedTestSuites":1,"numFailedTests":9,"numTotalTests":9,"testResults":['
        return _build(
            size, "$ jest --json\n" + head, _jest_suite, '],"wasInterrupted":false}\n', ","
        )
    if name == "vitest_json":
        head = '{"numTotalTestSuites":9,"numPassedTestSuites":8,"testResults":['
        return _build(size, head, lambda i: _jest_suite(i, vitest=True), "]}\n", ",")
    if name in ("mocha_json", "mocha_json_file", "mocha_json_or_tap"):
        with_status = name == "mocha_json_file"
        head = '{\n  "stats": {\n    "tests": 1\n  },\n  "tests": [\n    '

        def block(i: int) -> str:
            return ",\n    ".join(
                _mocha_test(k, with_status) for k in range(i * PER_BLOCK, (i + 1) * PER_BLOCK)
            )

        tail = '\n  ],\n  "pending": [],\n  "failures": [],\n  "passes": []\n}\n'
        return _build(size, "> mocha --reporter json\n" + head, block, tail, ",\n    ")
    if name in ("tap", "tap_raw"):
        return _build(size, "TAP version 13\n", _tap, "")
    if name == "junit_xml":
        return _build(size, "[INFO] BUILD SUCCESS\n", _junit_xml, "")
    if name == "bazel":
        return _build(size, "INFO: Found many test targets...\n", _bazel, "")
    if name == "jest_verbose":
        return _build(size, "", _jest_verbose, "Test Suites: 1 passed\n")
    if name == "mocha_spec":
        return _build(size, "\n", _mocha_spec, "  9 passing (3s)\n")
    if name == "vitest_verbose":
        return _build(size, " RUN  v4.1.12 /testbed\n\n", _vitest_verbose, "")
    if name == "node_test_spec":
        text, count = _build(size, "", _node_spec, "\u2139 tests 9\n")
        return text, count + count // PER_BLOCK  # each suite is an id too
    if name == "junit_console":
        head = "\u2577\n\u251c\u2500 JUnit Jupiter \u2714\n"
        return _build(size, head, _junit_console, "\nTest run finished after 9 ms\n")
    raise SystemExit(f"no generator for parser {name!r}")


def _timed(func: Callable[[], object]) -> float:
    gc.collect()
    start = time.perf_counter()
    func()
    return time.perf_counter() - start


def _measure(name: str, size: int) -> tuple[str, float, float, float, int, int]:
    text, expected = generate(name, size)
    megabytes = len(text.encode("utf-8", "surrogatepass")) / 1e6
    baseline = _timed(text.splitlines)
    parser = get_parser(name)
    found: list[int] = []
    seconds = _timed(lambda: found.append(len(parser(text).statuses)))
    return name, megabytes, seconds, baseline, found[0], expected


def _rows(names: list[str], size: int) -> Iterator[tuple[str, float, float, float, int, int]]:
    for name in names:
        row = _measure(name, size)
        gc.collect()
        yield row


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print MB/s per parser and the ratio to the baseline."""
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("--size-mb", type=float, default=200.0, help="log size per format")
    args.add_argument("--parsers", nargs="*", default=None, help="subset of parser names")
    options = args.parse_args(argv)
    names = options.parsers or known_parsers()
    size = int(options.size_mb * 1e6)
    print(
        f"{'parser':<20} {'MB':>7} {'seconds':>8} {'MB/s':>8} {'baseline MB/s':>14} "
        f"{'ratio':>6} {'tests':>9}"
    )
    for name, megabytes, seconds, baseline, found, expected in _rows(names, size):
        warn = "" if found == expected else f"  (expected {expected} tests)"
        print(
            f"{name:<20} {megabytes:>7.1f} {seconds:>8.2f} {megabytes / seconds:>8.1f} "
            f"{megabytes / baseline:>14.1f} {seconds / baseline:>6.1f} {found:>9}{warn}",
            flush=True,
        )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak resident memory: {peak:.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
