"""Processes: timeouts kill the whole group, output is capped, paths are mapped."""

import os
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from polybench.sandbox import process as process_module
from polybench.sandbox.process import run_process

ENV = dict(os.environ)
_POPEN = subprocess.Popen


def test_exit_code_and_merged_output(tmp_path: Path) -> None:
    result = run_process(["bash", "-c", "echo out; echo err >&2; exit 3"], tmp_path, ENV, 30)
    assert result.exit_code == 3
    assert "out" in result.output and "err" in result.output
    assert not result.timed_out


def test_timeout_kills_the_whole_process_group(tmp_path: Path) -> None:
    marker = tmp_path / "child-alive"
    script = f"(sleep 3; touch {marker}) & sleep 60"
    result = run_process(["bash", "-c", script], tmp_path, ENV, timeout=1)
    assert result.timed_out and result.exit_code is None
    time.sleep(3.5)
    assert not marker.exists(), "the background child survived the timeout"


def test_background_child_holding_the_pipe_does_not_hang_the_run(tmp_path: Path) -> None:
    # Waiting for the child would end in the timeout: a run that is not timed out did not.
    result = run_process(["bash", "-c", "sleep 600 & echo done"], tmp_path, ENV, timeout=120)
    assert not result.timed_out
    assert result.exit_code == 0 and "done" in result.output


class _LateReader:
    """Popen that returns only once the process has exited and ``stall`` seconds more have
    passed: the harness's process was kept from running (a loaded machine)."""

    def __init__(self, stall: float) -> None:
        self.stall = stall

    def __call__(self, *args: Any, **kwargs: Any) -> subprocess.Popen[bytes]:
        started: subprocess.Popen[bytes] = _POPEN(*args, **kwargs)
        started.wait(timeout=600)
        time.sleep(self.stall)
        return started


def test_output_written_before_the_leader_exited_is_kept_however_late_it_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A background child holds the pipes open and the wait for it is already over when the
    # reader first looks: what the leader wrote is in the pipes and must still be read.
    monkeypatch.setattr(process_module.subprocess, "Popen", _LateReader(0))
    monkeypatch.setattr(process_module, "_DRAIN_SECONDS", 0.0)
    script = "sleep 600 & seq 1 5000; echo END; echo ERR >&2"
    for streams in (False, True):
        result = run_process(["bash", "-c", script], tmp_path, ENV, 120, streams=streams)
        assert (result.exit_code, result.timed_out) == (0, False)
        assert "4999\n5000\nEND\n" in result.output and "ERR\n" in result.output
        if streams:
            assert result.stdout is not None and result.stdout.endswith("4999\n5000\nEND\n")
            assert result.stderr == "ERR\n"


def test_a_command_that_ended_in_time_is_not_a_timeout_however_late_it_is_noticed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(process_module.subprocess, "Popen", _LateReader(1.5))
    result = run_process(["bash", "-c", "echo done; exit 4"], tmp_path, ENV, timeout=0.5)
    assert (result.exit_code, result.timed_out, result.output) == (4, False, "done\n")


def test_huge_output_is_capped_keeping_head_and_tail(tmp_path: Path) -> None:
    script = "echo FIRST; head -c 5000000 /dev/zero | tr '\\0' x; echo; echo LAST"
    result = run_process(["bash", "-c", script], tmp_path, ENV, 60, max_output_bytes=100_000)
    assert result.output.startswith("FIRST")
    assert result.output.rstrip().endswith("LAST")
    assert result.truncated_bytes > 4_800_000
    assert "output truncated here" in result.output
    assert len(result.output) < 110_000


def test_invalid_utf8_output_is_replaced_not_fatal(tmp_path: Path) -> None:
    result = run_process(["bash", "-c", "printf 'ok \\xff\\xfe end'"], tmp_path, ENV, 30)
    assert result.output == "ok \ufffd\ufffd end"


def test_path_map_rewrites_host_paths(tmp_path: Path) -> None:
    result = run_process(
        ["bash", "-c", "pwd"], tmp_path, ENV, 30, path_map={str(tmp_path): "/testbed"}
    )
    assert result.output.strip() == "/testbed"
