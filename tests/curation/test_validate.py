"""Validation: classifying tests over repeated runs, and real runs in the local sandbox."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from polybench.curation.validate import Validator, classify
from polybench.curation.validate_run import validate_all, validated_instances, validation_report
from polybench.dataset.materialise import materialise_tree
from polybench.dataset.models import Instance
from polybench.environments.manager import EnvironmentManager
from polybench.environments.provider import LocalProvider
from polybench.environments.repos import RepoStore
from polybench.grading.parsers.base import TestStatus

P, F, E, S = TestStatus.PASSED, TestStatus.FAILED, TestStatus.ERRORED, TestStatus.SKIPPED


def test_classify_sorts_tests_by_behaviour_over_runs() -> None:
    before = [
        {"stays": P, "fixed": F, "new": E, "flips": P, "breaks": P, "red": F, "skip": S},
        {"stays": P, "fixed": F, "flips": F, "breaks": P, "red": F, "skip": S},
        {"stays": P, "fixed": F, "flips": P, "breaks": P, "red": F, "skip": S},
    ]
    after = [
        {"stays": P, "fixed": P, "new": P, "flips": P, "breaks": F, "red": F, "late": P, "skip": P},
        {"stays": P, "fixed": P, "new": P, "flips": P, "red": F, "late": F, "skip": P},
        {"stays": P, "fixed": P, "new": P, "flips": P, "breaks": E, "red": F, "late": P, "skip": P},
    ]
    verdict = classify(before, after)
    assert verdict.f2p == ["fixed", "new", "skip"]
    assert verdict.p2p == ["stays"]
    assert verdict.flaky == ["flips", "late"]
    assert verdict.pass_to_fail == ["breaks"]


CALC = """def add(a, b):
    return a - b


def sub(a, b):
    return a - b
"""

TESTS = """import pathlib
import unittest

from calc.ops import add, sub


class OpsTest(unittest.TestCase):
    def test_sub(self):
        self.assertEqual(sub(3, 1), 2)

    def test_parity(self):
        counter = pathlib.Path(__file__).with_name(".runs")
        count = int(counter.read_text()) + 1 if counter.exists() else 1
        counter.write_text(str(count))
        self.assertEqual(count % 2, 1)
"""

_HEADER = "diff --git a/calc/ops.py b/calc/ops.py\n--- a/calc/ops.py\n+++ b/calc/ops.py\n"
_FIX_ADD = [
    "@@ -1,5 +1,5 @@",
    " def add(a, b):",
    "-    return a - b",
    "+    return a + b",
    " ",
    " ",
]
GOLD = _HEADER + "\n".join([*_FIX_ADD, " def sub(a, b):"]) + "\n"

BREAKING_GOLD = (
    _HEADER
    + "\n".join(
        [
            "@@ -1,6 +1,6 @@",
            *_FIX_ADD[1:],
            " def sub(a, b):",
            "-    return a - b",
            "+    return b - a",
        ]
    )
    + "\n"
)

TEST_PATCH = """diff --git a/tests/test_ops.py b/tests/test_ops.py
--- a/tests/test_ops.py
+++ b/tests/test_ops.py
@@ -15,3 +15,6 @@ class OpsTest(unittest.TestCase):
         count = int(counter.read_text()) + 1 if counter.exists() else 1
         counter.write_text(str(count))
         self.assertEqual(count % 2, 1)
+
+    def test_add(self):
+        self.assertEqual(add(2, 2), 4)
"""


@pytest.fixture(scope="module")
def calc(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Instance, Path]:
    """A unittest repository (no dependencies: only a venv to make) and its instance."""
    root = tmp_path_factory.mktemp("calc")
    source = root / "source"
    for name, text in {
        "calc/__init__.py": "",
        "calc/ops.py": CALC,
        "tests/__init__.py": "",
        "tests/test_ops.py": TESTS,
    }.items():
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        (source / name).write_text(text)
    commit = materialise_tree(source, root / "repos" / "acme__calc")
    instance = Instance(
        instance_id="acme__calc-2",
        repo="acme/calc",
        base_commit=commit,
        patch=GOLD,
        test_patch=TEST_PATCH,
        language="Python",
        test_command="python -m unittest -v tests.test_ops 2>&1",
        log_parser="unittest",
    )
    return root / "repos", instance, root / "envs"


def _validator(
    calc: tuple[Path, Instance, Path], log_dir: Path | None = None, runs: int = 3
) -> Validator:
    repos, _, envs = calc
    provider = LocalProvider(RepoStore(repos), EnvironmentManager(envs))
    return Validator(provider, runs=runs, timeout=120, log_dir=log_dir)


def test_validation_finds_f2p_p2p_and_drops_the_flaky_test(
    calc: tuple[Path, Instance, Path], tmp_path: Path
) -> None:
    _, instance, _ = calc
    result = _validator(calc, tmp_path).validate(instance)
    assert result.status == "valid", result.reason
    assert result.F2P == ["tests.test_ops.OpsTest:test_add:"]
    assert result.P2P == ["tests.test_ops.OpsTest:test_sub:"]
    assert result.flaky == ["tests.test_ops.OpsTest:test_parity:"]
    assert [(r.phase, r.index) for r in result.runs] == [
        ("before", 1),
        ("before", 2),
        ("before", 3),
        ("after", 1),
        ("after", 2),
        ("after", 3),
    ]
    assert [r.passed for r in result.runs] == [2, 1, 2, 3, 2, 3]
    assert (tmp_path / "acme__calc-2" / "before-2.log").is_file()


def test_invalid_instances_say_why(calc: tuple[Path, Instance, Path]) -> None:
    _, instance, _ = calc
    validator = _validator(calc, runs=1)
    cases = [
        ("gold_patch_failed", {"patch": GOLD.replace("return a - b\n+", "return a * b\n+")}),
        ("test_patch_failed", {"test_patch": TEST_PATCH.replace("test_ops.py", "nothere.py")}),
        ("before_unparsable", {"test_command": "echo nothing to see"}),
        # Tests ran before the fix, but the parser reads none of them: never an F2P list.
        ("before_unparsable", {"log_parser": "jest_json"}),
        ("no_f2p", {"test_patch": TEST_PATCH.replace("add(2, 2), 4", "add(2, 0), 2")}),
        ("pass_to_fail", {"patch": BREAKING_GOLD}),
        ("unknown_parser", {"log_parser": "nosuch"}),
    ]
    for kind, update in cases:
        result = validator.validate(instance.model_copy(update=update))
        assert (result.status, result.kind) == ("invalid", kind), (kind, result.reason)
        if kind == "before_unparsable":
            assert result.F2P == [] and "found no test result" in result.reason
    broken = validator.validate(instance.model_copy(update={"base_commit": "f" * 40}))
    assert broken.status == "error" and broken.kind == "environment"


def test_a_run_cut_short_says_how_its_log_ends(calc: tuple[Path, Instance, Path]) -> None:
    _, instance, _ = calc
    killed = "python -m unittest -v tests.test_ops 2>&1; echo about to go; kill -9 $$"
    result = _validator(calc, runs=1).validate(instance.model_copy(update={"test_command": killed}))
    assert (result.status, result.kind) == ("invalid", "no_end_marker")
    assert result.reason.startswith("before run 1: the log has no end marker (exit ")
    assert result.reason.endswith("its last line: 'about to go' (in before-1.log)")


def test_validate_all_resumes_and_writes_the_dataset(
    calc: tuple[Path, Instance, Path], tmp_path: Path
) -> None:
    _, instance, _ = calc
    missing = instance.model_copy(update={"instance_id": "acme__calc-3", "base_commit": "f" * 40})
    seen: list[tuple[str, bool]] = []
    results = validate_all(
        [instance, missing],
        _validator(calc),
        workers=2,
        results_dir=tmp_path,
        on_result=lambda r, reused: seen.append((r.instance_id, reused)),
    )
    assert sorted(seen) == [("acme__calc-2", False), ("acme__calc-3", False)]
    [kept] = validated_instances([instance, missing], results)
    assert kept.F2P == ["tests.test_ops.OpsTest:test_add:"] and kept.P2P
    report = validation_report(results, 3)
    assert report["totals"] == {
        "instances": 2,
        "valid": 1,
        "invalid": 0,
        "error": 1,
        "f2p_tests": 1,
        "p2p_tests": 1,
        "flaky_tests_dropped": 1,
    }
    assert report["not_valid_reasons"] == {"environment": 1}
    json.dumps(report)

    seen.clear()
    validate_all(
        [instance, missing],
        _validator(calc),
        results_dir=tmp_path,
        on_result=lambda r, reused: seen.append((r.instance_id, reused)),
    )
    assert sorted(seen) == [("acme__calc-2", True), ("acme__calc-3", False)]

    # A saved verdict changed by anything but the harness is not reused: it is redone.
    saved = tmp_path / "acme__calc-2" / "result.json"
    saved.write_text(saved.read_text().replace('"valid"', '"invalid"', 1))
    seen.clear()
    untrusted: list[str] = []
    validate_all(
        [instance],
        _validator(calc),
        results_dir=tmp_path,
        on_result=lambda r, reused: seen.append((r.instance_id, reused)),
        on_untrusted=lambda instance_id, why: untrusted.append(f"{instance_id}: {why}"),
    )
    assert seen == [("acme__calc-2", False)]
    assert untrusted == [
        "acme__calc-2: its seal does not match: it was changed after it was written"
    ]
