"""Importing other agents' output folders (fixtures written for these tests)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from polybench.agent.importers import ImportProblem, import_runs
from polybench.dataset.predictions import read_predictions_file

REAL = Path(__file__).parent / "fixtures" / "real"
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def without_patch(predictions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in item.items() if k != "model_patch"} for item in predictions]


def patches(predictions: list[dict[str, Any]]) -> dict[str, str]:
    return {item["instance_id"]: item["model_patch"] for item in predictions}


def test_mini_swe_agent_run_folder() -> None:
    result = import_runs("mini-swe-agent", FIXTURES / "mini-swe-agent")

    assert without_patch(result.predictions) == [
        {
            "instance_id": "acme__widgets-101",
            "model_name_or_path": "openai/gpt-5-mini",
            "usage": {
                "input_tokens": 1520 + 2100 + 2390,
                "output_tokens": 210 + 95 + 40,
                "cached_tokens": 1408 + 1920,
            },
            "api_calls": 3,
            "exit_status": "Submitted",
        },
        {
            "instance_id": "acme__widgets-102",
            "model_name_or_path": "openai/gpt-5-mini",
            "usage": {"input_tokens": 1400, "output_tokens": 60, "cached_tokens": 0},
            "api_calls": 2,
            "exit_status": "LimitsExceeded",
        },
        {
            "instance_id": "acme__widgets-103",
            "model_name_or_path": "openai/gpt-5-mini",
            "usage": {"input_tokens": 900, "output_tokens": 30, "cached_tokens": 512},
            "api_calls": 1,
            "exit_status": "Submitted",
        },
        {"instance_id": "acme__widgets-104", "model_name_or_path": "openai/gpt-5-mini"},
    ]
    traj_103 = json.loads(
        (FIXTURES / "mini-swe-agent/acme__widgets-103/acme__widgets-103.traj.json").read_text()
    )
    preds = json.loads((FIXTURES / "mini-swe-agent/preds.json").read_text())
    assert patches(result.predictions) == {
        "acme__widgets-101": preds["acme__widgets-101"]["model_patch"],
        "acme__widgets-102": "",
        "acme__widgets-103": traj_103["info"]["submission"],
        "acme__widgets-104": preds["acme__widgets-104"]["model_patch"],
    }
    assert result.problems == [
        ImportProblem("acme__widgets-102", "1 of 2 responses report no usage: tokens undercounted"),
        ImportProblem(
            "acme__widgets-103", "not in the predictions file; patch from the trajectory"
        ),
        ImportProblem("acme__widgets-104", "no trajectory: usage unknown"),
    ]


def test_swe_agent_run_folder() -> None:
    result = import_runs("swe-agent", FIXTURES / "swe-agent")

    assert without_patch(result.predictions) == [
        {
            "instance_id": "acme__widgets-101",
            "model_name_or_path": "sweagent__claude-sonnet-4",
            "usage": {"input_tokens": 48211, "output_tokens": 1533},
            "api_calls": 14,
            "exit_status": "submitted",
        },
        {
            "instance_id": "acme__widgets-102",
            "model_name_or_path": "sweagent__claude-sonnet-4",
            "api_calls": 61,
            "exit_status": "exit_cost",
        },
    ]
    assert result.predictions[1]["model_patch"] == ""
    assert result.problems == [
        ImportProblem("acme__widgets-102", "no patch: empty patch used"),
        ImportProblem("acme__widgets-102", "info.model_stats lacks tokens_sent/tokens_received"),
    ]


def test_swe_agent_legacy_all_preds_and_flat_trajectories() -> None:
    result = import_runs("swe-agent", FIXTURES / "swe-agent-legacy" / "all_preds.jsonl")

    assert without_patch(result.predictions) == [
        {
            "instance_id": "acme__widgets-201",
            "model_name_or_path": (
                "gpt4__swe-bench-dev__default__t-0.00__p-0.95__c-2.00__install-1"
            ),
            "usage": {"input_tokens": 80123, "output_tokens": 912},
            "api_calls": 9,
            "exit_status": "submitted",
        }
    ]
    assert result.problems == []


def test_openhands_output_jsonl() -> None:
    result = import_runs("openhands", FIXTURES / "openhands")

    assert without_patch(result.predictions) == [
        {
            "instance_id": "acme__widgets-101",
            "model_name_or_path": "litellm_proxy/claude-sonnet-4-20250514",
            "usage": {"input_tokens": 30500, "output_tokens": 1210, "cached_tokens": 21000},
            "api_calls": 3,
            "exit_status": "finished",
        },
        {
            # No accumulated usage in metrics: the last snapshot in the history counts.
            "instance_id": "acme__widgets-102",
            "model_name_or_path": "litellm_proxy/claude-sonnet-4-20250514",
            "usage": {"input_tokens": 9100, "output_tokens": 260, "cached_tokens": 3900},
        },
        {
            "instance_id": "acme__widgets-103",
            "model_name_or_path": "litellm_proxy/claude-sonnet-4-20250514",
            "exit_status": "error",
            "agent_error": "Agent got stuck in a loop",
        },
    ]
    assert result.predictions[0]["model_patch"].startswith("diff --git a/widgets/core.py")
    assert result.problems == [
        ImportProblem("output.jsonl:3", "not JSON: Expecting value: line 1 column 53 (char 52)"),
        ImportProblem("acme__widgets-103", "no token usage in metrics or history"),
    ]


def test_model_name_override() -> None:
    result = import_runs("openhands", FIXTURES / "openhands" / "output.jsonl", model_name="oh-x")
    assert {item["model_name_or_path"] for item in result.predictions} == {"oh-x"}


def test_trajectories_without_predictions_file(tmp_path: Path) -> None:
    shutil.copytree(FIXTURES / "mini-swe-agent", tmp_path / "run")
    (tmp_path / "run" / "preds.json").unlink()
    (tmp_path / "run" / "acme__widgets-102" / "acme__widgets-102.traj.json").write_text("{oops")

    result = import_runs("mini-swe-agent", tmp_path / "run")

    assert [item["instance_id"] for item in result.predictions] == [
        "acme__widgets-101",
        "acme__widgets-102",
        "acme__widgets-103",
    ]
    assert result.predictions[1] == {
        "instance_id": "acme__widgets-102",
        "model_patch": "",
        "model_name_or_path": "mini-swe-agent",
    }
    assert result.predictions[0]["usage"]["input_tokens"] == 6010
    messages = [problem.message for problem in result.problems]
    assert "no predictions file; patches come from the trajectories" in messages
    assert any(message.startswith("unreadable JSON") for message in messages)
    assert "no patch: empty patch used" in messages


def test_imported_predictions_load_as_polybench_predictions(tmp_path: Path) -> None:
    result = import_runs("mini-swe-agent", FIXTURES / "mini-swe-agent")
    path = tmp_path / "preds.jsonl"
    path.write_text("".join(json.dumps(item) + "\n" for item in result.predictions))
    loaded = read_predictions_file(path)
    assert loaded.problems == []
    assert sorted(loaded.predictions) == [f"acme__widgets-10{n}" for n in (1, 2, 3, 4)]
    kept = loaded.predictions["acme__widgets-101"].model_dump()
    assert kept["usage"] == result.predictions[0]["usage"]
    assert kept["exit_status"] == "Submitted"


def test_unknown_kind_and_empty_folder(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown import kind"):
        import_runs("aider", tmp_path)
    with pytest.raises(FileNotFoundError):
        import_runs("swe-agent", tmp_path)
    with pytest.raises(FileNotFoundError):
        import_runs("openhands", tmp_path)


def test_a_trajectory_names_its_instance_whatever_its_file_is_called(tmp_path: Path) -> None:
    # mini-swe-agent's batch runner writes the instance id into each trajectory; a file
    # renamed (or the single-instance runner's default name) still imports as that id.
    real = REAL / "mini-swe-agent-batch" / "polybench-mini__hues-41"
    shutil.copy(real / "polybench-mini__hues-41.traj.json", tmp_path / "last_run.traj.json")
    result = import_runs("mini-swe-agent", tmp_path)
    assert [p["instance_id"] for p in result.predictions] == ["polybench-mini__hues-41"]


def test_a_trajectory_saved_mid_run_imports_without_an_exit_status(tmp_path: Path) -> None:
    real = REAL / "mini-swe-agent-agent-run" / "polybench-mini__timespan-27.output"
    data = json.loads((real / "polybench-mini__timespan-27.traj.json").read_text())
    data["messages"] = data["messages"][:-2]  # killed before its last step ended
    data["info"]["exit_status"] = data["info"]["submission"] = ""
    (tmp_path / "polybench-mini__timespan-27.traj.json").write_text(json.dumps(data))
    result = import_runs("mini-swe-agent", tmp_path)
    (prediction,) = result.predictions
    assert "exit_status" not in prediction
    assert prediction["api_calls"] == data["info"]["model_stats"]["api_calls"]
    assert "the trajectory did not end (saved mid-run)" in [p.message for p in result.problems]
