"""The run-time probe: real interpreters load it as the harness does, honest runs leave it
silent, and a framework function replaced through indirection is seen with its file.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from polybench.grading.probe import (
    ProbeStatus,
    probe_broke_run,
    probe_env,
    probe_sources,
    read_probe,
)

TEST_FILE = textwrap.dedent(
    """\
    from calc import add


    def test_add():
        assert add(2, 3) == 5
    """
)
HONEST = "def add(a, b):\n    return a + b\n"
# The pytest report turned round through importlib and setattr (no flag names it).
TAMPERED = HONEST.replace("a + b", "a - b") + textwrap.dedent(
    """
    import importlib as _il

    _reports = _il.import_module("_py" + "test.reports")
    _cls = getattr(_reports, "Test" + "Report")
    _make = _cls.from_item_and_call.__func__


    def _judged(klass, item, call):
        report = _make(klass, item, call)
        if report.failed:
            report.outcome = "passed"
        return report


    setattr(_cls, "from_item" + "_and_call", classmethod(_judged))
    """
)


def _setup(tmp_path: Path) -> tuple[Path, Path, dict[str, str]]:
    probe_dir, out_dir, repo = tmp_path / "probe", tmp_path / "out", tmp_path / "repo"
    for folder in (probe_dir, out_dir, repo):
        folder.mkdir()
    for name, text in probe_sources().items():
        (probe_dir / name).write_text(text)
    env = probe_env(dict(os.environ), str(probe_dir), str(out_dir), str(repo))
    env.pop("PYTEST_ADDOPTS", None)
    return repo, out_dir, env


def _records(out_dir: Path) -> list[str]:
    return [p.read_text() for p in sorted(out_dir.glob("*.json"))]


def _owned_by_dataset(path: str) -> bool:
    return path.startswith("tests/")


@pytest.mark.parametrize("module", [HONEST, TAMPERED], ids=["honest", "tampered"])
def test_pytest_internals_replaced_through_indirection_are_seen_with_their_file(
    tmp_path: Path, module: str
) -> None:
    repo, out_dir, env = _setup(tmp_path)
    (repo / "calc.py").write_text(module)
    (repo / "tests").mkdir()
    (repo / "tests" / "test_calc.py").write_text(TEST_FILE)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-W", "error", "--strict-markers", "-p",
         "no:cacheprovider", "-rA", "tests/test_calc.py"],
        capture_output=True, text=True, cwd=repo, env=env, timeout=600,
    )  # fmt: skip
    assert "1 passed" in done.stdout, done.stdout + done.stderr
    check = read_probe(_records(out_dir), str(repo), _owned_by_dataset)
    assert check.status is ProbeStatus.READ and check.processes == 1
    if module is HONEST:
        assert check.findings == [] and not check.tampered
    else:
        assert [(f.name, f.by) for f in check.findings] == [
            ("_pytest.reports.TestReport.from_item_and_call", "calc.py")
        ]
        assert "TestReport.from_item_and_call (replaced by calc.py)" in check.describe()
    assert probe_broke_run(done.stdout + done.stderr, str(tmp_path / "probe")) is None


def test_unittest_results_patched_through_sys_modules_are_seen(tmp_path: Path) -> None:
    repo, out_dir, env = _setup(tmp_path)
    (repo / "calc.py").write_text(
        HONEST
        + "import sys\n"
        + "for _name in ('unittest.result',):\n"
        + "    _cls = getattr(sys.modules[_name], 'Test' + 'Result')\n"
        + "    setattr(_cls, 'add' + 'Failure', lambda self, test, err: self.addSuccess(test))\n"
    )
    (repo / "tests").mkdir()
    (repo / "tests" / "__init__.py").write_text("")
    (repo / "tests" / "test_calc.py").write_text(
        "import unittest\n\nfrom calc import add\n\n\nclass AddTests(unittest.TestCase):\n"
        "    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n"
    )
    done = subprocess.run(
        [sys.executable, "-W", "error", "-m", "unittest", "-v", "tests.test_calc"],
        capture_output=True, text=True, cwd=repo, env=env, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    check = read_probe(_records(out_dir), str(repo), _owned_by_dataset)
    assert [(f.name, f.by) for f in check.findings] == [
        ("unittest.result.TestResult.addFailure", "calc.py")
    ]


def test_the_environment_s_own_replacements_and_the_tests_are_not_counted() -> None:
    record = json.dumps(
        {
            "replaced": [
                {"name": "_pytest.runner.runtestprotocol", "by": "/venv/site-packages/p.py"},
                {"name": "unittest.case.TestCase.run", "by": "/testbed/tests/test_x.py"},
                {"name": "node:assert.equal", "by": None},
                {"name": "unittest.case.TestCase.run", "by": "/testbed/src/lib.py"},
            ],
            "hooks": [{"name": "pytest_runtest_makereport", "by": "/testbed/src/lib.py"}],
        }
    )
    check = read_probe([record, "not json"], "/testbed", _owned_by_dataset)
    assert check.processes == 1
    assert [(f.name, f.by, f.kind) for f in check.findings] == [
        ("node:assert.equal", None, "replaced"),
        ("unittest.case.TestCase.run", "src/lib.py", "replaced"),
        ("pytest_runtest_makereport", "src/lib.py", "hook"),
    ]
    assert read_probe([], "/testbed", _owned_by_dataset).status is ProbeStatus.SILENT


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node")
@pytest.mark.parametrize("tampered", [False, True], ids=["honest", "tampered"])
def test_node_assert_replaced_through_a_computed_name_is_seen(
    tmp_path: Path, tampered: bool
) -> None:
    repo, out_dir, env = _setup(tmp_path)
    patch = (
        "const target = require(['node', 'assert'].join(':'));\n"
        "for (const key of Object.keys(target)) {\n"
        "  if (key !== 'AssertionError') target[key] = () => {};\n}\n"
    )
    (repo / "lib.mjs").write_text("export const add = (a, b) => a + b;\n")
    (repo / "patch.cjs").write_text(patch if tampered else "")
    (repo / "add.test.mjs").write_text(
        "import { test } from 'node:test';\nimport assert from 'node:assert';\n"
        "import { createRequire } from 'node:module';\nimport { add } from './lib.mjs';\n"
        "createRequire(import.meta.url)('./patch.cjs');\n"
        "test('adds', () => assert.equal(add(2, 3), 5));\n"
    )
    done = subprocess.run(
        ["node", "--test", "add.test.mjs"], capture_output=True, text=True, cwd=repo, env=env,
        timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    check = read_probe(_records(out_dir), str(repo), _owned_by_dataset)
    assert check.status is ProbeStatus.READ and check.processes >= 1
    names = {f.name for f in check.findings}
    assert ("node:assert.equal" in names) is tampered


@pytest.mark.parametrize(
    ("log", "blamed"),
    [
        ('Traceback (most recent call last):\n  File "/polybench/probe/sitecustomize.py", '
         "line 40, in _take\nRuntimeError: boom", True),
        ("TypeError: x\n    at defineProperty (/polybench/probe/probe.cjs:105:46)\n"
         "    at Object.<anonymous> (/testbed/a.js:1:1)", True),
        ("Error in sitecustomize; set PYTHONVERBOSE for traceback:", True),
        ("Error: Cannot find module '/polybench/probe/probe.cjs'", True),
        # Further down a stack (the probe wraps module loading): not the probe's doing.
        ("Error: real failure\n    at Object.<anonymous> (/testbed/a.js:1:1)\n"
         "    at Module._compile (/polybench/probe/probe.cjs:60:20)", False),
        ('  File "/testbed/tests/test_a.py", line 3, in test_a\nAssertionError', False),
    ],
)  # fmt: skip
def test_a_failure_of_the_probe_itself_is_told_from_the_tests_failing(
    log: str, blamed: bool
) -> None:
    assert (probe_broke_run(log, "/polybench/probe") is not None) is blamed
