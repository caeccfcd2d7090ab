"""``polybench agent run`` on all 16 mini instances against a scripted model endpoint
(driven through the real ``openai`` client), then ``eval`` and ``report`` of its
predictions: the expected verdicts, tokens that add up exactly, trajectories, resume.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from polybench.agent.trajectory import read_trajectory
from polybench.dataset.models import Instance
from tests.agent.fake_chat import ScriptedChatServer
from tests.agent.scripted_agent import (
    LOOP,
    MALFORMED,
    NOTHING,
    RATE_LIMITED,
    SERVER_ERROR,
    USAGE,
    WRONG,
    responder,
)
from tests.e2e.conftest import grade_agent_run, run_cli

pytestmark = [pytest.mark.slow]

PLANS = {
    "polybench-mini__argkit-97": NOTHING,
    "polybench-mini__cronex-12": LOOP,
    "polybench-mini__envcfg-18": MALFORMED,
    "polybench-mini__hues-41": RATE_LIMITED,
    "polybench-mini__logline-63": SERVER_ERROR,
    "polybench-mini__timespan-27": WRONG,
}
MAX_STEPS = 3


def test_agent_run_then_eval_and_report(
    mini: dict[str, Instance], shared_cache: Path, tmp_path: Path
) -> None:
    server = ScriptedChatServer([], responder=responder(mini, PLANS))
    server.start()
    try:
        args = [
            "agent", "run", "--dataset", "mini", "--model", "scripted-model",
            "--base-url", server.base_url, "--run-id", "agent-1",
            "--output-dir", str(tmp_path / "agent"), "--workers", "2",
            "--max-steps", str(MAX_STEPS), "--max-retries", "2",
        ]  # fmt: skip
        done = run_cli(args, shared_cache, env={"OPENAI_API_KEY": "test-key"})
        assert done.returncode == 0, done.stdout + done.stderr
        assert "16 instances to work on" in done.stdout
        # A rerun resumes: nothing is asked of the model again.
        asked = len(server.requests)
        again = run_cli(args, shared_cache, env={"OPENAI_API_KEY": "test-key"})
        assert again.returncode == 0 and len(server.requests) == asked, again.stdout
    finally:
        server.stop()
    assert set(server.authorizations) == {"Bearer test-key"}
    run_dir = tmp_path / "agent" / "agent-1"
    lines = (run_dir / "predictions.jsonl").read_text().splitlines()
    records = {r["instance_id"]: r for r in map(json.loads, lines)}
    assert set(records) == set(mini)
    statuses = {i: r["exit_status"] for i, r in records.items()}
    assert statuses["polybench-mini__cronex-12"] == "max_steps"
    assert {s for i, s in statuses.items() if i != "polybench-mini__cronex-12"} == {"submitted"}
    # Tokens add up exactly: every completion reported USAGE.
    prompt, completion, cached = USAGE
    for record in records.values():
        calls = record["api_calls"]
        assert record["usage"] == {
            "input_tokens": prompt * calls,
            "output_tokens": completion * calls,
            "cached_tokens": cached * calls,
        }, record
        assert record["model_name_or_path"] == "scripted-model"
        assert "exit_code" not in record and "proxy_calls" not in record  # commands' only
        trajectory = read_trajectory(
            run_dir / "trajectories" / f"{record['instance_id']}.traj.json"
        )
        assert len(trajectory.steps) == calls
    assert records["polybench-mini__cronex-12"]["api_calls"] == MAX_STEPS
    assert records["polybench-mini__hues-41"]["api_calls"] == 2  # the 429 is a retry
    assert records["polybench-mini__argkit-97"]["model_patch"] == ""
    total_calls = sum(r["api_calls"] for r in records.values())
    assert total_calls == len(server.requests) - 2  # two scripted HTTP errors

    report = grade_agent_run(run_dir, tmp_path / "runs", shared_cache)
    assert report["resolved_instances"] == 13, report
    assert sorted(report["unresolved_ids"]) == ["polybench-mini__timespan-27"]
    assert sorted(report["empty_patch_ids"]) == [
        "polybench-mini__argkit-97",
        "polybench-mini__cronex-12",
    ]

    reported = run_cli(
        ["report", str(tmp_path / "runs" / "graded"), "--output-dir", str(tmp_path / "rep"),
         "--no-retrieval", "--price-input", "1", "--price-output", "4"],
        shared_cache,
    )  # fmt: skip
    assert reported.returncode == 0, reported.stdout + reported.stderr
    run = json.loads((tmp_path / "rep" / "report.json").read_text())["runs"][0]
    assert run["tokens_n"] == len(records)
    assert run["input_tokens"] == pytest.approx(prompt * total_calls / len(records))
    assert run["output_tokens"] == pytest.approx(completion * total_calls / len(records))
    # $1 per million input tokens (cached ones included), $4 per million output tokens.
    expected_cost = (prompt * 1 + completion * 4) * total_calls / 1e6
    assert run["total_cost"] == pytest.approx(expected_cost)
