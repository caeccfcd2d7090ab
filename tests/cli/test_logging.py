"""Log levels and the JSON event stream: ``--verbose`` adds debug messages, ``--quiet``
keeps warnings, errors and results, ``--log-json FILE`` records every event of a run as
one JSON object a line."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from polybench.cli.main import app
from polybench.logs import NORMAL, configure, emit

IDS = "polybench-mini__hues-41,polybench-mini__logline-58"


def _eval(tmp_path: Path, *options: str, predictions: str = "empty") -> tuple[int, str]:
    result = CliRunner().invoke(
        app,
        [*options, "eval", "--predictions", predictions, "--instance-ids", IDS,
         "-o", str(tmp_path / "runs"), "--run-id", "r", "--force"],
        env={"COLUMNS": "200", "POLYBENCH_CACHE_DIR": str(tmp_path / "cache")},
    )  # fmt: skip
    return result.exit_code, result.output


def _events(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_the_json_stream_has_every_event_of_a_run(tmp_path: Path) -> None:
    stream = tmp_path / "events" / "run.jsonl"
    code, _ = _eval(tmp_path, "--log-json", str(stream))
    assert code == 0
    events = _events(stream)
    kinds = [e["event"] for e in events if "event" in e]
    assert kinds == ["run_planned", "run_started", "instance_finished", "instance_finished",
                     "run_finished"]  # fmt: skip
    finished = [e for e in events if e.get("event") == "instance_finished"]
    assert sorted(e["instance_id"] for e in finished) == sorted(IDS.split(","))
    assert {e["status"] for e in finished} == {"empty_patch"}
    assert [e["done"] for e in finished] == [1, 2] and {e["total"] for e in finished} == {2}
    last = events[-1]
    assert last["exit_code"] == 0 and last["total"] == 2 and last["empty_patch"] == 2
    assert all(e["time"].endswith("+00:00") and e["level"] for e in events)
    # Appended to, not replaced: a sweep can follow several runs in one file.
    _eval(tmp_path, "--log-json", str(stream))
    assert len(_events(stream)) == 2 * len(events)


def test_refused_input_is_an_event_too(tmp_path: Path) -> None:
    stream = tmp_path / "run.jsonl"
    bad = tmp_path / "p.jsonl"
    bad.write_text("")
    code, _ = _eval(tmp_path, "--log-json", str(stream), predictions=str(bad))
    assert code == 2
    (event,) = _events(stream)
    assert event["event"] == "run_refused" and event["exit_code"] == 2
    assert "no usable prediction" in event["message"]


def test_quiet_keeps_warnings_and_results_only(tmp_path: Path) -> None:
    predictions = tmp_path / "p.jsonl"
    predictions.write_text(
        '{"instance_id": "polybench-mini__hues-41", "model_patch": ""}\nnot json\n'
    )
    code, output = _eval(tmp_path, "--quiet", predictions=str(predictions))
    assert code == 0, output
    assert "[1/1]" not in output and "instances to evaluate" not in output
    assert "warning: predictions line 2" in output
    assert "run r" in output and "pass rate by rule" in output
    code, normal = _eval(tmp_path, predictions=str(predictions))
    assert "[1/1]" in normal and "instances to evaluate" in normal


def test_verbose_adds_debug_messages(tmp_path: Path) -> None:
    code, output = _eval(tmp_path, "-v")
    assert code == 0
    debug = [line for line in output.splitlines() if line.startswith("debug: ")]
    assert any("polybench-mini__hues-41: empty_patch after" in line for line in debug), output
    code, normal = _eval(tmp_path)
    assert "debug: " not in normal


def test_verbose_and_quiet_exclude_each_other(tmp_path: Path) -> None:
    code, output = _eval(tmp_path, "-v", "-q")
    assert code == 2 and "exclude each other" in output


def test_the_stream_can_go_to_stderr(tmp_path: Path) -> None:
    code, output = _eval(tmp_path, "--log-json", "-")
    assert code == 0
    lines = [json.loads(line) for line in output.splitlines() if line.startswith('{"time"')]
    assert [e.get("event") for e in lines][-1] == "run_finished"


def test_the_stderr_stream_follows_whatever_stderr_is_now(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A stderr stream taken at set-up and closed since (a test runner's capture, a
    redirection) must not turn later events into logging errors."""
    first, second = io.StringIO(), io.StringIO()
    monkeypatch.setattr(sys, "stderr", first)
    configure(NORMAL, Path("-"))
    try:
        first.close()
        monkeypatch.setattr(sys, "stderr", second)
        emit("run_started", instances=2)
    finally:
        configure(NORMAL)
    (line,) = second.getvalue().splitlines()
    assert json.loads(line)["event"] == "run_started"
    assert "Logging error" not in second.getvalue()
