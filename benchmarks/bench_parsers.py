"""Throughput of the log parsers on small real logs and on large synthetic ones.

Small logs: every log of the parser conformance corpus (tests/data/parser_corpus), each
parsed by the parser it belongs to, repeated until about ``--small-mb`` MB per round and
the best of ``--rounds`` rounds kept; totals per parser family and overall.

Large logs: for each parser a log of about ``--size-mb`` megabytes is generated in its
format (unique test ids, a few failures and skips, some noise lines), then parsed once.

Times are CPU time of this process (the machine may be shared), the parsers taking turns.
Both are given as ratios of our MB/s to a baseline timed in the same run on the same
text: the official harness's own parser (its code, run unchanged from a checkout given
with ``--official DIR``; see ``official_harness.py``) where it reads the format, and a
plain ``str.splitlines()``. Without the checkout the official columns stay empty and the
benchmark says so. Results go to benchmarks/results/parsers.md.

    python benchmarks/bench_parsers.py --official ../SWE-PolyBench   # corpus, ~50 MB each
    python benchmarks/bench_parsers.py --official DIR --size-mb 20 --parsers pytest tap
    python benchmarks/bench_parsers.py --official DIR --skip-large
"""

from __future__ import annotations

import argparse
import gc
import json
import resource
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import official_harness
from official_harness import OfficialMissing, OfficialParsers

from polybench.grading.parsers import get_parser, known_parsers

Block = Callable[[int], str]
"""Renders the ``i``-th chunk of a log (many tests)."""

PER_BLOCK = 50
ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "data" / "parser_corpus"
RESULTS = ROOT / "benchmarks" / "results" / "parsers.md"


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
    if _status(k) == "skipped":
        del entry["duration"]  # mocha reports no duration for a pending test
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

        if with_status:  # material-ui's reporter: every test once, with its status
            tail = '\n  ],\n  "pending": [],\n  "failures": [],\n  "passes": []\n}\n'
            return _build(size, "> mocha --reporter json\n" + head, block, tail, ",\n    ")
        # Mocha's own JSON reporter lists every test in ``tests`` and again in the list
        # of its outcome; the tests take about half the report.
        text, count = _build(size // 2, "> mocha --reporter json\n" + head, block, "", ",\n    ")
        lists = {"skipped": "pending", "failed": "failures", "passed": "passes"}
        entries: dict[str, list[str]] = {key: [] for key in lists.values()}
        for k in range(count):
            entries[lists[_status(k)]].append(_mocha_test(k, False))
        tail = "\n  ],\n" + ",\n".join(
            f'  "{key}": [\n    ' + ",\n    ".join(items) + "\n  ]"
            for key, items in entries.items()
        )
        return text + tail + "\n}\n", count
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


TRAILER = "Container exited with status code: 0\n"
"""The line the official harness appends to every test log it parses; its JSON parsers
cut the report at it (without it they read nothing)."""


def with_trailer(text: str) -> str:
    """``text`` ending as a log of the official harness does (both parsers read this)."""
    return (
        text if text.endswith(TRAILER) else text + ("" if text.endswith("\n") else "\n") + TRAILER
    )


def _line_split(text: str) -> object:
    return text.splitlines()


# --- Timing ---------------------------------------------------------------------------


def _best_per_call(
    funcs: list[Callable[[str], object]], text: str, calls: int, rounds: int
) -> list[float]:
    """CPU seconds per call of each ``func(text)``: the best of ``rounds`` rounds of
    ``calls`` calls, the functions taking turns in every round so that load on the machine
    weighs on all of them alike."""
    best = [float("inf")] * len(funcs)
    for _ in range(rounds):
        for index, func in enumerate(funcs):
            gc.collect()
            start = time.process_time()
            for _ in range(calls):
                func(text)
            best[index] = min(best[index], (time.process_time() - start) / calls)
    return best


@dataclass
class Tally:
    """Bytes parsed and CPU seconds spent by our parser and by the baselines."""

    megabytes: float = 0.0
    ours: float = 0.0
    split: float = 0.0
    # The official parser, over the logs of formats it reads (MB, its seconds, ours).
    official_mb: float = 0.0
    official: float = 0.0
    ours_on_official: float = 0.0

    def add(self, other: Tally) -> None:
        """Accumulate another tally."""
        self.megabytes += other.megabytes
        self.ours += other.ours
        self.split += other.split
        self.official_mb += other.official_mb
        self.official += other.official
        self.ours_on_official += other.ours_on_official

    def vs_official(self) -> float | None:
        """Our MB/s over the official parser's MB/s (above 1 is faster), or None."""
        if not self.official:
            return None
        return self.official / self.ours_on_official

    def vs_split(self) -> float:
        """Our MB/s over a plain line split's MB/s."""
        return self.split / self.ours


def _official_tests(result: object) -> int:
    """Tests the official parser found (passed + failed lists)."""
    if not isinstance(result, dict):
        return 0
    return len(result.get("passed_tests", [])) + len(result.get("failed_tests", []))


@dataclass
class Baselines:
    """The official parsers (None when no checkout was given)."""

    official: OfficialParsers | None

    def function(self, name: str, stem: str = "") -> tuple[str, Callable[[str], object] | None]:
        """The official class (name, parse function) for a log of parser ``name``."""
        if self.official is None:
            return "-", None
        class_name = self.official.class_for(name, self.official.repo_of_log(stem))
        if class_name is None:
            return "none", None
        return class_name, self.official.parse_function(class_name)


def _measure_text(
    name: str, text: str, calls: int, rounds: int, official: Callable[[str], object] | None
) -> Tally:
    megabytes = len(text.encode("utf-8", "surrogatepass")) / 1e6
    funcs = [get_parser(name), _line_split] + ([official] if official is not None else [])
    ours, split, *rest = _best_per_call(funcs, text, calls, rounds)
    tally = Tally(megabytes, ours, split)
    if rest:
        tally.official_mb, tally.official, tally.ours_on_official = megabytes, rest[0], ours
    return tally


def _ratio(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}x"


def small_logs(
    names: list[str] | None, target_mb: float, rounds: int, baselines: Baselines
) -> list[str]:
    """Throughput on the real corpus logs, per parser family and overall (table lines).

    A log in which the official parser finds no test (a format it does not read that
    way, or a log built to mislead it) is timed for us but left out of the comparison:
    a parser that gives up at once is no baseline."""
    families: dict[str, Tally] = {}
    counts: dict[str, int] = {}
    compared: dict[str, int] = {}
    classes: dict[str, set[str]] = {}
    for path in sorted(CORPUS.glob("*/*.log")):
        name = path.parent.name
        if names and name not in names:
            continue
        text = with_trailer(path.read_text(encoding="utf-8", errors="surrogateescape"))
        calls = max(1, int(target_mb * 1e6 / max(len(text), 1)))
        class_name, official = baselines.function(name, path.stem)
        if official is not None and _official_tests(official(text)) == 0:
            official = None
        if official is not None:
            classes.setdefault(name, set()).add(class_name)
            compared[name] = compared.get(name, 0) + 1
        families.setdefault(name, Tally()).add(_measure_text(name, text, calls, rounds, official))
        counts[name] = counts.get(name, 0) + 1
    lines = [
        "| parser | logs | KB | our MB/s | official class | logs compared "
        "| our speed / official's | our speed / str.splitlines' |",
        "|---|---:|---:|---:|---|---:|---:|---:|",
    ]
    overall = Tally()
    for name, tally in families.items():
        overall.add(tally)
        lines.append(
            f"| {name} | {counts[name]} | {tally.megabytes * 1e3:.0f} | "
            f"{tally.megabytes / tally.ours:.1f} | "
            f"{', '.join(sorted(classes.get(name, ()))) or '-'}"
            f" | {compared.get(name, 0)} | {_ratio(tally.vs_official())} | "
            f"{_ratio(tally.vs_split())} |"
        )
    lines.append(
        f"| **overall** | {sum(counts.values())} | {overall.megabytes * 1e3:.0f} | "
        f"{overall.megabytes / overall.ours:.1f} | | {sum(compared.values())} | "
        f"{_ratio(overall.vs_official())} | {_ratio(overall.vs_split())} |"
    )
    return lines


def _measure_large(
    name: str, size: int, rounds: int, official: Callable[[str], object] | None
) -> tuple[Tally, int, int, int | None]:
    """Time one synthetic log of ``name``: the tally, tests we found, tests expected and
    tests the official parser found (None without one)."""
    text, expected = generate(name, size)
    text = with_trailer(text)
    megabytes = len(text.encode("utf-8", "surrogatepass")) / 1e6
    parser = get_parser(name)
    found = len(parser(text).statuses)
    theirs = None if official is None else _official_tests(official(text))
    tally = _measure_text(name, text, 1, rounds, official)
    tally.megabytes = megabytes
    return tally, found, expected, theirs


def large_logs(names: list[str], size: int, rounds: int, baselines: Baselines) -> list[str]:
    """Throughput on one large synthetic log per parser (table lines)."""
    lines = [
        "| parser | MB | our MB/s | official class | our speed / official's "
        "| our speed / str.splitlines' | tests "
        "(ours / official) |",
        "|---|---:|---:|---|---:|---:|---:|",
    ]
    overall = Tally()
    for name in names:
        class_name, official = baselines.function(name)
        tally, found, expected, theirs = _measure_large(name, size, rounds, official)
        gc.collect()
        overall.add(tally)
        warn = "" if found == expected else f" (expected {expected})"
        lines.append(
            f"| {name} | {tally.megabytes:.1f} | {tally.megabytes / tally.ours:.1f} | "
            f"{class_name} | {_ratio(tally.vs_official())} | {_ratio(tally.vs_split())} | "
            f"{found}{warn} / {'-' if theirs is None else theirs} |"
        )
        print(lines[-1], flush=True)
    lines.append(
        f"| **overall** | {overall.megabytes:.1f} | {overall.megabytes / overall.ours:.1f} | | "
        f"{_ratio(overall.vs_official())} | {_ratio(overall.vs_split())} | |"
    )
    return lines


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark, print both tables and write them to ``--output``."""
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("--size-mb", type=float, default=50.0, help="large log size per format")
    args.add_argument("--parsers", nargs="*", default=None, help="subset of parser names")
    args.add_argument("--skip-large", action="store_true", help="only the corpus logs")
    args.add_argument("--skip-small", action="store_true", help="only the synthetic logs")
    args.add_argument(
        "--small-mb", type=float, default=1.0, help="MB parsed per corpus log and round"
    )
    args.add_argument("--rounds", type=int, default=5, help="rounds per corpus log (best kept)")
    args.add_argument("--large-rounds", type=int, default=3, help="rounds per large log")
    args.add_argument("--output", type=Path, default=RESULTS, help="markdown file to write")
    official_harness.add_argument(args)
    options = args.parse_args(argv)
    names = options.parsers or known_parsers()
    try:
        baselines = Baselines(OfficialParsers(options.official))
        where = (
            f"Official parsers: {options.official} at commit {baselines.official.commit}"
            if baselines.official
            else ""
        )
    except OfficialMissing as exc:
        print(f"NOTE: {exc}; the official-speed columns are left empty", file=sys.stderr)
        baselines = Baselines(None)
        where = f"Official parsers: ABSENT ({exc}); no comparison with them"
    command = " ".join(["python benchmarks/bench_parsers.py", *(argv or sys.argv[1:])])
    where += f"; polybench at {official_harness.project_commit(ROOT)}. Command: `{command}`"
    print(where, flush=True)
    report = ["# Parser throughput", "", where, ""]
    if not options.skip_small:
        small = small_logs(options.parsers, options.small_mb, options.rounds, baselines)
        report += ["## Small logs: the parser corpus", "", *small, ""]
        print("\n".join(small), flush=True)
    if not options.skip_large:
        print(flush=True)
        large = large_logs(names, int(options.size_mb * 1e6), options.large_rounds, baselines)
        report += [f"## Large logs: synthetic, ~{options.size_mb:g} MB each", "", *large, ""]
        print(large[-1])
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak resident memory: {peak:.0f} MB")
    report.append(
        "CPU time of this process, best of the rounds, each parser taking its turn in "
        "every round. Ratios are our MB/s over the baseline's MB/s on the same text "
        "(above 1x: ours is faster). 'our speed / official's': the official harness's own "
        "parser class (named in the table; for a corpus log named after an official "
        "repository, that repository's class), run unchanged from the checkout given with "
        "--official; 'none' where the official harness reads no such format; a corpus log "
        "in which the official parser finds no test is left out of that ratio ('logs "
        "compared'). 'our speed / str.splitlines'': a plain str.splitlines() of the same "
        "text."
    )
    options.output.parent.mkdir(parents=True, exist_ok=True)
    options.output.write_text("\n".join(report) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
