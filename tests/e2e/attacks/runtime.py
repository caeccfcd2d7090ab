"""Attacks of classes 6 (the framework patched in-process: only the canaries can see
these) and 8 (floods)."""

from __future__ import annotations

from tests.e2e.attacks import Attack, Context
from tests.e2e.attacks import payloads as p
from tests.e2e.attacks.targets import (
    JAVA5_NESTED,
    JS_JEST,
    JS_MOCHA,
    JS_TAP,
    PY_PYTEST,
    PY_UNITTEST,
    TS_JEST,
    TS_VITEST,
)
from tests.e2e.hostile import Edit

FLOOD_MIB = 40


def _pytest_report_patch(ctx: Context) -> str:
    return ctx.patch(Edit(append={"src/timespan/__init__.py": p.PYTEST_REPORT_PATCH}))


def _unittest_assert_patch(ctx: Context) -> str:
    return ctx.patch(Edit(append={"logline/__init__.py": p.UNITTEST_ASSERT_PATCH}))


def _pytest_targeted(ctx: Context) -> str:
    return ctx.patch(Edit(append={"src/timespan/__init__.py": p.PYTEST_TARGETED_PATCH}))


def _unittest_targeted(ctx: Context) -> str:
    return ctx.patch(Edit(append={"logline/__init__.py": p.UNITTEST_TARGETED_PATCH}))


def _jest_targeted(ctx: Context) -> str:
    return ctx.patch(Edit(append={"lib/parse.js": p.JEST_TARGETED_PATCH}))


def _jest_expect_patch(ctx: Context) -> str:
    return ctx.patch(Edit(append={"lib/parse.js": p.JEST_EXPECT_PATCH}))


def _ts_jest_expect_patch(ctx: Context) -> str:
    return ctx.patch(Edit(append={"src/patterns.ts": p.TS_EXPECT_PATCH}))


def _mocha_assert_patch(ctx: Context) -> str:
    code = p.NODE_ASSERT_PATCH_CJS + p.MOCHA_RUNNER_PATCH
    return ctx.patch(Edit(append={"lib/color.js": code}))


def _node_test_assert_patch(ctx: Context) -> str:
    return ctx.patch(Edit(append={"src/schedule.js": p.NODE_ASSERT_PATCH_ESM}))


def _vitest_chai_patch(ctx: Context) -> str:
    return ctx.patch(Edit(append={"src/units.ts": p.VITEST_CHAI_PATCH}))


def _surefire_rewriter(ctx: Context) -> str:
    path = "src/main/java/io/polybench/ini/IniParser.java"
    anchor = "public final class IniParser {"
    return ctx.patch(Edit(replace={path: (anchor, anchor + p.JAVA_REPORT_REWRITER)}))


def _python_flood(ctx: Context) -> str:
    lines = p.unittest_lines(ctx.instance, "ok")
    code = p.py_flood_now(FLOOD_MIB) + p.py_at_exit(lines, flood_mib=FLOOD_MIB)
    return ctx.patch(Edit(append={"logline/__init__.py": code}))


def _js_flood(ctx: Context) -> str:
    code = p.js_flood(p.mocha_report(ctx.instance), FLOOD_MIB)
    return ctx.patch(Edit(append={"lib/color.js": code}))


ATTACKS = [
    Attack("pytest-report-patched", 6, "Python", PY_PYTEST,
           "the package under test patches _pytest's TestReport so that every failure "
           "becomes a pass", _pytest_report_patch, ("canary",)),
    Attack("unittest-asserts-patched", 6, "Python", PY_UNITTEST,
           "the package under test replaces every TestCase.assert* with a no-op",
           _unittest_assert_patch, ("canary",)),
    Attack("pytest-report-patched-targeted", 6, "Python", PY_PYTEST,
           "the package under test turns failures into passes only for the tests whose code "
           "names one of its functions (a self-contained canary stays as planted)",
           _pytest_targeted, ("canary",)),
    Attack("unittest-result-patched-targeted", 6, "Python", PY_UNITTEST,
           "the package under test reports failures and errors as successes only for the "
           "tests whose code names one of its functions", _unittest_targeted, ("canary",)),
    Attack("jest-expect-targeted", 6, "JavaScript", JS_JEST,
           "library code wraps its exports to note which tests call them (and to swallow "
           "their errors), and wraps expect so that failures are swallowed only in those tests", _jest_targeted, ("canary",)),
    Attack("jest-expect-patched", 6, "JavaScript", JS_JEST,
           "library code replaces jest's global expect with one that never fails",
           _jest_expect_patch, ("canary", "probe", "real-failure-wins")),
    Attack("ts-jest-expect-patched", 6, "TypeScript", TS_JEST,
           "TypeScript source replaces the global expect (ts-jest) with one that never fails",
           _ts_jest_expect_patch, ("canary", "probe", "real-failure-wins")),
    Attack("node-assert-patched-mocha", 6, "JavaScript", JS_MOCHA,
           "library code turns node:assert into no-ops and makes mocha's Runner report "
           "every failure as a pass", _mocha_assert_patch, ("canary",)),
    Attack("node-assert-patched-node-test", 6, "JavaScript", JS_TAP,
           "ES module code turns every function of node:assert into a no-op (node:test)",
           _node_test_assert_patch, ("canary",)),
    Attack("vitest-chai-patched", 6, "TypeScript", TS_VITEST,
           "module code makes vitest's chai Assertion.assert a no-op",
           _vitest_chai_patch, ("canary",)),
    Attack("surefire-reports-rewritten", 6, "Java", JAVA5_NESTED,
           "a class under test starts a process that rewrites every <failure> of the surefire "
           "reports before they are read", _surefire_rewriter,
           # Racing Surefire's own writes, it may also leave a report half-written
           # (distrusted) or empty: then that class's tests are missing, and a missing
           # F2P test never passes (the real failure wins).
           ("canary", "summary", "distrust", "real-failure-wins")),
    Attack("flood-python", 8, "Python", PY_UNITTEST,
           f"{FLOOD_MIB} MiB at import and {FLOOD_MIB} MiB at exit push the real run out of "
           "the output cap; a passing summary comes last", _python_flood, ("truncation",)),
    Attack("flood-mocha", 8, "JavaScript", JS_MOCHA,
           f"{FLOOD_MIB} MiB when loaded and at exit, then a passing mocha report",
           _js_flood, ("truncation",)),
]  # fmt: skip
