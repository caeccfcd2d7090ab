"""A killed ``polybench agent run`` resumes: SIGKILL once the first prediction is written,
run the same command again, and nothing finished is asked of the model again."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from polybench.dataset.models import Instance
from tests.agent.fake_chat import Reply, ScriptedChatServer
from tests.agent.scripted_agent import NOTHING, ScriptedAgent

pytestmark = [pytest.mark.slow]

IDS = [
    "polybench-mini__logline-58",
    "polybench-mini__logline-63",
    "polybench-mini__timespan-27",
    "polybench-mini__timespan-34",
]


class Gate:
    """The scripted model; once one instance has asked, the others wait until opened."""

    def __init__(self, agent: ScriptedAgent) -> None:
        self.agent = agent
        self.opened = threading.Event()
        self.first: str | None = None
        self.asked: Counter[str] = Counter()
        self.lock = threading.Lock()

    def __call__(self, body: dict[str, Any]) -> Reply:
        instance_id = self.agent.instance_of(body).instance_id
        with self.lock:
            self.asked[instance_id] += 1
            if self.first is None:
                self.first = instance_id
            held = instance_id != self.first
        if held:
            self.opened.wait(timeout=600)
        return self.agent(body)


def command(server: ScriptedChatServer, output: Path) -> list[str]:
    return [
        sys.executable, "-m", "polybench", "agent", "run", "--dataset", "mini",
        "--model", "scripted", "--base-url", server.base_url, "--run-id", "killed",
        "--output-dir", str(output), "--instance-ids", ",".join(IDS), "--workers", "1",
    ]  # fmt: skip


def lines_of(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_a_killed_agent_run_resumes_without_asking_again(
    mini: dict[str, Instance], shared_cache: Path, tmp_path: Path
) -> None:
    gate = Gate(ScriptedAgent(mini, {"polybench-mini__timespan-34": NOTHING}))
    server = ScriptedChatServer([], responder=gate)
    server.start()
    env = dict(os.environ, POLYBENCH_CACHE_DIR=str(shared_cache), OPENAI_API_KEY="k")
    predictions = tmp_path / "killed" / "predictions.jsonl"
    log = (tmp_path / "first.log").open("w")
    try:
        first = subprocess.Popen(
            command(server, tmp_path), env=env, stdout=log, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
        deadline = time.monotonic() + 600
        while not lines_of(predictions) and first.poll() is None:
            assert time.monotonic() < deadline, "no prediction was written in time"
            time.sleep(0.2)
        os.kill(first.pid, signal.SIGKILL)
        assert first.wait(timeout=600) == -signal.SIGKILL
        gate.opened.set()
        written = lines_of(predictions)  # valid JSONL after the kill
        finished = {record["instance_id"] for record in written}
        assert finished == {gate.first}
        asked_before = Counter(gate.asked)

        again = subprocess.run(
            command(server, tmp_path), env=env, capture_output=True, text=True, timeout=900
        )
        assert again.returncode == 0, again.stdout + again.stderr
    finally:
        gate.opened.set()
        log.close()
        server.stop()
    asked_again = gate.asked - asked_before
    assert not set(asked_again) & finished, asked_again
    assert set(asked_again) == set(IDS) - finished
    records = lines_of(predictions)
    assert sorted(record["instance_id"] for record in records) == sorted(IDS)  # each once
    assert {record["exit_status"] for record in records} == {"submitted"}
    assert "1 reused" in again.stdout
