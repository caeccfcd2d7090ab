"""Faults: a killed run resumes, timeouts and missing toolchains are infrastructure errors."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.e2e.conftest import read_report, run_cli
from tests.helpers.reliability_log import record

pytestmark = pytest.mark.slow

SUBSET = [
    "polybench-mini__timespan-27",
    "polybench-mini__logline-63",
    "polybench-mini__envcfg-18",
    "polybench-mini__hues-41",
    "polybench-mini__cronex-12",
    "polybench-mini__semver-java-14",
]


def _comparable(report: dict[str, object]) -> dict[str, object]:
    volatile = {"run_id", "wall_seconds", "reused_results"}
    return {k: v for k, v in report.items() if k not in volatile}


@pytest.mark.reliability
def test_sigkill_mid_run_then_resume_gives_the_same_report(cache_env: Path, tmp_path: Path) -> None:
    args = [
        "eval",
        "--dataset",
        "mini",
        "--predictions",
        "gold",
        "--workers",
        "1",
        "--instance-ids",
        ",".join(SUBSET),
        "--output-dir",
        str(tmp_path),
    ]
    reference = run_cli([*args, "--run-id", "reference"], cache_env)
    assert reference.returncode == 0, reference.stderr

    run_dir = tmp_path / "killed"
    process = subprocess.Popen(
        [sys.executable, "-m", "polybench", *args, "--run-id", "killed"],
        env=dict(os.environ, POLYBENCH_CACHE_DIR=str(cache_env)),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        finished = list((run_dir / "instances").glob("*/result.json"))
        if len(finished) >= 2:
            break
        time.sleep(0.05)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    finished_before = {p.parent.name for p in (run_dir / "instances").glob("*/result.json")}
    assert 2 <= len(finished_before) < len(SUBSET), "the kill came too late to test resuming"
    assert not (run_dir / "report.json").exists()

    resumed = run_cli([*args, "--run-id", "killed"], cache_env)
    assert resumed.returncode == 0, resumed.stderr
    assert f"reused {len(finished_before)} finished results" in resumed.stdout
    assert _comparable(read_report(run_dir)) == _comparable(read_report(tmp_path / "reference"))
    assert not (run_dir / ".sandboxes").exists(), "checkouts of the killed run were left behind"
    folders = sorted(p.name for p in (run_dir / "instances").iterdir())
    assert folders == sorted(SUBSET)
    for folder in (run_dir / "instances").iterdir():
        assert not [p.name for p in folder.iterdir() if p.name.startswith(".")], folder
        json.loads((folder / "result.json").read_text())
    record(
        "the driver (`polybench eval`) is SIGKILLed mid-run, then run again",
        "resumed; same report",
        f"{len(finished_before)} of {len(SUBSET)} results kept and reused, the rest evaluated; "
        "report.json equal to an uninterrupted run's; no duplicates, no temporary files",
    )


def test_rerun_skips_finished_instances_unless_forced(cache_env: Path, tmp_path: Path) -> None:
    args = [
        "eval",
        "--dataset",
        "mini",
        "--predictions",
        "gold",
        "--run-id",
        "again",
        "--instance-ids",
        "polybench-mini__timespan-27",
        "--output-dir",
        str(tmp_path),
    ]
    assert run_cli(args, cache_env).returncode == 0
    second = run_cli(args, cache_env)
    assert "evaluated 0, reused 1" in second.stdout
    forced = run_cli([*args, "--force"], cache_env)
    assert "evaluated 1, reused 0" in forced.stdout
    assert read_report(tmp_path / "again")["resolved_instances"] == 1


def test_a_result_changed_outside_the_harness_is_redone_on_resume(
    cache_env: Path, tmp_path: Path
) -> None:
    instance = "polybench-mini__timespan-27"
    predictions = tmp_path / "wrong.jsonl"
    wrong = "diff --git a/NOTES.md b/NOTES.md\nnew file mode 100644\n--- /dev/null\n"
    wrong += "+++ b/NOTES.md\n@@ -0,0 +1 @@\n+not a fix\n"
    predictions.write_text(json.dumps({"instance_id": instance, "model_patch": wrong}) + "\n")
    args = ["eval", "--predictions", str(predictions), "--run-id", "forged",
            "--instance-ids", instance, "--output-dir", str(tmp_path)]  # fmt: skip
    assert run_cli(args, cache_env).returncode == 0
    result_file = tmp_path / "forged" / "instances" / instance / "result.json"
    record = json.loads(result_file.read_text())
    assert record["status"] == "unresolved"
    record.update(status="resolved", strict_resolved=True, official_resolved=True)
    result_file.write_text(json.dumps(record))
    again = run_cli(args, cache_env)
    assert again.returncode == 0, again.stderr
    assert f"the saved result of {instance} was redone" in again.stderr
    assert "changed after it was written" in again.stderr
    assert "evaluated 1, reused 0" in again.stdout
    assert json.loads(result_file.read_text())["status"] == "unresolved"
    report = read_report(tmp_path / "forged")
    assert report["resolved_instances"] == 0 and instance in report["untrusted_results"]


def test_timeout_kills_the_tests_and_is_an_infrastructure_error(
    cache_env: Path, tmp_path: Path
) -> None:
    done = run_cli(
        [
            "eval",
            "--dataset",
            "mini",
            "--predictions",
            "gold",
            "--run-id",
            "slow",
            "--instance-ids",
            "polybench-mini__semver-java-14",
            "--timeout",
            "0.5",
            "--output-dir",
            str(tmp_path),
        ],
        cache_env,
    )
    assert done.returncode == 1, done.stderr  # an instance ended in an infrastructure error
    report = read_report(tmp_path / "slow")
    assert report["error_ids"] == ["polybench-mini__semver-java-14"]
    assert report["error_kinds"] == {"timeout": 1}
    assert report["unresolved_instances"] == 0


def _path_without(tools: set[str], bin_dir: Path) -> str:
    """A PATH holding everything of the current one except ``tools``."""
    bin_dir.mkdir()
    for directory in os.environ["PATH"].split(os.pathsep):
        if not os.path.isdir(directory):
            continue
        for entry in os.listdir(directory):
            link = bin_dir / entry
            if entry in tools or link.exists() or link.is_symlink():
                continue
            link.symlink_to(Path(directory) / entry)
    return str(bin_dir)


def test_missing_toolchains_make_those_instances_environment_unavailable(
    cache_env: Path, tmp_path: Path
) -> None:
    assert shutil.which("node") and shutil.which("mvn")
    path = _path_without({"node", "npm", "npx", "mvn", "java"}, tmp_path / "bin")
    done = run_cli(
        [
            "eval",
            "--dataset",
            "mini",
            "--predictions",
            "gold",
            "--run-id",
            "notools",
            "--instance-ids",
            "polybench-mini__envcfg-18,polybench-mini__semver-java-14,polybench-mini__timespan-27",
            "--output-dir",
            str(tmp_path),
        ],
        cache_env,
        env={"PATH": path},
    )
    assert done.returncode == 1, done.stderr  # instances ended in infrastructure errors
    report = read_report(tmp_path / "notools")
    assert report["resolved_ids"] == ["polybench-mini__timespan-27"]
    assert report["error_kinds"] == {"environment_unavailable": 2}
    result = json.loads(
        (tmp_path / "notools/instances/polybench-mini__envcfg-18/result.json").read_text()
    )
    assert result["reason"].startswith("environment unavailable: JavaScript")
    assert "npm" in result["reason"] or "node" in result["reason"]
