"""``polybench agent run --agent-command`` with a real command-line agent (the official
``openai`` client inside the sandbox) on mini instances, against a scripted model behind
the harness's metering proxy; then ``eval`` of its predictions."""

from __future__ import annotations

import json
import shlex
import shutil
import sys
import threading
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from polybench.dataset.models import Instance
from polybench.sandbox.local import bubblewrap_available
from tests.agent.fake_chat import Reply, ScriptedChatServer
from tests.agent.scripted_agent import NOTHING, ScriptedAgent
from tests.e2e.conftest import grade_agent_run, run_cli

pytestmark = [pytest.mark.slow]

AGENT = Path(__file__).resolve().parents[1] / "agent" / "cli_agent.py"
SOLVED = "polybench-mini__timespan-27"
IDLE = "polybench-mini__timespan-34"
GAVE_UP = "polybench-mini__logline-63"  # solves it, then exits with status 3
REAL_KEY = "sk-real-key-never-in-a-sandbox-6f1e"


class Tally:
    """The scripted model, counting the tokens it reported to each instance."""

    def __init__(self, agent: ScriptedAgent) -> None:
        self.agent = agent
        self.tokens: dict[str, Counter[str]] = {}
        self.lock = threading.Lock()

    def __call__(self, body: dict[str, Any]) -> Reply:
        reply = self.agent(body)
        instance_id = self.agent.instance_of(body).instance_id
        with self.lock:
            counts = self.tokens.setdefault(instance_id, Counter())
            if reply.status == 200 and reply.usage is not None:
                prompt, completion, cached = reply.usage
                counts.update(calls=1, input=prompt, output=completion, cached=cached)
        return reply


def agent_command(folder: Path) -> list[str]:
    """``--agent-mount`` and the beginning of ``--agent-command`` for the test agent, put in
    ``folder`` (the source tree is not in sandboxes)."""
    prefix = Path(sys.prefix).resolve()
    if any(prefix == p or p in prefix.parents for p in (Path("/tmp"), Path("/var/tmp"))):
        # The test agent needs this interpreter's packages (the openai client), and the
        # sandboxes have a /tmp of their own: such a folder cannot be given to them (agent
        # runs refuse it, as test_an_agent_mount_its_sandboxes_cannot_see_is_refused_...
        # shows).
        pytest.skip(f"this interpreter's environment ({prefix}) is under a private /tmp")
    shutil.copy(AGENT, folder / AGENT.name)
    script = shlex.quote(str(folder / AGENT.name))
    return ["--agent-mount", str(folder), f"{shlex.quote(sys.executable)} {script}"]


def agent_run(
    cache: Path,
    output: Path,
    server: ScriptedChatServer,
    ids: list[str],
    folder: Path,
    *extra: str,
) -> Any:
    *mount, agent = agent_command(folder)
    command = f"{agent} --fail-on {GAVE_UP} --probe {server.url.split('//', 1)[1]}"
    return run_cli(
        ["agent", "run", "--dataset", "mini", "--model", "scripted-cli",
         "--base-url", server.base_url, "--run-id", "cmd", "--output-dir", str(output),
         "--instance-ids", ",".join(ids), "--workers", "2", "--agent-command", command,
         *mount, *extra],
        cache,
        env={"OPENAI_API_KEY": REAL_KEY},
    )  # fmt: skip


def test_a_cli_agent_runs_in_the_sandboxes_metered_and_its_patches_evaluate(
    mini: dict[str, Instance], shared_cache: Path, tmp_path: Path, agent_folder: Path
) -> None:
    tally = Tally(ScriptedAgent(mini, {IDLE: NOTHING}))
    server = ScriptedChatServer([], responder=tally)
    server.start()
    ids = [SOLVED, IDLE, GAVE_UP]
    try:
        done = agent_run(shared_cache, tmp_path / "agent", server, ids, agent_folder)
    finally:
        server.stop()
    assert done.returncode == 0, done.stdout + done.stderr
    run_dir = tmp_path / "agent" / "cmd"
    run = json.loads((run_dir / "run.json").read_text())
    assert run["agent_command"].endswith(f"--probe {server.url.split('//', 1)[1]}")
    records = {
        r["instance_id"]: r
        for r in map(json.loads, (run_dir / "predictions.jsonl").read_text().splitlines())
    }
    assert set(records) == set(ids)
    assert {i: r["exit_status"] for i, r in records.items()} == {
        SOLVED: "submitted",
        IDLE: "submitted",
        GAVE_UP: "agent_failed",
    }
    assert records[GAVE_UP]["exit_code"] == 3
    assert "status 3" in records[GAVE_UP]["reason"]
    assert "giving up on purpose" in records[GAVE_UP]["reason"]
    assert records[GAVE_UP]["model_patch"]  # what it changed before failing is kept
    assert records[IDLE]["model_patch"] == ""
    # Tokens per instance are exactly what the model reported to that instance.
    for instance_id, record in records.items():
        counted = tally.tokens[instance_id]
        assert record["api_calls"] == counted["calls"] == 2
        assert record["usage"] == {
            "input_tokens": counted["input"],
            "output_tokens": counted["output"],
            "cached_tokens": counted["cached"],
        }
    # The real key went upstream from the proxy only; the sandbox saw its token.
    assert set(server.authorizations) == {f"Bearer {REAL_KEY}"}
    tokens = set()
    for instance_id in ids:
        log = (run_dir / "trajectories" / f"{instance_id}.agent.log").read_text()
        assert REAL_KEY not in log
        env = dict(line[4:].split("=", 1) for line in log.splitlines() if line.startswith("env "))
        token = env["OPENAI_API_KEY"]
        assert token and token != REAL_KEY
        assert env["OPENAI_BASE_URL"].endswith(f"/i/{token}/v1")
        assert env["POLYBENCH_INSTANCE_ID"] == instance_id
        assert env["POLYBENCH_MODEL"] == "scripted-cli"
        tokens.add(token)
        if bubblewrap_available():
            assert f"{server.url.split('//', 1)[1]} unreachable" in log  # network off
        else:
            assert f"{server.url.split('//', 1)[1]} reachable" in log
    assert len(tokens) == len(ids)  # one token per instance
    if bubblewrap_available():
        assert run["isolation"] == "bubblewrap"
        assert run["network"].startswith("none: the command reaches only the metering proxy")
    else:
        assert run["network"].startswith("host")

    report = grade_agent_run(run_dir, tmp_path / "runs", shared_cache)
    assert sorted(report["resolved_ids"]) == [GAVE_UP, SOLVED], report
    assert report["empty_patch_ids"] == [IDLE]


def test_a_cli_agent_past_the_wall_clock_ends_time_limit_with_its_changes(
    shared_cache: Path, tmp_path: Path
) -> None:
    server = ScriptedChatServer([])
    server.start()
    # A loaded machine may spend a short limit on starting the sandbox: longer limits until
    # the command has written its draft, so that what is checked is what the limit keeps.
    try:
        for limit in (5, 60, 600):
            run_id = f"slow-{limit}"
            done = run_cli(
                ["agent", "run", "--dataset", "mini", "--model", "m", "--base-url",
                 server.base_url, "--run-id", run_id, "--output-dir", str(tmp_path),
                 "--instance-ids", SOLVED, "--wall-clock", str(limit),
                 "--agent-command", "echo started; echo draft > DRAFT.txt; exec sleep 1200"],
                shared_cache,
                env={"OPENAI_API_KEY": REAL_KEY},
            )  # fmt: skip
            assert done.returncode == 0, done.stdout + done.stderr
            record = json.loads((tmp_path / run_id / "predictions.jsonl").read_text())
            assert record["exit_status"] == "time_limit" and record["exit_code"] is None
            assert f"wall-clock limit of {limit} s" in record["reason"]
            if "b/DRAFT.txt" in record["model_patch"]:
                break
    finally:
        server.stop()
    assert "b/DRAFT.txt" in record["model_patch"]
    assert record["api_calls"] == 0 and server.requests == []
    log = (tmp_path / run_id / "trajectories" / f"{SOLVED}.agent.log").read_text()
    assert log.startswith("started")


def test_an_agent_mount_its_sandboxes_cannot_see_is_refused_before_anything_runs(
    shared_cache: Path, tmp_path: Path
) -> None:
    done = run_cli(
        ["agent", "run", "--model", "m", "--base-url", "http://127.0.0.1:9/v1",
         "--agent-command", "true", "--agent-mount", "/tmp", "--output-dir", str(tmp_path),
         "--isolation", "bubblewrap"],
        shared_cache,
    )  # fmt: skip
    if not bubblewrap_available():
        pytest.skip("bubblewrap cannot run here")
    assert done.returncode == 2
    assert "--agent-mount /tmp" in done.stderr and "their /tmp" in done.stderr
    assert list(tmp_path.iterdir()) == []
