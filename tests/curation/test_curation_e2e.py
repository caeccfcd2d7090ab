"""From pull requests to a dataset whose gold patches all resolve under ``polybench eval``.

The textkit repository (tests/curation/textkit.py) is served by the fake GitHub API and
its clone is the ``--repo-dir``; the LLM is the fake OpenAI-compatible endpoint.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from polybench.dataset.loaders import load_instances_from_file
from tests.curation.conftest import curation_app
from tests.curation.fake_github import FakeGitHub
from tests.curation.fake_openai import FakeOpenAI
from tests.curation.textkit import FLAKY_TEST, BuiltPull
from tests.e2e.conftest import read_report, run_cli, shared_cache  # noqa: F401

pytestmark = pytest.mark.slow
runner = CliRunner()


def _invoke(args: list[str], env: dict[str, str]) -> str:
    result = runner.invoke(curation_app(), args, env={"COLUMNS": "200", **env})
    assert result.exit_code == 0, result.output
    return result.output


def test_pull_requests_to_a_dataset_that_gold_resolves(
    textkit: tuple[Path, list[BuiltPull]],
    fake_github: FakeGitHub,
    fake_llm: FakeOpenAI,
    recipe_dir: Path,
    shared_cache: Path,  # noqa: F811
    tmp_path: Path,
) -> None:
    clone, _ = textkit
    repos = clone.parent
    env = {"GITHUB_TOKEN": "secret", "POLYBENCH_CACHE_DIR": str(shared_cache)}
    work = tmp_path / "work"
    work.mkdir()

    collected = _invoke(
        [
            "collect",
            "acme/textkit",
            "--api-url",
            fake_github.url,
            "--cache-dir",
            str(work / "gh"),
            "-o",
            str(work / "candidates.jsonl"),
        ],
        env,
    )
    assert (
        "acme/textkit: 107 pull requests seen, 5 kept; rejected: no_issue 1, "
        "no_test_files 1, not_merged 100" in collected
    )

    built = _invoke(
        [
            "build",
            str(work / "candidates.jsonl"),
            "--recipes",
            str(recipe_dir),
            "-o",
            str(work / "instances.jsonl"),
        ],
        env,
    )
    assert "rejected acme__textkit-9 (new_file_tested): textkit/slugify.py" in built
    assert "5 candidates: 4 instances built, rejected: new_file_tested 1" in built

    validated = _invoke(
        [
            "validate",
            str(work / "instances.jsonl"),
            "--repo-dir",
            str(repos),
            "--runs",
            "3",
            "--workers",
            "2",
            "-o",
            str(work / "dataset.jsonl"),
        ],
        env,
    )
    assert "invalid acme__textkit-13: no fail-to-pass test" in validated
    assert "invalid acme__textkit-15: 1 tests go pass -> fail" in validated
    assert (
        "2 of 4 instances valid (2 F2P and 5 P2P tests; 2 flaky tests dropped); "
        "not valid: no_f2p 1, pass_to_fail 1" in validated
    )
    report = json.loads((work / "dataset.jsonl.validation.json").read_text())
    verdicts = {item["instance_id"]: item for item in report["instances"]}
    assert verdicts["acme__textkit-3"]["flaky"] == [FLAKY_TEST]
    assert verdicts["acme__textkit-3"]["F2P"] == [
        "tests/test_case.py:None:test_snake_case_acronyms"
    ]
    assert verdicts["acme__textkit-15"]["pass_to_fail"] == [
        "tests/test_wrap.py:None:test_wrap_empty_returns_no_lines"
    ]
    dataset = {i.instance_id: i for i in load_instances_from_file(work / "dataset.jsonl")}
    assert sorted(dataset) == ["acme__textkit-3", "acme__textkit-5"]
    five = dataset["acme__textkit-5"]
    assert five.F2P == ["tests/test_wrap.py:None:test_wrap_line_of_exact_width"]
    assert five.P2P == [
        "tests/test_wrap.py:None:test_wrap_breaks_at_spaces",
        "tests/test_wrap.py:None:test_wrap_empty_returns_no_lines",
    ]
    assert FLAKY_TEST not in dataset["acme__textkit-3"].P2P

    fake_llm.mode = "malformed_first"
    annotated = _invoke(
        [
            "annotate",
            str(work / "dataset.jsonl"),
            "--repo-dir",
            str(repos),
            "--llm-model",
            "fake",
            "--llm-base-url",
            fake_llm.base_url,
            "--cache-dir",
            str(work / "llm"),
            "-o",
            str(work / "annotated.csv"),
        ],
        env,
    )
    assert "task_category: Bug Fix 2" in annotated
    assert "4 invalid answers asked again, 0 labels left unknown" in annotated
    rows = {i.instance_id: i for i in load_instances_from_file(work / "annotated.csv")}
    assert rows["acme__textkit-3"].modified_nodes == [
        "textkit/case.py->module->function_definition:snake_case"
    ]
    assert rows["acme__textkit-3"].is_single_func is True
    assert rows["acme__textkit-5"].model_extra["informativeness_solution"] == "A"

    (work / "ratings.csv").write_text(
        "instance_id,rater,issue,code,test\n"
        "acme__textkit-3,r1,3,2,3\nacme__textkit-3,r2,2,2,2\nacme__textkit-5,r1,3,2,3\n"
    )
    curated = _invoke(
        [
            "curate",
            str(work / "annotated.csv"),
            "--annotations",
            str(work / "ratings.csv"),
            "-o",
            str(work / "verified.jsonl"),
        ],
        env,
    )
    assert "kept 2 of 2 instances (Python 2); removed 0" in curated

    done = run_cli(
        [
            "eval",
            "--dataset",
            str(work / "verified.jsonl"),
            "--predictions",
            "gold",
            "--repo-dir",
            str(repos),
            "--output-dir",
            str(work / "runs"),
            "--run-id",
            "gold",
        ],
        shared_cache,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    summary = read_report(work / "runs" / "gold")
    assert summary["total_instances"] == 2 and summary["resolved_instances"] == 2
