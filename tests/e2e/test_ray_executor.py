"""The ``ray`` executor on a Ray instance started by the driver (``ray.init`` here).

Drivers run as subprocesses (``run_driver.py``) so Ray's process-wide state stays out of
the test process. The multi-node cluster with failures is in ``test_ray_cluster.py``.
"""

# Fixtures imported from tests.helpers.docker_fixtures are used as test arguments.
# ruff: noqa: F811

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from polybench.dataset.models import Instance
from polybench.environments.backends import ProviderSettings
from polybench.environments.images.settings import ImageSettings
from polybench.runner.executors import ExecutorUnavailable, make_runner
from polybench.runner.instance import RunSettings
from tests.e2e import hostile
from tests.e2e.conftest import read_report
from tests.helpers.docker_fixtures import docker_bases, docker_settings  # noqa: F401
from tests.helpers.reliability_log import record

DRIVER = Path(__file__).with_name("run_driver.py")
TIMESPAN = "polybench-mini__timespan-27"
LOGLINE = "polybench-mini__logline-63"
HUES = "polybench-mini__hues-41"

# Walks up from the test process to the Ray worker running it and kills that worker.
WORKER_KILLER = """
import os as _pb_os
import signal as _pb_signal

_pb_pid = _pb_os.getppid()
while _pb_pid > 1:
    try:
        _pb_cmd = open("/proc/%d/cmdline" % _pb_pid, "rb").read()
        _pb_stat = open("/proc/%d/stat" % _pb_pid).read()
    except OSError:
        break
    if _pb_cmd.startswith(b"ray::"):
        _pb_os.kill(_pb_pid, _pb_signal.SIGKILL)
        break
    _pb_pid = int(_pb_stat.rsplit(")", 1)[1].split()[1])
"""


def ray_env(cache: Path) -> dict[str, str]:
    """Environment of a driver: the test cache, and Ray with a token of its own."""
    env = dict(
        os.environ,
        POLYBENCH_CACHE_DIR=str(cache),
        RAY_AUTH_MODE="token",
        RAY_AUTH_TOKEN=uuid.uuid4().hex,
        RAY_USAGE_STATS_ENABLED="0",
    )
    env.pop("RAY_ADDRESS", None)
    return env


def drive(env: dict[str, str], run_dir: Path, ids: list[str], *args: str) -> str:
    """Run ``run_driver.py`` to the end; returns its output."""
    done = subprocess.run(
        [sys.executable, str(DRIVER), "--run-dir", str(run_dir), "--instance-ids", ",".join(ids),
         *args],
        env=env, capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def comparable(report: dict[str, object]) -> dict[str, object]:
    """A report without what differs between two runs of the same predictions."""
    volatile = {"run_id", "wall_seconds", "reused_results", "executor"}
    return {k: v for k, v in report.items() if k not in volatile}


def test_importing_polybench_does_not_import_ray() -> None:
    code = (
        "import sys, polybench, polybench.cli.main, polybench.runner.executors, "
        "polybench.environments.backends, polybench.runner.run, polybench.runner.api\n"
        "assert 'ray' not in sys.modules, 'ray was imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_the_ray_executor_without_ray_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)
    monkeypatch.delitem(sys.modules, "polybench.runner.ray_executor", raising=False)
    with pytest.raises(ExecutorUnavailable, match=r"pip install 'polybench-harness\[ray\]'"):
        make_runner("ray", ProviderSettings(), RunSettings())


def test_bad_executor_choices_are_refused() -> None:
    with pytest.raises(ExecutorUnavailable, match="unknown executor 'dask'"):
        make_runner("dask", ProviderSettings(), RunSettings())
    with pytest.raises(ValueError, match="--ray-address needs --executor ray"):
        make_runner("local", ProviderSettings(), RunSettings(), ray_address="auto")
    pytest.importorskip("ray")
    with pytest.raises(ValueError, match="unknown backend 'podman'"):
        make_runner("ray", ProviderSettings(backend="podman"), RunSettings())


def polybench_eval(env: dict[str, str], output_dir: Path, run_id: str, *args: str) -> str:
    """Run the ``polybench eval`` command to the end; returns its output."""
    done = subprocess.run(
        [sys.executable, "-m", "polybench.cli.main", "eval", "--dataset", "mini",
         "--predictions", "gold", "--output-dir", str(output_dir), "--run-id", run_id, *args],
        env=env, capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_eval_refuses_bad_executor_options(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from polybench.cli.main import app

    runner = CliRunner()
    common = ["eval", "--predictions", "gold", "--output-dir", str(tmp_path), "--instance-ids",
              TIMESPAN]  # fmt: skip
    refused = runner.invoke(app, [*common, "--executor", "dask"])
    assert refused.exit_code == 2
    assert "unknown executor 'dask'" in refused.output
    refused = runner.invoke(app, [*common, "--ray-address", "auto"])
    assert refused.exit_code == 2
    assert "--ray-address needs --executor ray" in refused.output
    assert not (tmp_path / "instances").exists() and not list(tmp_path.iterdir())


@pytest.mark.ray
@pytest.mark.slow
def test_the_eval_command_runs_on_ray_like_it_runs_locally(
    shared_cache: Path, tmp_path: Path
) -> None:
    pytest.importorskip("ray")
    env = ray_env(shared_cache)
    ids = ["--instance-ids", f"{TIMESPAN},{HUES}"]
    polybench_eval(env, tmp_path, "local", *ids)
    shown = polybench_eval(env, tmp_path, "ray", *ids, "--executor", "ray", "--workers", "2")
    assert "resolved" in shown and "evaluated 2, reused 0" in shown
    local, ray_run = read_report(tmp_path / "local"), read_report(tmp_path / "ray")
    assert ray_run["executor"] == "ray" and local["executor"] == "local"
    assert ray_run["resolved_instances"] == 2
    same = {k: v for k, v in comparable(ray_run).items() if k != "executor"}
    assert same == {k: v for k, v in comparable(local).items() if k != "executor"}
    run_json = json.loads((tmp_path / "ray/run.json").read_text())
    assert run_json["executor"] == "ray"
    for instance_id in (TIMESPAN, HUES):
        worker = json.loads((tmp_path / "ray/instances" / instance_id / "worker.json").read_text())
        assert worker["pid"] != os.getpid()


@pytest.mark.ray
@pytest.mark.docker
@pytest.mark.slow
def test_ray_tasks_run_instances_in_docker_containers(
    docker_bases: object, docker_settings: ImageSettings, shared_cache: Path, tmp_path: Path
) -> None:
    pytest.importorskip("ray")
    env = ray_env(shared_cache)
    options = ["--backend", "docker", "--base-source", docker_settings.base_source]
    if docker_settings.trust_host_ca:
        options.append("--trust-host-ca")
    shown = polybench_eval(
        env, tmp_path, "ray-docker", "--instance-ids", f"{TIMESPAN},{HUES}",
        "--executor", "ray", "--workers", "2", *options,
    )  # fmt: skip
    assert "isolation: docker" in shown
    report = read_report(tmp_path / "ray-docker")
    assert report["resolved_instances"] == 2 and report["backend"] == "docker"
    for instance_id in (TIMESPAN, HUES):
        folder = tmp_path / "ray-docker/instances" / instance_id
        result = json.loads((folder / "result.json").read_text())
        assert result["backend"] == "docker"
        assert json.loads((folder / "worker.json").read_text())["pid"] != os.getpid()


@pytest.mark.ray
@pytest.mark.slow
def test_a_local_ray_run_matches_a_local_run_and_resumes(
    shared_cache: Path, tmp_path: Path
) -> None:
    pytest.importorskip("ray")
    env = ray_env(shared_cache)
    ids = [TIMESPAN, LOGLINE, HUES]
    drive(env, tmp_path / "local", ids, "--executor", "local")
    drive(env, tmp_path / "ray", ids, "--executor", "ray", "--workers", "2")
    assert comparable(read_report(tmp_path / "ray")) == comparable(read_report(tmp_path / "local"))
    assert read_report(tmp_path / "ray")["resolved_instances"] == 3
    for instance_id in ids:
        worker = json.loads((tmp_path / "ray/instances" / instance_id / "worker.json").read_text())
        assert worker["node_id"] and worker["pid"] != os.getpid()
    again = drive(env, tmp_path / "ray", ids, "--executor", "ray")
    assert "evaluated 0, reused 3" in again


@pytest.mark.ray
@pytest.mark.slow
@pytest.mark.reliability
def test_a_prediction_that_kills_its_ray_worker(
    mini: dict[str, Instance], shared_cache: Path, tmp_path: Path
) -> None:
    pytest.importorskip("ray")
    env = ray_env(shared_cache)
    repo_dir = shared_cache / "builtin" / "mini" / "repos"
    drive(env, tmp_path / "warm", [LOGLINE], "--executor", "local")  # materialises the repos
    base = mini[TIMESPAN]
    killer = hostile.make_patch(
        repo_dir / "polybench-mini__timespan", base.base_commit, tmp_path,
        hostile.Edit(append={"src/timespan/__init__.py": WORKER_KILLER}),
    )  # fmt: skip
    predictions = tmp_path / "predictions.jsonl"
    rows = [
        {"instance_id": TIMESPAN, "model_patch": killer, "model_name_or_path": "hostile"},
        {"instance_id": LOGLINE, "model_patch": mini[LOGLINE].patch, "model_name_or_path": "gold"},
    ]
    predictions.write_text("".join(json.dumps(row) + "\n" for row in rows))
    common = ["--executor", "ray", "--predictions", str(predictions), "--ray-max-retries", "1"]

    # Without isolation the code under test can see and kill the worker: every attempt dies.
    drive(env, tmp_path / "none", [TIMESPAN, LOGLINE], *common, "--isolation", "none")
    exposed = read_report(tmp_path / "none")
    assert exposed["resolved_ids"] == [LOGLINE]
    assert exposed["error_ids"] == [TIMESPAN]
    assert exposed["error_kinds"] == {"sandbox_failed": 1}
    result = json.loads((tmp_path / "none/instances" / TIMESPAN / "result.json").read_text())
    assert result["reason"].startswith("the Ray worker evaluating it was lost 2 times")

    # Under bubblewrap the worker is in another PID namespace: the attack finds nothing.
    drive(env, tmp_path / "bwrap", [TIMESPAN, LOGLINE], *common, "--isolation", "bubblewrap")
    isolated = read_report(tmp_path / "bwrap")
    assert isolated["resolved_ids"] == [LOGLINE]
    assert isolated["unresolved_ids"] == [TIMESPAN]

    record(
        "code under test kills the Ray worker running it (isolation none)",
        "error (sandbox_failed)",
        f"{result['reason']}; retries are bounded, the other instance was graded",
        group="hostile predictions",
    )
    record(
        "the same worker killer under bubblewrap",
        "unresolved",
        "the worker is outside the sandbox's PID namespace: nothing to kill; graded normally",
        group="hostile predictions",
    )


@pytest.mark.ray
@pytest.mark.slow
@pytest.mark.reliability
def test_a_full_disk_stops_a_ray_run_cleanly(shared_cache: Path, tmp_path: Path) -> None:
    pytest.importorskip("ray")
    from tests.e2e.test_reliability_faults import _fill, _small_disk

    env = ray_env(shared_cache)
    # The first result (cronex, first in dataset order) fills the disk; the Java instances
    # after it take seconds, so the rest of the run surely meets the full disk.
    ids = ["polybench-mini__cronex-12", "polybench-mini__semver-java-14",
           "polybench-mini__tinyini-23", TIMESPAN]  # fmt: skip
    with _small_disk("4m") as disk:
        if disk is None:
            pytest.skip("mounting a small tmpfs is not allowed here")
        run_dir = disk / "run"
        driver = subprocess.Popen(
            [sys.executable, str(DRIVER), "--run-dir", str(run_dir), "--instance-ids",
             ",".join(ids), "--executor", "ray", "--workers", "1"],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )  # fmt: skip
        while driver.poll() is None and not list(run_dir.glob("instances/*/result.json")):
            time.sleep(0.02)
        _fill(disk)
        output, _ = driver.communicate(timeout=600)
        assert driver.returncode != 0
        assert "OutputDirectoryError: cannot write results to" in output, output[-3000:]
        assert "No space left on device" in output
        finished = sorted(p.parent.name for p in run_dir.glob("instances/*/result.json"))
        assert 1 <= len(finished) < len(ids)
        leftovers = [p for p in run_dir.rglob(".*") if p.is_file()]
        assert not leftovers, f"temporary files left behind: {leftovers}"
        for name in finished:
            json.loads((run_dir / "instances" / name / "result.json").read_text())
        (disk / "ballast").unlink()
        again = drive(env, run_dir, ids, "--executor", "ray", "--workers", "1")
        assert f"evaluated {len(ids) - len(finished)}, reused {len(finished)}" in again
        assert read_report(run_dir)["resolved_instances"] == len(ids)
    record(
        "disk full on the output directory of a Ray run (4 MiB tmpfs filled mid-run)",
        "run stops with OutputDirectoryError",
        f"{len(finished)} finished result(s) intact, no temporary files; "
        "queued tasks cancelled; the same run id resumed and completed",
    )
