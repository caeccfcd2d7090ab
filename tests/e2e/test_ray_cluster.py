"""A run on a real two-node Ray cluster on this machine, with a worker and a node lost.

The head and a second node are started with ``ray start`` (one CPU each, different
custom resources). A gold run over mini instances is spread over both. While it runs,
the worker process of a task on the second node is SIGKILLed in the middle of its test
command, and later the whole second node (raylet and workers). Ray retries the lost
tasks; the run completes and its report equals the report of a local run of the same
predictions.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.e2e.conftest import read_report
from tests.e2e.test_ray_executor import DRIVER, comparable, drive
from tests.helpers.procfs import descendants, parent_of, still_running
from tests.helpers.ray_cluster import new_cluster
from tests.helpers.reliability_log import record

pytestmark = [pytest.mark.ray, pytest.mark.slow, pytest.mark.reliability]

INSTANCES = [
    "polybench-mini__semver-java-14",
    "polybench-mini__tinyini-23",
    "polybench-mini__argkit-97",
    "polybench-mini__timespan-27",
    "polybench-mini__semver-java-21",
    "polybench-mini__logline-63",
    "polybench-mini__hues-41",
    "polybench-mini__tinyini-31",
    "polybench-mini__envcfg-18",
    "polybench-mini__cronex-12",
    "polybench-mini__quantify-58",
    "polybench-mini__timespan-34",
]


def _running_on(run_dir: Path, node_id: str, exclude: set[str]) -> tuple[str, int] | None:
    """An instance whose test command runs now on ``node_id``: (id, worker pid)."""
    for worker_file in run_dir.glob("instances/*/worker.json"):
        folder = worker_file.parent
        if folder.name in exclude or (folder / "result.json").exists():
            continue
        try:
            worker = json.loads(worker_file.read_text())
        except (OSError, ValueError):
            continue
        if worker["node_id"] == node_id and (folder / "eval.sh").exists():
            return folder.name, int(worker["pid"])
    return None


def _seen(run_dir: Path, seen: dict[str, set[str]]) -> None:
    for worker_file in run_dir.glob("instances/*/worker.json"):
        try:
            worker = json.loads(worker_file.read_text())
        except (OSError, ValueError):
            continue
        seen.setdefault(worker["node_id"], set()).add(worker_file.parent.name)


def _unfinished_on(run_dir: Path, node_id: str) -> list[str]:
    """Instances that started on ``node_id`` and have no result yet."""
    found = []
    for worker_file in run_dir.glob("instances/*/worker.json"):
        try:
            worker = json.loads(worker_file.read_text())
        except (OSError, ValueError):
            continue
        if worker["node_id"] == node_id and not (worker_file.parent / "result.json").exists():
            found.append(worker_file.parent.name)
    return found


def test_a_run_spread_over_two_nodes_survives_a_lost_worker_and_a_lost_node(
    shared_cache: Path, tmp_path: Path
) -> None:
    pytest.importorskip("ray")
    cluster = new_cluster()
    env = dict(cluster.env, POLYBENCH_CACHE_DIR=str(shared_cache))
    # The reference: the same predictions with the local executor (this also warms caches).
    drive(env, tmp_path / "local", INSTANCES, "--executor", "local", "--workers", "2")
    try:
        cluster.start_head(1, {"head": 1})
        cluster.add_node(1, {"worker2": 1})
        head, second = cluster.node_id_of("head"), cluster.node_id_of("worker2")
        raylet = cluster.raylet_of("worker2")
        assert head and second and raylet

        run_dir = tmp_path / "ray"
        driver = subprocess.Popen(
            [sys.executable, str(DRIVER), "--executor", "ray", "--ray-address", cluster.address,
             "--run-dir", str(run_dir), "--instance-ids", ",".join(INSTANCES)],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )  # fmt: skip
        seen: dict[str, set[str]] = {}
        killed_worker: tuple[str, int] | None = None
        missed: set[str] = set()
        killed_node: tuple[list[str], list[int]] | None = None
        deadline = time.monotonic() + 240
        while driver.poll() is None and time.monotonic() < deadline and not killed_node:
            _seen(run_dir, seen)
            if killed_worker is None:
                target = _running_on(run_dir, second, missed)
                if target and parent_of(target[1]) == raylet:
                    os.kill(target[1], signal.SIGKILL)
                    still_running([target[1]], within=600)  # a killed process writes nothing more
                    if (run_dir / "instances" / target[0] / "result.json").exists():
                        missed.add(target[0])  # it finished before the kill landed
                    else:
                        killed_worker = target
            else:
                target = _running_on(run_dir, second, {killed_worker[0]})
                if target:
                    node = descendants([raylet])
                    for pid in node:
                        os.kill(pid, signal.SIGKILL)
                    still_running(node, within=600)
                    # What the node still held when it died (a task may have finished
                    # between the choice and the kill): each must be redone on the head.
                    lost = _unfinished_on(run_dir, second)
                    killed_node = (lost, node)
            time.sleep(0.02)
        output, _ = driver.communicate(timeout=300)
        assert driver.returncode == 0, output
    finally:
        cluster.stop()
    assert not cluster.pids(), "processes of the cluster survived teardown"

    assert killed_worker and killed_node, f"the kills came too late: {output}"
    assert set(seen) == {head, second}, f"tasks ran on {set(seen)} only"
    ray_report, local_report = read_report(run_dir), read_report(tmp_path / "local")
    assert comparable(ray_report) == comparable(local_report)
    assert ray_report["resolved_instances"] == len(INSTANCES)
    worker_instance, worker_pid = killed_worker
    after = json.loads((run_dir / "instances" / worker_instance / "worker.json").read_text())
    assert after["pid"] != worker_pid
    for node_instance in killed_node[0]:
        folder = run_dir / "instances" / node_instance
        assert json.loads((folder / "worker.json").read_text())["node_id"] == head
    assert sorted(p.name for p in (run_dir / "instances").iterdir()) == sorted(INSTANCES)
    assert not (run_dir / ".sandboxes").exists()

    record(
        "Ray: the worker process running a task is SIGKILLed mid-test (2-node cluster)",
        "resolved after a Ray retry",
        f"{worker_instance} retried by Ray in a new worker; report equals the local run's",
    )
    record(
        "Ray: the second node (raylet and its workers) is killed mid-run",
        "resolved on the head node",
        f"{', '.join(killed_node[0]) or 'no running task'} and the node's queued tasks "
        "retried on the head; "
        f"{len(INSTANCES)}/{len(INSTANCES)} resolved, report equals the local run's",
    )
