"""``agent run`` on real local sandboxes, ending honestly: it stops when its first
instances all fail on the API, exits 1 when nothing was produced (an agent command that
never ran included), refuses to resume a run id made with other settings unless asked,
and shows an agent command's failure."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.agent.fake_chat import Reply, ScriptedChatServer, bash, submit
from tests.e2e.conftest import run_cli
from tests.helpers.docker_fixtures import make_git_repo

pytestmark = [pytest.mark.slow]

KEY = {"OPENAI_API_KEY": "test-key"}


@pytest.fixture
def dataset(tmp_path: Path) -> dict[str, Path]:
    """Six instances on one small repository (nothing to install)."""
    repo, base = make_git_repo(tmp_path / "repos" / "acme__calc", {"calc.py": "X = 1\n"})
    rows = [
        {
            "instance_id": f"acme__calc-{n}",
            "repo": "acme/calc",
            "base_commit": base,
            "patch": "",
            "test_patch": "",
            "problem_statement": f"Task {n}: set X to 2.",
            "language": "Python",
            "test_command": "python -m pytest -rA",
            "log_parser": "pytest",
            "F2P": ["tests/test_calc.py:None:test_x"],
            "P2P": [],
        }
        for n in range(1, 7)
    ]
    path = tmp_path / "dataset.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return {"dataset": path, "repos": repo.parent}


def _agent(
    data: dict[str, Path], server: ScriptedChatServer, out: Path, cache: Path, *extra: str
) -> Any:
    return run_cli(
        ["agent", "run", "--dataset", str(data["dataset"]), "--repo-dir", str(data["repos"]),
         "--model", "m", "--base-url", server.base_url, "--output-dir", str(out),
         "--run-id", "r", "--workers", "1", "--max-retries", "0", *extra],
        cache,
        env=KEY,
    )  # fmt: skip


def _records(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / "r" / "predictions.jsonl").read_text().splitlines()]


def test_a_run_whose_first_instances_fail_on_the_api_stops(
    dataset: dict[str, Path], shared_cache: Path, tmp_path: Path
) -> None:
    server = ScriptedChatServer([])  # the check passes; every other request gets HTTP 500
    server.start()
    try:
        done = _agent(dataset, server, tmp_path / "out", shared_cache)
    finally:
        server.stop()
    assert done.returncode == 1, done.stdout + done.stderr
    records = _records(tmp_path / "out")
    # The first three failed; one more may have started before the third ended. Every
    # instance that asked the model has its record; the others were never started.
    assert 3 <= len(records) <= 4 and {r["exit_status"] for r in records} == {"api_error"}
    assert len(server.requests) == len(records)
    assert "stopped: the first 3 instances all failed on the model's API" in done.stderr
    assert "no prediction was made" in done.stderr
    assert f"api_error {len(records)}" in " ".join(done.stderr.split())
    assert "grade them with" not in done.stdout


def test_a_run_that_produced_nothing_exits_1(
    dataset: dict[str, Path], shared_cache: Path, tmp_path: Path
) -> None:
    server = ScriptedChatServer([])
    server.start()
    try:
        done = _agent(
            dataset, server, tmp_path / "out", shared_cache,
            "--instance-ids", "acme__calc-1,acme__calc-2",
        )  # fmt: skip
    finally:
        server.stop()
    assert done.returncode == 1, done.stdout + done.stderr
    stderr = " ".join(done.stderr.split())
    assert "no prediction was made" in stderr and "(api_error 2)" in stderr


def test_a_run_id_is_not_resumed_with_other_settings_unless_asked(
    dataset: dict[str, Path], shared_cache: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    solve = [Reply(calls=(bash("c1", "echo 'X = 2' > calc.py"),)), Reply(calls=(submit("c2"),))]
    server = ScriptedChatServer(list(solve))
    server.start()
    try:
        first = _agent(dataset, server, out, shared_cache, "--instance-ids", "acme__calc-1")
        assert first.returncode == 0, first.stdout + first.stderr
        before = {
            name: (out / "r" / name).read_text() for name in ("run.json", "predictions.jsonl")
        }
        other = _agent(
            dataset, server, out, shared_cache,
            "--instance-ids", "acme__calc-1,acme__calc-2", "--max-steps", "7",
        )  # fmt: skip
        assert other.returncode == 2, other.stdout + other.stderr
        assert "run r was made with other settings (max_steps: 50 -> 7)" in other.stderr
        assert "--resume-changed" in other.stderr
        after = {name: (out / "r" / name).read_text() for name in before}
        assert after == before  # nothing rewritten
        server.replies += solve
        resumed = _agent(
            dataset, server, out, shared_cache,
            "--instance-ids", "acme__calc-1,acme__calc-2", "--max-steps", "7", "--resume-changed",
        )  # fmt: skip
    finally:
        server.stop()
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert "1 reused" in resumed.stdout
    run = json.loads((out / "r" / "run.json").read_text())
    assert run["agent"]["max_steps"] == 7
    assert [e["agent"]["max_steps"] for e in run["earlier_settings"]] == [50]
    assert run["earlier_settings"][0]["predictions"] == 1


def test_an_agent_commands_failure_shows_its_output_on_the_console(
    dataset: dict[str, Path], shared_cache: Path, tmp_path: Path
) -> None:
    server = ScriptedChatServer([])
    server.start()
    try:
        done = _agent(
            dataset, server, tmp_path / "out", shared_cache, "--instance-ids", "acme__calc-1",
            "--agent-command", "echo first line; echo 'no such agent: [red]x[/red]' >&2; exit 7",
        )  # fmt: skip
    finally:
        server.stop()
    lines = done.stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("agent_failed"))
    assert lines[at].endswith("the command exited with status 7; its output ends with:")
    assert lines[at + 1 : at + 3] == ["    first line", "    no such agent: [red]x[/red]"]
    # A command that failed before any model call and changed nothing made no prediction.
    assert done.returncode == 1, done.stdout + done.stderr
    stderr = " ".join(done.stderr.split())
    assert "no prediction was made" in stderr and "(agent_failed 1)" in stderr
