"""Code under test and agents attacking the sandbox itself, on every backend, run by root
and by an unprivileged user, as ``polybench eval`` and ``polybench agent run`` run them.

The attack (:mod:`tests.e2e.attacks.escape`) undoes mounts, looks for the gold patch
everywhere (folders named after the instance, git directories such as the package's
source tree), plants code in the environments, reaches the Docker socket to write a host
file, and forges another prediction's result; with the gold patch it would be graded
resolved. Each run holds its controls: the gold patch resolves, an honest wrong patch
stays unresolved. Afterwards nothing the attack aimed at has changed, and a resumed run
trusts every saved result.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from polybench.agent.trajectory import read_trajectory
from polybench.curation.dataset_io import write_dataset
from polybench.dataset.builtin import materialise_builtin_repos
from polybench.dataset.models import Instance
from polybench.environments.integrity import manifest_path, verify
from polybench.paths import cache_root
from tests.agent.fake_chat import Reply, ScriptedChatServer, bash, submit
from tests.e2e.attacks.escape import escape_code
from tests.e2e.hostile import Edit, make_patch
from tests.e2e.hostile_suite import honest_wrong_patch
from tests.helpers.docker_fixtures import docker_bases, docker_settings  # noqa: F401
from tests.helpers.unprivileged import UID, needs_root, run_unprivileged, work_folder

pytestmark = [pytest.mark.slow, pytest.mark.reliability]

TARGETS = {
    "polybench-mini__timespan-34": "src/timespan/__init__.py",
    "polybench-mini__logline-58": "logline/__init__.py",
}
"""Instances attacked, and the kept source file the attack is appended to."""

Runner = Callable[[list[str], Path], subprocess.CompletedProcess[str]]
KEY = {"PB_TEST_KEY": "pb-secret-key-7f3a"}


def _as_root(argv: list[str], work: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "POLYBENCH_CACHE_DIR": str(cache_root()), "COLUMNS": "200", **KEY}
    return subprocess.run(
        [sys.executable, "-m", "polybench", *argv],
        cwd=work, env=env, capture_output=True, text=True, timeout=3600,
    )  # fmt: skip


def _unprivileged(argv: list[str], work: Path) -> subprocess.CompletedProcess[str]:
    return run_unprivileged([sys.executable, "-m", "polybench", *argv], work, env=KEY)


def _workspace(tmp_path: Path, who: str) -> Path:
    if who == "root":
        work = tmp_path / "work"
        work.mkdir()
        return work
    return work_folder(tmp_path)


def _chown(path: Path, who: str) -> None:
    if who != "root":
        subprocess.run(["chown", "-R", f"{UID}:{UID}", str(path)], check=True)


def _build(mini: dict[str, Instance], work: Path, marker: Path) -> tuple[Path, Path, Path]:
    """Repositories, a dataset of copies (attack, gold, honest wrong per instance) and the
    predictions file."""
    repos = work / "repos"
    materialise_builtin_repos("mini", repos)
    scratch = work / "scratch"
    scratch.mkdir()
    instances, predictions = [], []
    for base_id, target in TARGETS.items():
        base = mini[base_id]
        clone = repos / base.repo_dir_name
        honest_id = f"{base_id}.honest"
        attack = escape_code(f"{base_id}", honest_id, str(marker))
        patches = {
            f"{base_id}.escape": make_patch(clone, base.base_commit, scratch,
                                            Edit(append={target: attack})),
            f"{base_id}.gold": base.patch,
            honest_id: honest_wrong_patch(base, clone, scratch),
        }  # fmt: skip
        for copy_id, patch in patches.items():
            instances.append(base.model_copy(update={"instance_id": copy_id}))
            predictions.append({"instance_id": copy_id, "model_patch": patch,
                                "model_name_or_path": copy_id.rsplit(".", 1)[1]})  # fmt: skip
    dataset, preds = work / "dataset.jsonl", work / "predictions.jsonl"
    write_dataset(instances, dataset)
    preds.write_text("".join(json.dumps(p) + "\n" for p in predictions))
    return dataset, preds, repos


def _statuses(run_dir: Path) -> dict[str, str]:
    return {
        folder.name: json.loads((folder / "result.json").read_text())["status"]
        for folder in sorted((run_dir / "instances").iterdir())
    }


def _escape_lines(run_dir: Path) -> list[str]:
    lines: list[str] = []
    for folder in sorted((run_dir / "instances").glob("*.escape")):
        text = (folder / "test_output.txt").read_text(errors="replace")
        lines += [line for line in text.splitlines() if line.startswith("PB-ESCAPE")]
    return lines


def _environments_intact(cache: Path) -> list[str]:
    changed = []
    for env_dir in sorted((cache / "envs").glob("*")):
        if env_dir.is_dir() and manifest_path(env_dir).exists():
            found = verify(env_dir)
            if not found.ok:
                changed.append(f"{env_dir.name}: {found.describe()}")
    return changed


def _docker_escapes() -> list[str]:
    listed = subprocess.run(
        ["docker", "ps", "-aq", "--filter", "label=org.polybench.test=escape"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    ids = listed.stdout.split()
    if ids:
        subprocess.run(["docker", "rm", "-f", *ids], capture_output=True, check=False)
    return ids


def _check_escape_run(
    run: Runner,
    work: Path,
    cache: Path,
    mini: dict[str, Instance],
    backend: list[str],
    who: str = "root",
) -> None:
    marker = Path("/var/tmp") / f"polybench-escaped-{uuid.uuid4().hex}"
    dataset, preds, repos = _build(mini, work, marker)
    _chown(work, who)  # built here, run by the user the harness runs as
    argv = ["eval", "--dataset", str(dataset), "--predictions", str(preds), "--repo-dir",
            str(repos), "-o", str(work / "runs"), "--run-id", "escape", "--workers", "2",
            *backend]  # fmt: skip
    done = run(argv, work)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    run_dir = work / "runs" / "escape"
    statuses = _statuses(run_dir)
    lines = _escape_lines(run_dir)
    for base_id in TARGETS:
        assert statuses[f"{base_id}.gold"] == "resolved", statuses
        assert statuses[f"{base_id}.honest"] == "unresolved", statuses
        assert statuses[f"{base_id}.escape"] == "unresolved", (statuses, lines)
    assert sum("no gold patch found" in line for line in lines) == len(TARGETS), lines
    forbidden = ["unmounted", "remounted", "found the gold", "forged", "started a container",
                 "docker socket"]  # fmt: skip
    if "docker" not in backend:
        # In a container, root writes its own layer, which no other sandbox sees (the
        # conformance suite's boundary-writes check makes sure of it).
        forbidden.append("planted")
    assert not any(word in line for line in lines for word in forbidden), lines
    assert not marker.exists(), "the attack wrote a file of this machine"
    assert _docker_escapes() == [], "the attack started a container"
    assert _environments_intact(cache) == []
    again = run(argv, work)
    assert again.returncode == 0, again.stdout[-3000:] + again.stderr[-3000:]
    assert "redone" not in again.stderr, again.stderr
    assert f"reused {len(statuses)} finished results" in again.stdout, again.stdout[-2000:]
    assert _statuses(run_dir) == statuses


@pytest.mark.parametrize("who", ["root", pytest.param("unprivileged", marks=needs_root)])
def test_code_under_test_cannot_break_out_of_the_local_sandbox(
    who: str, mini: dict[str, Instance], tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    if who == "root":
        cache = request.getfixturevalue("shared_cache")
        request.getfixturevalue("cache_env")
    work = _workspace(tmp_path, who)
    if who != "root":
        cache = work / "cache"
    runner: Runner = _as_root if who == "root" else _unprivileged
    _check_escape_run(runner, work, cache, mini, ["--isolation", "bubblewrap"], who)


@pytest.mark.docker
def test_code_under_test_cannot_break_out_of_a_container(
    mini: dict[str, Instance],
    tmp_path: Path,
    cache_env: Path,
    docker_settings: object,  # noqa: F811
    docker_bases: object,  # noqa: F811
) -> None:
    options = ["--backend", "docker", "--base-source", docker_settings.base_source]  # type: ignore[attr-defined]
    if docker_settings.trust_host_ca:  # type: ignore[attr-defined]
        options.append("--trust-host-ca")
    _check_escape_run(_as_root, _workspace(tmp_path, "root"), cache_env, mini, options)


@pytest.mark.parametrize("who", ["root", pytest.param("unprivileged", marks=needs_root)])
def test_an_agent_cannot_break_out_of_the_local_sandbox(
    who: str, mini: dict[str, Instance], tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """The built-in agent's model runs the same attack as a script in one ``bash`` call:
    it finds no gold patch, and the patch taken from its sandbox holds none."""
    if who == "root":
        request.getfixturevalue("cache_env")
    work = _workspace(tmp_path, who)
    base_id = "polybench-mini__timespan-34"
    marker = Path("/var/tmp") / f"polybench-escaped-{uuid.uuid4().hex}"
    script = escape_code(base_id, base_id, str(marker), restart=False)
    replies = [
        Reply(calls=(bash("escape", f"python3 - <<'PB_EOF'\n{script}\nPB_EOF\ngit diff --stat"),)),
        # The real key is in the harness's environment: no process the agent sees holds it.
        Reply(
            calls=(
                bash(
                    "key",
                    "cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n' "
                    "| grep -c 'pb-secret-key-7f3a' || true",
                ),
            )
        ),
        Reply(calls=(submit("done"),)),
    ]
    server = ScriptedChatServer(replies)
    server.start()
    materialise_builtin_repos("mini", work / "repos")
    _chown(work, who)
    runner: Runner = _as_root if who == "root" else _unprivileged
    try:
        done = runner(
            ["agent", "run", "--dataset", "mini", "--instance-ids", base_id, "--model", "probe",
             "--base-url", server.base_url, "--api-key-env", "PB_TEST_KEY", "--run-id", "agent",
             "-o", str(work / "agents"), "--repo-dir", str(work / "repos")],
            work,
        )  # fmt: skip
    finally:
        server.stop()
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    run_dir = work / "agents" / "agent"
    trajectory = read_trajectory(run_dir / "trajectories" / f"{base_id}.traj.json")
    output = trajectory.steps[0].tool_calls[0].output
    assert "no gold patch found" in output, output
    assert "found the gold" not in output and "applied the gold" not in output, output
    assert trajectory.steps[1].tool_calls[0].output.strip().splitlines()[-1] == "0"
    record = json.loads((run_dir / "predictions.jsonl").read_text().splitlines()[0])
    gold_lines = [line for line in mini[base_id].patch.splitlines() if line.startswith("+ ")]
    assert not any(line in record["model_patch"] for line in gold_lines)
    assert not marker.exists()
