"""What a user of ``polybench eval`` sees: exit codes, Ctrl-C, progress lines and the run
log, a relative --repo-dir, and an output folder that fails (disk full, read-only)."""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from polybench.dataset.builtin import load_builtin, materialise_builtin_repos
from tests.e2e.conftest import read_report, run_cli

pytestmark = pytest.mark.slow

QUICK = ["polybench-mini__logline-58", "polybench-mini__timespan-34"]
FOUR = [*QUICK, "polybench-mini__logline-63", "polybench-mini__timespan-27"]
# A quick instance, then slower ones (a Maven build each): Ctrl-C, sent once the first is
# done, lands while the second runs even when this test's own process is slow to send it.
QUICK_THEN_SLOW = [
    "polybench-mini__logline-58",
    "polybench-mini__semver-java-14",
    "polybench-mini__tinyini-23",
    "polybench-mini__tinyini-31",
]


def _mini_jsonl(path: Path, ids: list[str]) -> Path:
    rows = [i.model_dump_json() for i in load_builtin("mini") if i.instance_id in ids]
    path.write_text("\n".join(rows) + "\n")
    return path


def _env(cache: Path) -> dict[str, str]:
    return dict(os.environ, POLYBENCH_CACHE_DIR=str(cache), COLUMNS="200")


def test_progress_lines_off_a_terminal_and_the_run_log(shared_cache: Path, tmp_path: Path) -> None:
    done = run_cli(["eval", "--predictions", "gold", "--instance-ids", ",".join(QUICK),
                    "-o", str(tmp_path), "--run-id", "progress", "--workers", "1"],
                   shared_cache)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    line = re.compile(r"^\[(\d)/2\] resolved\s+(\S+) \([\d.]+s; elapsed [\d:]+, eta [\d:]+\)$")
    shown = [m.groups() for m in map(line.match, done.stdout.splitlines()) if m]
    assert [count for count, _ in shown] == ["1", "2"], done.stdout
    assert {instance for _, instance in shown} == set(QUICK)
    logged = (tmp_path / "progress" / "run.log").read_text()
    assert "2 instances to evaluate" in logged
    assert len([raw for raw in logged.splitlines() if line.match(raw)]) == 2


def test_exit_status_1_when_an_instance_ends_in_an_infrastructure_error(
    shared_cache: Path, tmp_path: Path
) -> None:
    dataset = _mini_jsonl(tmp_path / "one.jsonl", QUICK[:1])
    empty = tmp_path / "no-clones"
    empty.mkdir()
    done = run_cli(["eval", "--dataset", str(dataset), "--predictions", "gold",
                    "--repo-dir", str(empty), "-o", str(tmp_path), "--run-id", "missing"],
                   shared_cache)  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    report = read_report(tmp_path / "missing")
    assert report["error_instances"] == 1 and report["resolved_instances"] == 0


def test_a_relative_repo_dir_is_resolved_where_the_command_runs(
    shared_cache: Path, tmp_path: Path
) -> None:
    _mini_jsonl(tmp_path / "one.jsonl", QUICK[:1])
    materialise_builtin_repos("mini", tmp_path / "clones")
    done = subprocess.run(
        [sys.executable, "-m", "polybench", "eval", "--dataset", "one.jsonl",
         "--predictions", "gold", "--repo-dir", "clones", "-o", "runs", "--run-id", "rel"],
        cwd=tmp_path, env=_env(shared_cache), capture_output=True, text=True, timeout=1200,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert read_report(tmp_path / "runs" / "rel")["resolved_instances"] == 1


# ``python -m polybench`` as a terminal starts it: Ctrl-C neither blocked nor ignored,
# whatever this test process inherited or set (a library of an earlier test in the same
# worker may have blocked SIGINT, and a blocked or ignored signal stays so across exec).
WITH_DEFAULT_CTRL_C = [
    sys.executable,
    "-c",
    "import os, signal, sys; signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT}); "
    "signal.signal(signal.SIGINT, signal.SIG_DFL); "
    "os.execv(sys.executable, [sys.executable, '-m', 'polybench', *sys.argv[1:]])",
]


def test_ctrl_c_waits_saves_what_finished_and_says_how_to_resume(
    shared_cache: Path, tmp_path: Path
) -> None:
    command = [*WITH_DEFAULT_CTRL_C, "eval", "--predictions", "gold",
               "--instance-ids", ",".join(QUICK_THEN_SLOW), "-o", str(tmp_path),
               "--run-id", "stopped",
               "--workers", "1"]  # fmt: skip
    run = subprocess.Popen(command, env=_env(shared_cache), stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)  # fmt: skip
    log = tmp_path / "stopped" / "run.log"
    deadline = time.monotonic() + 900
    while time.monotonic() < deadline and run.poll() is None:
        if log.exists() and "[1/4]" in log.read_text():
            break
        time.sleep(0.1)
    assert run.poll() is None, "the run ended before it could be interrupted"
    run.send_signal(signal.SIGINT)
    out, err = run.communicate(timeout=900)
    assert run.returncode == 130, out + err
    assert "interrupted: starting no more instances; waiting for the 1 running" in out
    assert "Resume with:" in err and "--run-id stopped" in err
    assert "Traceback" not in out + err
    report = read_report(tmp_path / "stopped")
    finished = report["total_instances"] - len(report["not_run_ids"])
    # At least the first finished and not the last; how many ran in between depends on how
    # soon this (possibly starved) process sent the signal, not on the harness.
    assert report["interrupted"] is True and 1 <= finished < 4
    assert report["total_instances"] == 4
    assert set(report["not_run_ids"]) < set(QUICK_THEN_SLOW)
    results = list((tmp_path / "stopped" / "instances").glob("*/result.json"))
    assert len(results) == finished
    # The command it prints resumes the run: the finished results are reused.
    resume = shlex.split(err.split("Resume with:", 1)[1].strip().splitlines()[0])
    assert resume[0] == "polybench"
    again = run_cli(resume[1:], shared_cache)
    assert again.returncode == 0, again.stdout + again.stderr
    assert f"{4 - finished} instances to evaluate, {finished} already finished" in again.stdout
    assert read_report(tmp_path / "stopped")["resolved_instances"] == 4


def _in_small_filesystem(script: str, size: str) -> subprocess.CompletedProcess[str]:
    """Run ``script`` (bash) with ``$SMALL`` a fresh tmpfs of ``size`` in a private mount
    namespace (as root or through a user namespace)."""
    wrapper = f'mkdir -p "$SMALL" && mount -t tmpfs -o size={size} tmpfs "$SMALL" && {script}'
    return subprocess.run(
        ["unshare", "--user", "--map-root-user", "--mount", "bash", "-c", wrapper],
        capture_output=True, text=True, timeout=1500,
        env=dict(os.environ, SMALL=os.environ["SMALL"]),
    )  # fmt: skip


def test_a_full_disk_stops_the_run_with_one_line_and_a_resume_loses_nothing(
    shared_cache: Path, tmp_path: Path
) -> None:
    eval_args = ["eval", "--predictions", "gold", "--instance-ids", ",".join(FOUR),
                 "--run-id", "full", "--workers", "1"]  # fmt: skip
    command = shlex.join([sys.executable, "-m", "polybench", *eval_args])
    saved = tmp_path / "saved"
    script = (
        f"cd {shlex.quote(str(tmp_path))}; POLYBENCH_CACHE_DIR={shlex.quote(str(shared_cache))} "
        f'{command} -o "$SMALL" > out.txt 2> err.txt; echo $? > rc.txt; '
        f'mkdir -p {shlex.quote(str(saved))} && cp -r "$SMALL/full" {shlex.quote(str(saved))}'
    )
    os.environ["SMALL"] = str(tmp_path / "small")
    try:
        done = _in_small_filesystem(script, "300k")
    finally:
        os.environ.pop("SMALL", None)
    assert done.returncode == 0, done.stdout + done.stderr
    err = (tmp_path / "err.txt").read_text()
    assert (tmp_path / "rc.txt").read_text().strip() == "3", err
    errors = [line for line in err.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "No space left on device" in errors[0], err
    assert "resume" in errors[0] and "Traceback" not in err
    statuses = {
        path.parent.name: json.loads(path.read_text())["status"]
        for path in saved.glob("full/instances/*/result.json")
    }
    assert set(statuses.values()) <= {"resolved", "error"}
    # Resumed where there is room: what was resolved is kept, the rest is done now.
    kept = sum(status == "resolved" for status in statuses.values())
    again = run_cli([*eval_args, "-o", str(saved)], shared_cache)
    assert again.returncode == 0, again.stdout + again.stderr
    # (The disk may have filled before any result was written: then nothing is kept.)
    told = f"{4 - kept} instances to evaluate" + (f", {kept} already finished" if kept else "\n")
    assert told in again.stdout, again.stdout
    assert read_report(saved / "full")["resolved_instances"] == 4


def test_a_read_only_output_folder_is_one_line_and_nothing_runs(
    shared_cache: Path, tmp_path: Path
) -> None:
    command = shlex.join([sys.executable, "-m", "polybench", "eval", "--predictions", "gold",
                          "--instance-ids", QUICK[0], "--run-id", "ro"])  # fmt: skip
    os.environ["SMALL"] = str(tmp_path / "ro")
    try:
        done = _in_small_filesystem(
            f'mount -o remount,ro "$SMALL" && POLYBENCH_CACHE_DIR='
            f'{shlex.quote(str(shared_cache))} {command} -o "$SMALL"; echo "rc=$?"',
            "1m",
        )
    finally:
        os.environ.pop("SMALL", None)
    assert "rc=3" in done.stdout, done.stdout + done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "Read-only file system" in errors[0], done.stderr
    assert "Traceback" not in done.stderr
