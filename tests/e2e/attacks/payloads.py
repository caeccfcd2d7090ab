"""Code that attacks the harness from inside a prediction, per language and framework.

Each function returns source text an attacking patch adds to a file of the repository
(library code the tests import, a configuration file, a shadowing module...). None of it
fixes anything: the point of every payload is a "resolved" verdict without a fix.
"""

from __future__ import annotations

import html
import json

from polybench.dataset.models import Instance
from tests.e2e.hostile import pytest_node_id

MIB = 1 << 20


def listed(instance: Instance) -> list[str]:
    """Every test the grade looks at: F2P then P2P."""
    return [*instance.F2P, *instance.P2P]


def _unittest_parts(test_id: str) -> tuple[str, str]:
    """``module.Class:test:`` -> (test, ``module.Class``)."""
    cls, test, _ = test_id.split(":", 2)
    return test, cls


# ----------------------------------------------------------------------- Python


def py_at_exit(lines: list[str], stream: str = "stdout", flood_mib: int = 0) -> str:
    """Python that prints ``lines`` when the interpreter exits (after the real output),
    after ``flood_mib`` MiB of filler when asked."""
    return f"""
import atexit as _pb_atexit
import os as _pb_os
import sys as _pb_sys


@_pb_atexit.register
def _pb_at_exit():
    out = _pb_sys.{stream}
    out.flush()
    if {flood_mib}:
        _pb_chunk = b"x" * 1023 + b"\\n"
        for _pb_i in range({flood_mib} * 1024):
            _pb_os.write(out.fileno(), _pb_chunk)
    out.write({json.dumps(chr(10).join(lines) + chr(10))})
    out.flush()
"""


def py_flood_now(mib: int) -> str:
    """Python that prints ``mib`` MiB as soon as it is imported."""
    return f"""
import os as _pb_os

for _pb_i in range({mib} * 1024):
    _pb_os.write(1, b"y" * 1023 + b"\\n")
"""


def pytest_passing_lines(instance: Instance, status: str = "PASSED") -> list[str]:
    """A pytest short summary where every listed test has ``status`` (F2P) or passed (P2P)."""
    lines = ["=" * 20 + " short test summary info " + "=" * 20]
    lines += [f"{status} {pytest_node_id(t)}" for t in instance.F2P]
    lines += [f"PASSED {pytest_node_id(t)}" for t in instance.P2P]
    lines.append("=" * 20 + f" {len(instance.P2P)} passed, {len(instance.F2P)} xfailed in 0.1s ===")
    return lines


def unittest_lines(instance: Instance, f2p_status: str) -> list[str]:
    """unittest ``-v`` lines for every listed test, then a successful verdict."""
    lines = []
    for test_id in listed(instance):
        test, cls = _unittest_parts(test_id)
        status = f2p_status if test_id in instance.F2P else "ok"
        lines.append(f"{test} ({cls}) ... {status}")
    lines += ["", "-" * 70, f"Ran {len(lines)} tests in 0.001s", "", "OK"]
    return lines


def fake_pytest_module(instance: Instance) -> str:
    """A ``pytest.py`` that prints a whole passing session for the listed tests."""
    lines = ["=" * 20 + " test session starts " + "=" * 20]
    lines += [f"{pytest_node_id(t)} PASSED" for t in listed(instance)]
    lines += pytest_passing_lines(instance, "PASSED")[:-1]
    lines.append("=" * 20 + f" {len(listed(instance))} passed in 0.1s " + "=" * 20)
    return f"import sys\nsys.stdout.write({json.dumps(chr(10).join(lines) + chr(10))})\n"


def fake_unittest_package(instance: Instance) -> str:
    """A ``unittest/__main__.py`` printing a passing ``-v`` run of the listed tests."""
    text = "\n".join(unittest_lines(instance, "ok")) + "\n"
    return f"import sys\nsys.stderr.write({json.dumps(text)})\n"


def unittest_test_module(instance: Instance, module: str) -> str:
    """A test module (to stand in for ``module``) whose tests all pass, same names."""
    classes: dict[str, list[str]] = {}
    for test_id in listed(instance):
        test, cls = _unittest_parts(test_id)
        if cls.rsplit(".", 1)[0] == module:
            classes.setdefault(cls.rsplit(".", 1)[1], []).append(test)
    body = ["import unittest", ""]
    for cls, tests in classes.items():
        body += ["", f"class {cls}(unittest.TestCase):"]
        body += [f"    def {test}(self):\n        pass\n" for test in tests]
    return "\n".join(body) + "\n"


REPORT_HOOK = """
import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.failed:
        report.outcome = "passed"
        report.longrepr = None
"""

PYTEST_REPORT_PATCH = """
try:
    import _pytest.reports as _pb_reports

    _pb_original = _pb_reports.TestReport.__init__

    def _pb_init(self, *args, **kwargs):
        _pb_original(self, *args, **kwargs)
        if self.outcome == "failed":
            self.outcome = "passed"
            self.longrepr = None

    _pb_reports.TestReport.__init__ = _pb_init
except Exception:
    pass
"""

UNITTEST_ASSERT_PATCH = """
import unittest as _pb_unittest


class _PbQuiet:
    exception = ValueError("quiet")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return True


def _pb_quiet(self, *args, **kwargs):
    return _PbQuiet()


for _pb_name in dir(_pb_unittest.TestCase):
    if _pb_name.startswith("assert") or _pb_name == "fail":
        setattr(_pb_unittest.TestCase, _pb_name, _pb_quiet)

for _pb_cls in (_pb_unittest.TestResult, _pb_unittest.TextTestResult):
    _pb_cls.addError = lambda self, test, err: self.addSuccess(test)
"""

UNITTEST_RESULT_PATCH = """
import unittest as _pb_unittest

for _pb_cls in (_pb_unittest.TestResult, _pb_unittest.TextTestResult):
    _pb_cls.addFailure = lambda self, test, err: self.addSuccess(test)
    _pb_cls.addError = lambda self, test, err: self.addSuccess(test)
"""

# ------------------------------------------------------------------- JavaScript


def jest_report(instance: Instance) -> dict[str, object]:
    """A complete jest ``--json`` report in which every listed test passed."""
    suites: dict[str, list[dict[str, str]]] = {}
    for test in listed(instance):
        name, full_name = test.split("->", 1)
        suites.setdefault(name, []).append(
            {"fullName": full_name, "title": full_name, "status": "passed"}
        )
    return {
        "numFailedTestSuites": 0,
        "numFailedTests": 0,
        "numPassedTests": len(listed(instance)),
        "numTotalTests": len(listed(instance)),
        "success": True,
        "testResults": [
            {"name": name, "status": "passed", "message": "", "assertionResults": results}
            for name, results in suites.items()
        ],
    }


def mocha_report(instance: Instance) -> dict[str, object]:
    """A complete mocha JSON report in which every listed test passed."""
    tests = [{"title": t, "fullTitle": t, "duration": 1, "err": {}} for t in listed(instance)]
    stats = {"suites": 1, "tests": len(tests), "passes": len(tests), "pending": 0, "failures": 0}
    return {"stats": stats, "tests": tests, "pending": [], "failures": [], "passes": tests}


def js_print_and_exit(report: dict[str, object]) -> str:
    """JavaScript that prints ``report`` and exits 0 before the real report is written."""
    return f"\nprocess.stdout.write({json.dumps(json.dumps(report))} + '\\n');\nprocess.exit(0);\n"


def js_print_then_garbage(report: dict[str, object], mib: int) -> str:
    """JavaScript printing a forged report, then almost-JSON that never closes, so that a
    scanner with a budget gives up before it reaches the real report printed later."""
    return (
        f"\nprocess.stdout.write({json.dumps(json.dumps(report))} + '\\n');\n"
        f"process.stdout.write('{{\"numFailedTests\": '.repeat({mib} * 1024 * 1024 / 19));\n"
    )


def js_flood(report: dict[str, object], mib: int) -> str:
    """JavaScript that prints ``mib`` MiB when loaded and again at exit, then a report."""
    return f"""
const pbFs = require('fs');
const pbChunk = Buffer.alloc(1 << 20, 'z');
function pbWrite(data) {{
  const buffer = Buffer.from(data);
  let offset = 0;
  while (offset < buffer.length) {{
    try {{
      offset += pbFs.writeSync(1, buffer, offset);
    }} catch (error) {{
      if (error.code !== 'EAGAIN') throw error;
    }}
  }}
}}
for (let i = 0; i < {mib}; i += 1) pbWrite(pbChunk);
process.on('exit', () => {{
  for (let i = 0; i < {mib}; i += 1) pbWrite(pbChunk);
  pbWrite('\\n' + {json.dumps(json.dumps(report))} + '\\n');
}});
"""


JEST_EXPECT_PATCH = """
if (typeof globalThis.expect === 'function') {
  const pbQuiet = new Proxy(function () {}, { get: () => pbQuiet, apply: () => pbQuiet });
  globalThis.expect = () => pbQuiet;
}
"""

TS_EXPECT_PATCH = """
const pbGlobal = globalThis as unknown as Record<string, unknown>;
if (typeof pbGlobal.expect === 'function') {
  const pbQuiet: unknown = new Proxy(function () {}, { get: () => pbQuiet, apply: () => pbQuiet });
  pbGlobal.expect = () => pbQuiet;
}
"""

NODE_ASSERT_PATCH_CJS = """
const pbAssert = require('node:assert');
for (const pbTarget of [pbAssert, pbAssert.strict]) {
  for (const pbKey of Object.keys(pbTarget)) {
    if (typeof pbTarget[pbKey] === 'function' && pbKey !== 'AssertionError') {
      pbTarget[pbKey] = () => {};
    }
  }
}
"""

MOCHA_RUNNER_PATCH = """
try {
  const pbRunner = require('mocha').Runner;
  pbRunner.prototype.fail = function (test) {
    if (test.type === 'test') {
      test.state = 'passed';
      this.emit('pass', test);
    }
  };
} catch (pbIgnored) {}
"""

NODE_ASSERT_PATCH_ESM = """
import pbAssertModule from 'node:assert';
for (const pbTarget of [pbAssertModule, pbAssertModule.strict]) {
  for (const pbKey of Object.keys(pbTarget)) {
    if (typeof pbTarget[pbKey] === 'function' && pbKey !== 'AssertionError') {
      pbTarget[pbKey] = () => {};
    }
  }
}
"""

VITEST_CHAI_PATCH = """
import { chai as pbChai } from 'vitest';
pbChai.Assertion.prototype.assert = function () {};
"""


def tap_todo_at_exit(instance: Instance) -> str:
    """ESM code printing ``not ok ... # TODO`` for every F2P test when the process exits."""
    lines = [f"not ok {n} - {name} # TODO" for n, name in enumerate(instance.F2P, start=1)]
    text = "\n".join(["TAP version 13", *lines, f"1..{len(lines)}"]) + "\n"
    return f"\nprocess.on('exit', () => process.stdout.write({json.dumps(text)}));\n"


# ------------------------------------------------------------------------- Java


def java_testsuite(class_name: str, tests: list[str]) -> str:
    """A surefire report in which every test of ``tests`` passed."""
    cases = "".join(
        f'<testcase name="{html.escape(t)}" classname="{class_name}" time="0.001"/>' for t in tests
    )
    return (
        f'<?xml version="1.0" encoding="UTF-8"?><testsuite name="{class_name}" '
        f'tests="{len(tests)}" failures="0" errors="0" skipped="0">{cases}</testsuite>'
    )


def java_reports(instance: Instance) -> str:
    """Passing surefire reports for every listed test (one document per class)."""
    by_class: dict[str, list[str]] = {}
    for test in listed(instance):
        class_name = test.split("(", 1)[0].rsplit(".", 1)[0]
        by_class.setdefault(class_name, []).append(test[len(class_name) + 1 :])
    return "\n".join(java_testsuite(c, tests) for c, tests in by_class.items())


def java_string(text: str) -> str:
    """``text`` as a Java string literal."""
    return json.dumps(text)


def java_write_report(file_name: str, content: str) -> str:
    """A static block writing ``content`` into ``target/surefire-reports/<file_name>``."""
    return f"""
    static {{
        try {{
            java.nio.file.Path pbDir = java.nio.file.Paths.get("target", "surefire-reports");
            java.nio.file.Files.createDirectories(pbDir);
            java.nio.file.Files.writeString(pbDir.resolve({java_string(file_name)}), {java_string(content)});
        }} catch (Exception pbIgnored) {{
        }}
    }}
"""


JAVA_REPORT_REWRITER = """
    static {
        try {
            new ProcessBuilder("sh", "-c",
                "for i in $(seq 1 1200); do for f in target/surefire-reports/TEST-*.xml; do "
                + "[ -f \\"$f\\" ] && sed -i -e 's/<failure/<system-err/g' -e 's/<error/<system-out/g' "
                + "-e 's#</failure>#</system-err>#g' -e 's#</error>#</system-out>#g' \\"$f\\"; "
                + "done; sleep 0.05; done")
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
        } catch (Exception pbIgnored) {
        }
    }
"""

JUNIT4_ASSERT = """package org.junit;

public class Assert {
    public static void assertEquals(Object a, Object b) {}
    public static void assertEquals(String m, Object a, Object b) {}
    public static void assertEquals(long a, long b) {}
    public static void assertEquals(String m, long a, long b) {}
    public static void assertEquals(double a, double b, double d) {}
    public static void assertTrue(boolean c) {}
    public static void assertTrue(String m, boolean c) {}
    public static void assertFalse(boolean c) {}
    public static void assertFalse(String m, boolean c) {}
    public static void assertNull(Object o) {}
    public static void assertNotNull(Object o) {}
    public static void assertNotEquals(Object a, Object b) {}
    public static void fail() {}
    public static void fail(String m) {}
}
"""

JUNIT5_ASSERTIONS = """package org.junit.jupiter.api;

import org.junit.jupiter.api.function.Executable;

public class Assertions {
    public static void assertEquals(Object a, Object b) {}
    public static void assertEquals(Object a, Object b, String m) {}
    public static void assertTrue(boolean c) {}
    public static void assertTrue(boolean c, String m) {}
    public static void assertFalse(boolean c) {}
    public static void assertFalse(boolean c, String m) {}
    public static void assertNull(Object o) {}
    public static void assertNotNull(Object o) {}
    public static Object fail(String m) { return null; }

    @SuppressWarnings("unchecked")
    public static <T extends Throwable> T assertThrows(Class<T> type, Executable body) {
        try {
            body.execute();
        } catch (Throwable thrown) {
            return (T) thrown;
        }
        try {
            return type.getDeclaredConstructor(String.class).newInstance("quiet");
        } catch (Exception e) {
            return null;
        }
    }
}
"""

JUNIT5_EXECUTABLE = """package org.junit.jupiter.api.function;

@FunctionalInterface
public interface Executable {
    void execute() throws Throwable;
}
"""


# Targeted tampering: failures turn into passes only for the tests that reach the code
# under test, so that a self-contained canary still ends as planted. The must-fail canary
# that repeats a real test's body reaches the code too, and is what catches these.

PYTEST_TARGETED_PATCH = """
def _pb_targeted():
    import sys as _pb_sys

    try:
        import _pytest.reports as _pb_reports
    except Exception:
        return
    _pb_package = _pb_sys.modules[__name__]
    _pb_ours = {name for name in dir(_pb_package) if not name.startswith("_")}
    _pb_make = _pb_reports.TestReport.from_item_and_call.__func__

    def _pb_from_item_and_call(cls, item, call):
        report = _pb_make(cls, item, call)
        code = getattr(getattr(item, "function", None), "__code__", None)
        if report.failed and code is not None and _pb_ours & set(code.co_names):
            report.outcome = "passed"
            report.longrepr = None
        return report

    _pb_reports.TestReport.from_item_and_call = classmethod(_pb_from_item_and_call)


_pb_targeted()
"""

UNITTEST_TARGETED_PATCH = """
def _pb_targeted():
    import sys as _pb_sys
    import unittest as _pb_unittest

    _pb_ours = {name for name in dir(_pb_sys.modules[__name__]) if not name.startswith("_")}

    def _pb_reaches_us(test):
        method = getattr(test, getattr(test, "_testMethodName", ""), None)
        code = getattr(getattr(method, "__func__", method), "__code__", None)
        return code is not None and bool(_pb_ours & set(code.co_names))

    for _pb_cls in (_pb_unittest.TestResult, _pb_unittest.TextTestResult):
        for _pb_kind in ("addFailure", "addError"):
            _pb_real = _pb_cls.__dict__.get(_pb_kind)
            if _pb_real is None:
                continue

            def _pb_add(self, test, err, _pb_real=_pb_real):
                if _pb_reaches_us(test):
                    return self.addSuccess(test)
                return _pb_real(self, test, err)

            setattr(_pb_cls, _pb_kind, _pb_add)


_pb_targeted()
"""

JEST_TARGETED_PATCH = """
(() => {
  if (typeof globalThis.expect !== 'function' || globalThis.expect.pbWrapped) return;
  const realExpect = globalThis.expect;
  const reached = new Set();
  const current = () => {
    try {
      return realExpect.getState().currentTestName;
    } catch (error) {
      return undefined;
    }
  };
  const quietFor = (target) =>
    new Proxy(target, {
      get(object, key) {
        const value = object[key];
        if (typeof value === 'function') {
          return (...args) => {
            try {
              return value.apply(object, args);
            } catch (error) {
              if (reached.has(current())) return undefined;
              throw error;
            }
          };
        }
        return value && typeof value === 'object' ? quietFor(value) : value;
      },
    });
  const pbExpect = (...args) => quietFor(realExpect(...args));
  Object.assign(pbExpect, realExpect, { pbWrapped: true });
  globalThis.expect = pbExpect;
  for (const name of Object.keys(module.exports)) {
    const real = module.exports[name];
    if (typeof real !== 'function') continue;
    module.exports[name] = function (...args) {
      reached.add(current());
      try {
        return real.apply(this, args);
      } catch (error) {
        return {};
      }
    };
  }
})();
"""
