"""``polybench eval`` on the built-in mini dataset, with real test frameworks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from polybench.dataset.builtin import builtin_root, materialise_builtin_repos
from polybench.dataset.models import Instance
from tests.e2e.conftest import read_report, run_cli

pytestmark = pytest.mark.slow

LANGUAGES = {"Java", "JavaScript", "Python", "TypeScript"}


def test_mini_has_four_instances_per_language_and_stable_base_commits(
    mini: dict[str, Instance], tmp_path: Path
) -> None:
    assert len(mini) >= 16
    by_language: dict[str, int] = {}
    for instance in mini.values():
        by_language[instance.language.value] = by_language.get(instance.language.value, 0) + 1
        assert instance.F2P and len(instance.P2P) >= 2, instance.instance_id
        assert instance.patch and instance.test_patch and instance.test_command
        assert instance.Dockerfile.startswith("FROM polybench_"), instance.instance_id
        assert instance.task_category in {"Bug Fix", "Feature", "Refactoring"}
        assert instance.num_nodes == len(instance.modified_nodes)
    assert set(by_language) == LANGUAGES and min(by_language.values()) >= 4
    commits = materialise_builtin_repos("mini", tmp_path / "repos")
    for instance in mini.values():
        assert commits[instance.repo] == instance.base_commit, instance.instance_id
    categories = {i.task_category for i in mini.values()}
    assert categories == {"Bug Fix", "Feature", "Refactoring"}
    parsers = {i.log_parser for i in mini.values()}
    assert {"pytest", "unittest", "jest_json", "vitest_json", "mocha_json", "tap", "junit_xml"} <= (
        parsers
    )


BUILD_OUTPUT = {"node_modules", "target", "__pycache__", ".pytest_cache", "build", "dist"}


def _shipped(root: Path) -> list[str]:
    """The files of ``root`` the project ships: those git tracks where the package is a
    git checkout (what a clone or a wheel built from it holds), else every file there."""
    listed = subprocess.run(
        ["git", "-C", str(root), "ls-files", "-z", "--full-name", "."],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if listed.returncode == 0 and listed.stdout:
        prefix = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--show-prefix"],
            capture_output=True, text=True, check=True,
        ).stdout.strip()  # fmt: skip
        return [name[len(prefix) :] for name in listed.stdout.split("\0") if name]
    return [str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()]


def test_mini_repositories_ship_no_build_output() -> None:
    repos = builtin_root("mini") / "repos"
    shipped = _shipped(repos)
    assert any(name.endswith("logline/parser.py") for name in shipped)
    offenders = [name for name in shipped if BUILD_OUTPUT & set(name.split("/")[:-1])]
    assert offenders == []


def _tree(root: Path) -> dict[str, tuple[int, int]]:
    return {
        str(p.relative_to(root)): (p.stat().st_size, p.stat().st_mtime_ns)
        for p in root.rglob("*")
        if p.is_file()
    }


def test_evaluating_writes_nothing_into_the_built_in_dataset(
    cache_env: Path, tmp_path: Path
) -> None:
    """Python tests that may write bytecode (no PYTHONDONTWRITEBYTECODE here), run on the
    built-in repositories: the package's copy of them stays as it is."""
    mini = builtin_root("mini")
    before = _tree(mini)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    done = subprocess.run(
        [sys.executable, "-m", "polybench", "eval", "--dataset", "mini", "--predictions",
         "gold", "--instance-ids", "polybench-mini__logline-58,polybench-mini__timespan-34",
         "--run-id", "untouched", "--output-dir", str(tmp_path)],
        env={**env, "POLYBENCH_CACHE_DIR": str(cache_env)},
        capture_output=True, text=True, timeout=1200,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert read_report(tmp_path / "untouched")["resolved_instances"] == 2
    assert _tree(mini) == before


def test_gold_resolves_every_instance(cache_env: Path, tmp_path: Path) -> None:
    done = run_cli(
        [
            "eval",
            "--dataset",
            "mini",
            "--predictions",
            "gold",
            "--run-id",
            "gold",
            "--output-dir",
            str(tmp_path),
            "--workers",
            "2",
            "--format",
            "official",
        ],
        cache_env,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    report = read_report(tmp_path / "gold")
    assert report["resolved_instances"] == report["total_instances"] >= 16, report
    assert report["error_instances"] == 0
    assert set(report["per_language"]) == LANGUAGES
    for counts in report["per_language"].values():
        assert counts["resolved"] == counts["total"] >= 4
    assert "All" in done.stdout and "100.0%" in done.stdout
    assert str(tmp_path / "gold" / "report.json") in done.stdout.replace("\n", "")
    for folder in (tmp_path / "gold" / "instances").iterdir():
        names = {p.name for p in folder.iterdir()}
        assert {"result.json", "test_output.txt", "patch.diff", "eval.sh"} <= names
        result = json.loads((folder / "result.json").read_text())
        assert result["status"] == "resolved"
        assert all(outcome == "passed" for outcome in result["f2p"].values())
    aggregate = json.loads((tmp_path / "gold" / "official" / "aggregate_results.json").read_text())
    assert aggregate["total_resolved"] == report["total_instances"]
    official = json.loads(
        (tmp_path / "gold" / "official" / "polybench-mini__timespan-27_result.json").read_text()
    )
    assert official["resolved"] and official["all_f2p_passed"] and official["no_p2p_failed"]


def test_empty_predictions_resolve_nothing(cache_env: Path, tmp_path: Path) -> None:
    done = run_cli(
        [
            "eval",
            "--dataset",
            "mini",
            "--predictions",
            "empty",
            "--run-id",
            "empty",
            "--output-dir",
            str(tmp_path),
        ],
        cache_env,
    )
    assert done.returncode == 0, done.stderr
    report = read_report(tmp_path / "empty")
    assert report["resolved_instances"] == 0
    assert report["empty_patch_instances"] == report["total_instances"] >= 16
