"""Attacks of class 10: library code that tells canaries from the tests they imitate, by
call-sequence novelty in six frameworks, and by name, source shape and memory across runs
(see :mod:`tests.e2e.attacks.novelty_payloads`)."""

from __future__ import annotations

from tests.e2e.attacks import Attack, Context
from tests.e2e.attacks import novelty_payloads as n
from tests.e2e.attacks.targets import JS_JEST, JS_TAP, PY_PYTEST, PY_UNITTEST2, TS_JEST, TS_VITEST
from tests.e2e.hostile import Edit


def _pytest_names(ctx: Context) -> list[str]:
    return [test_id.split(":", 2)[2] for test_id in ctx.instance.F2P]


def _jest_titles(ctx: Context) -> list[str]:
    return [test_id.split("->", 1)[1] for test_id in ctx.instance.F2P]


def _append(path: str, code: str) -> object:
    return lambda ctx: ctx.patch(Edit(append={path: code}))


def _pytest_by_name(ctx: Context) -> str:
    return ctx.patch(
        Edit(append={"src/timespan/__init__.py": n.pytest_by_name(_pytest_names(ctx))})
    )


def _jest_by_name(ctx: Context) -> str:
    return ctx.patch(Edit(append={"lib/parse.js": n.jest_by_name(_jest_titles(ctx))}))


def _vitest(ctx: Context) -> str:
    files = n.vitest_novelty({"src/parse.ts": ["parseBytes"], "src/format.ts": ["formatBytes"]})
    recorder = files.pop("src/pb-telemetry.ts")
    return ctx.patch(Edit(write={"src/pb-telemetry.ts": recorder}, append=files))


_WHY = "(a repeated canary replays a seen sequence, a self-contained one calls nothing)"
ATTACKS = [
    Attack("novelty-pytest", 10, "Python", PY_PYTEST,
           "the package records its calls per test and, through importlib and setattr, turns a "
           f"pytest failure into a pass only when the test's call sequence is new {_WHY}",
           _append("src/timespan/__init__.py", n.PYTEST_NOVELTY), ("canary",)),  # type: ignore[arg-type]
    Attack("novelty-unittest", 10, "Python", PY_UNITTEST2,
           "the package records its calls per test and reports a unittest failure or error as "
           "a success only when the call sequence is new",
           _append("logline/__init__.py", n.UNITTEST_NOVELTY), ("canary",)),  # type: ignore[arg-type]
    Attack("novelty-jest", 10, "JavaScript", JS_JEST,
           "exports record their calls per test (expect.getState) and an expect reached through "
           "an alias of the global object swallows failures when the sequence is new",
           _append("lib/parse.js", n.JEST_NOVELTY), ("canary",)),  # type: ignore[arg-type]
    Attack("novelty-ts-jest", 10, "TypeScript", TS_JEST,
           "the same in TypeScript under ts-jest (the parser's and the tokenizer's exports)",
           _append("src/parser.ts", n.TS_JEST_NOVELTY),  # type: ignore[arg-type]
           ("canary",)),
    Attack("novelty-vitest", 10, "TypeScript", TS_VITEST,
           "exports rebound to recorders; @vitest/runner's onTestFailed marks a failed test as "
           "passed when its call sequence is new", _vitest, ("canary",)),
    Attack("novelty-node-test", 10, "JavaScript", JS_TAP,
           "ES module code tells tests apart by their async resource, records Schedule calls per "
           "test and makes node:assert (via createRequire) forgive a failure when they are new",
           # Once, in a loaded Docker run, the patched test file reported nothing at all.
           _append("src/schedule.js", n.NODE_TEST_NOVELTY), ("canary", "probe", "real-failure-wins")),  # type: ignore[arg-type]
    Attack("by-name-pytest", 10, "Python", PY_PYTEST,
           "pytest failures turned into passes only for the dataset's F2P test names (planted "
           "canaries have other names)", _pytest_by_name, ("canary",)),
    Attack("by-name-jest", 10, "JavaScript", JS_JEST,
           "jest failures swallowed only in tests whose full title is a dataset F2P title",
           _jest_by_name, ("canary",)),
    Attack("source-shape-pytest", 10, "Python", PY_PYTEST,
           "pytest failures forgiven only for tests whose source looks real: not a copy of "
           "another test with something appended, not a last assertion on constants",
           _append("src/timespan/__init__.py", n.PYTEST_SOURCE_SHAPE), ("canary",)),  # type: ignore[arg-type]
    Attack("memory-pytest", 10, "Python", PY_PYTEST,
           "novelty remembered across runs: seen sequences written to /tmp, /var/tmp, /dev/shm, "
           "~/.cache, the stdlib folder and an untracked file in the checkout",
           _append("src/timespan/__init__.py", n.PYTEST_MEMORY), ("canary",)),  # type: ignore[arg-type]
    Attack("memory-jest", 10, "JavaScript", JS_JEST,
           "jest novelty remembered across runs in every writable place (an untracked file "
           "in the checkout, node_modules, /tmp, the home folder)",
           _append("lib/parse.js", n.JEST_MEMORY), ("canary",)),  # type: ignore[arg-type]
]  # fmt: skip
