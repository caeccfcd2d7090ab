"""``polybench agent run --executor ray``: every instance a Ray task that builds the local
provider on its worker, with the built-in loop or an agent command, against a scripted
model; records reach ``predictions.jsonl`` in the driver and a rerun resumes."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import pytest

from polybench.dataset.models import Instance
from tests.agent.fake_chat import ScriptedChatServer
from tests.agent.scripted_agent import NOTHING, RATE_LIMITED, USAGE, responder
from tests.e2e.conftest import grade_agent_run, run_cli
from tests.e2e.test_agent_command import agent_command

pytestmark = [pytest.mark.slow, pytest.mark.ray]

SOLVED = "polybench-mini__timespan-27"
IDLE = "polybench-mini__timespan-34"
LIMITED = "polybench-mini__hues-41"
KEY = "sk-ray-run-key"


def ray_env() -> dict[str, str]:
    """A Ray of the run's own (with its own token) and the key."""
    return {
        "RAY_AUTH_MODE": "token",
        "RAY_AUTH_TOKEN": uuid.uuid4().hex,
        "RAY_USAGE_STATS_ENABLED": "0",
        "OPENAI_API_KEY": KEY,
    }


def records_of(run_dir: Path) -> dict[str, dict[str, Any]]:
    lines = (run_dir / "predictions.jsonl").read_text().splitlines()
    return {r["instance_id"]: r for r in map(json.loads, lines)}


def test_the_built_in_agent_runs_as_ray_tasks_then_evaluates_and_resumes(
    mini: dict[str, Instance], shared_cache: Path, tmp_path: Path
) -> None:
    pytest.importorskip("ray")
    server = ScriptedChatServer(
        [], responder=responder(mini, {IDLE: NOTHING, LIMITED: RATE_LIMITED})
    )
    server.start()
    args = [
        "agent", "run", "--dataset", "mini", "--model", "scripted-ray",
        "--base-url", server.base_url, "--run-id", "ray", "--output-dir", str(tmp_path),
        "--instance-ids", f"{SOLVED},{IDLE},{LIMITED}", "--executor", "ray", "--workers", "2",
        "--max-retries", "2",
    ]  # fmt: skip
    try:
        done = run_cli(args, shared_cache, env=ray_env())
        assert done.returncode == 0, done.stdout + done.stderr
        asked = len(server.requests)
        again = run_cli(args, shared_cache, env=ray_env())
        assert again.returncode == 0, again.stdout + again.stderr
        assert len(server.requests) == asked  # nothing asked again
        assert "3 reused" in again.stdout
    finally:
        server.stop()
    run_dir = tmp_path / "ray"
    assert json.loads((run_dir / "run.json").read_text())["executor"] == "ray"
    records = records_of(run_dir)
    assert {i: r["exit_status"] for i, r in records.items()} == dict.fromkeys(
        [SOLVED, IDLE, LIMITED], "submitted"
    )
    prompt, completion, cached = USAGE
    for record in records.values():
        assert record["api_calls"] == 2  # the 429 was retried, not counted
        assert record["usage"] == {
            "input_tokens": 2 * prompt,
            "output_tokens": 2 * completion,
            "cached_tokens": 2 * cached,
        }
        assert (run_dir / "trajectories" / f"{record['instance_id']}.traj.json").is_file()
    assert asked == 2 * 3 + 1  # one scripted 429
    assert set(server.authorizations) == {f"Bearer {KEY}"}  # the workers had the key

    report = grade_agent_run(run_dir, tmp_path / "runs", shared_cache)
    assert sorted(report["resolved_ids"]) == [LIMITED, SOLVED]
    assert report["empty_patch_ids"] == [IDLE]


def test_an_agent_command_runs_as_ray_tasks_with_a_proxy_on_the_worker(
    mini: dict[str, Instance], shared_cache: Path, tmp_path: Path, agent_folder: Path
) -> None:
    pytest.importorskip("ray")
    server = ScriptedChatServer([], responder=responder(mini, {IDLE: NOTHING}))
    server.start()
    *mount, command = agent_command(agent_folder)
    try:
        done = run_cli(
            ["agent", "run", "--dataset", "mini", "--model", "scripted-ray",
             "--base-url", server.base_url, "--run-id", "ray-cmd", "--output-dir", str(tmp_path),
             "--instance-ids", f"{SOLVED},{IDLE}", "--executor", "ray", "--workers", "2",
             "--agent-command", command, *mount],
            shared_cache,
            env=ray_env(),
        )  # fmt: skip
    finally:
        server.stop()
    assert done.returncode == 0, done.stdout + done.stderr
    records = records_of(tmp_path / "ray-cmd")
    assert {i: r["exit_status"] for i, r in records.items()} == {
        SOLVED: "submitted",
        IDLE: "submitted",
    }
    assert records[SOLVED]["model_patch"] and records[IDLE]["model_patch"] == ""
    prompt, completion, cached = USAGE
    for record in records.values():
        assert record["api_calls"] == 2
        assert record["usage"] == {
            "input_tokens": 2 * prompt,
            "output_tokens": 2 * completion,
            "cached_tokens": 2 * cached,
        }
    assert set(server.authorizations) == {f"Bearer {KEY}"}
    for instance_id in records:
        log = (tmp_path / "ray-cmd" / "trajectories" / f"{instance_id}.agent.log").read_text()
        assert KEY not in log and "env OPENAI_API_KEY=" in log
