"""LocalWorkspace: exit codes, output cap, timeouts that kill the whole process group."""

from __future__ import annotations

from pathlib import Path

import pytest

from polybench.agent.workspace import LocalWorkspace, Workspace
from tests.helpers.procfs import still_running


def test_runs_in_its_directory_with_exit_code(tmp_path: Path) -> None:
    (tmp_path / "marker.txt").write_text("here\n")
    outcome = LocalWorkspace(tmp_path).run("cat marker.txt; echo oops >&2; exit 4", timeout=30)
    assert outcome.exit_code == 4
    assert outcome.output == "here\noops\n"
    assert not outcome.timed_out
    assert outcome.truncated_bytes == 0
    assert isinstance(LocalWorkspace(tmp_path), Workspace)


def test_timeout_kills_background_children(tmp_path: Path) -> None:
    workspace = LocalWorkspace(tmp_path)
    pid_file = tmp_path / "child.pid"
    # A loaded machine may not get as far as starting the child within a short timeout:
    # longer ones until it does, so that what is checked is the kill, not the speed.
    for timeout in (0.3, 3.0, 30.0, 300.0):
        outcome = workspace.run("sleep 600 & echo $! > child.pid; wait", timeout=timeout)
        assert outcome.timed_out and outcome.exit_code is None
        if pid_file.exists() and pid_file.read_text().strip():
            break
    assert still_running([int(pid_file.read_text())]) == []


def test_output_beyond_the_cap_is_dropped_from_the_middle(tmp_path: Path) -> None:
    workspace = LocalWorkspace(tmp_path, max_output_bytes=1000)
    outcome = workspace.run("printf 'a%.0s' $(seq 3000); printf 'z%.0s' $(seq 3000)", timeout=30)
    assert outcome.truncated_bytes == 5000
    assert outcome.output.startswith("a" * 500)
    assert outcome.output.endswith("z" * 500)


def test_secrets_of_the_harness_are_not_passed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-should-not-leak")
    monkeypatch.setenv("GITHUB_TOKEN", "ghp-should-not-leak")
    outcome = LocalWorkspace(tmp_path, env={"EXTRA": "yes"}).run("env", timeout=30)
    assert "should-not-leak" not in outcome.output
    assert "EXTRA=yes" in outcome.output
    assert "GIT_PAGER=cat" in outcome.output
