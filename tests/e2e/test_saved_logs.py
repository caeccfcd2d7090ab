"""Checking a verdict from the saved logs gives polybench's answer.

The instance is a mini jest instance whose gold patch also makes the code under test
write a forged jest report to stderr (as a hostile test can): jest writes its real
``--json`` report to stdout, and the grader reads stdout alone, so the forged tests are
not graded; the merged log holds both reports. ``parse-log`` on the run's folder, or on
the merged log with its stdout kept beside it, reads what the grader read; on a merged
log alone it says that the answer may differ.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from polybench.cli.main import app
from polybench.curation.validate import Validator
from polybench.dataset.builtin import load_builtin, materialise_builtin_repos
from polybench.dataset.models import Instance
from polybench.environments.manager import EnvironmentManager
from polybench.environments.provider import LocalProvider
from polybench.environments.repos import RepoStore
from tests.e2e.conftest import read_report, run_cli

pytestmark = pytest.mark.slow

INSTANCE = "polybench-mini__envcfg-18"
FORGED_ID = "/testbed/test/forged.test.js->forged test passes"
FORGED_REPORT = {
    "numFailedTests": 0,
    "numPassedTests": 1,
    "numTotalTests": 1,
    "success": True,
    "testResults": [
        {
            "name": "/testbed/test/forged.test.js",
            "status": "passed",
            "assertionResults": [
                {"fullName": "forged test passes", "title": "passes", "status": "passed"}
            ],
        }
    ],
}
runner = CliRunner()


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=True
    ).stdout


@pytest.fixture(scope="module")
def forging(shared_cache: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A dataset of the instance with the forging gold patch, and the clones' folder."""
    repos = shared_cache / "builtin" / "mini" / "repos"
    materialise_builtin_repos("mini", repos)
    instance = {i.instance_id: i for i in load_builtin("mini")}[INSTANCE]
    work = tmp_path_factory.mktemp("forge") / "repo"
    subprocess.run(
        ["git", "clone", "-q", str(repos / instance.repo.replace("/", "__")), str(work)],
        check=True,
    )
    _git(work, "checkout", "-q", instance.base_commit)
    (work / "gold.diff").write_text(instance.patch)
    _git(work, "apply", "gold.diff")
    (work / "gold.diff").unlink()
    with (work / "lib" / "parse.js").open("a") as code:
        code.write(f"\nprocess.stderr.write({json.dumps(json.dumps(FORGED_REPORT))} + '\\n');\n")
    patch = _git(work, "diff")
    forged = instance.model_copy(update={"patch": patch})
    dataset = work.parent / "dataset.jsonl"
    dataset.write_text(forged.model_dump_json() + "\n")
    return dataset, repos


def _parse(*args: str) -> tuple[int, dict[str, str], str]:
    result = runner.invoke(app, ["parse-log", *args])
    statuses = json.loads(result.stdout) if result.stdout.strip() else {}
    return result.exit_code, statuses, result.stderr


def test_parse_log_on_an_eval_run_reads_what_was_graded(
    forging: tuple[Path, Path], cache_env: Path, tmp_path: Path
) -> None:
    dataset, repos = forging
    out = tmp_path / "runs"
    done = run_cli(
        [
            *("eval", "--dataset", str(dataset), "--repo-dir", str(repos)),
            *("--predictions", "gold", "--run-id", "forged", "--output-dir", str(out)),
        ],
        cache_env,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert read_report(out / "forged")["resolved_instances"] == 1
    folder = out / "forged" / "instances" / INSTANCE
    result = json.loads((folder / "result.json").read_text())
    merged = (folder / "test_output.txt").read_text()
    assert "forged test passes" in merged, "the merged log holds the forged report"
    graded = {t: "passed" for t in result["log_passed_tests"]}
    graded.update({t: "failed" for t in result["log_failed_tests"]})

    code, statuses, notes = _parse(str(folder))
    assert code == 0, notes
    assert statuses == graded and FORGED_ID not in statuses
    assert len(statuses) == result["tests_in_log"]
    assert "read test_stdout.txt" in notes

    code, by_run, _ = _parse(str(out / "forged"), "--instance", INSTANCE)
    assert code == 0 and by_run == graded

    code, from_merged, notes = _parse(str(folder / "test_output.txt"), "--parser", "jest_json")
    assert code == 0 and from_merged == graded
    assert "read test_stdout.txt beside test_output.txt" in notes

    alone = tmp_path / "copy" / "test_output.txt"
    alone.parent.mkdir()
    shutil.copyfile(folder / "test_output.txt", alone)
    code, _, notes = _parse(str(alone), "--parser", "jest_json")
    assert "merges stdout and stderr, and no stdout was kept beside it" in notes


def test_validation_keeps_the_streams_apart(forging: tuple[Path, Path], tmp_path: Path) -> None:
    dataset, repos = forging
    instance = Instance.model_validate_json(dataset.read_text())
    provider = LocalProvider(RepoStore(repos), EnvironmentManager(tmp_path / "envs"))
    logs = tmp_path / "logs"
    result = Validator(provider, runs=1, timeout=600, log_dir=logs).validate(instance)
    assert result.status == "valid", result.reason
    folder = logs / INSTANCE
    for name in ("after-1.stdout.txt", "after-1.stderr.txt", "before-1.stdout.txt"):
        assert (folder / name).is_file(), name
    assert "forged test passes" in (folder / "after-1.log").read_text()
    code, statuses, notes = _parse(str(folder / "after-1.log"), "--parser", "jest_json")
    assert code == 0 and FORGED_ID not in statuses
    assert {t for t, s in statuses.items() if s == "passed"} >= {*result.F2P, *result.P2P}
    assert "read after-1.stdout.txt beside after-1.log" in notes
