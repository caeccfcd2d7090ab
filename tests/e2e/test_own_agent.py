"""The README's recipe for an agent of one's own: ``examples/agents/own_agent.py``,
copied to a folder sandboxes may see, run through ``--agent-command`` with
``--agent-mount`` on mini instances against a scripted model; then ``eval``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from polybench.dataset.models import Instance
from tests.agent.fake_chat import ScriptedChatServer
from tests.agent.scripted_agent import NOTHING, ScriptedAgent
from tests.e2e.conftest import grade_agent_run, run_cli
from tests.e2e.test_agent_command import Tally

pytestmark = [pytest.mark.slow]

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "agents" / "own_agent.py"
SOLVED = "polybench-mini__semver-java-14"
IDLE = "polybench-mini__cronex-12"


def test_the_example_agent_runs_as_the_readme_says(
    mini: dict[str, Instance], shared_cache: Path, tmp_path: Path, agent_folder: Path
) -> None:
    tally = Tally(ScriptedAgent(mini, {IDLE: NOTHING}))
    server = ScriptedChatServer([], responder=tally)
    server.start()
    shutil.copy(EXAMPLE, agent_folder)
    try:
        done = run_cli(
            ["agent", "run", "--dataset", "mini", "--model", "scripted", "--base-url",
             server.base_url, "--run-id", "own", "--output-dir", str(tmp_path / "agent"),
             "--instance-ids", f"{SOLVED},{IDLE}", "--agent-mount", str(agent_folder),
             "--agent-command", f"python3 {agent_folder}/own_agent.py"],
            shared_cache,
            env={"OPENAI_API_KEY": "sk-own"},
        )  # fmt: skip
    finally:
        server.stop()
    assert done.returncode == 0, done.stdout + done.stderr
    run_dir = tmp_path / "agent" / "own"
    records = {
        r["instance_id"]: r
        for r in map(json.loads, (run_dir / "predictions.jsonl").read_text().splitlines())
    }
    for instance_id, record in records.items():
        assert record["exit_status"] == "submitted", record["reason"]
        counted = tally.tokens[instance_id]
        assert record["api_calls"] == counted["calls"] == 2
        assert record["usage"]["input_tokens"] == counted["input"]
        kept = json.loads((run_dir / "trajectories" / f"{instance_id}.output" /
                           "messages.json").read_text())  # fmt: skip
        assert kept[1]["content"] == mini[instance_id].problem_statement
    assert records[IDLE]["model_patch"] == ""

    report = grade_agent_run(run_dir, tmp_path / "runs", shared_cache)
    assert report["resolved_ids"] == [SOLVED]
    assert report["empty_patch_ids"] == [IDLE]
