"""A predictions file with no usable prediction is bad input: ``eval`` and ``metrics`` exit
2 with one line naming the file, what was wrong and the expected keys, and write nothing.
Predictions for dataset instances outside ``--instance-ids`` are not "unknown"."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from polybench.cli.main import app
from polybench.dataset.builtin import load_builtin
from polybench.dataset.predictions import EXPECTED_KEYS, NoUsablePredictions, load_predictions

MINI_IDS = [instance.instance_id for instance in load_builtin("mini")]


def _csv(path: Path) -> str:
    path.write_text(f"instance_id,model_patch\n{MINI_IDS[0]},diff\n")
    return "not JSON"


def _other_keys(path: Path) -> str:
    rows = [{"id": i, "patch": "diff --git a/x b/x"} for i in MINI_IDS[:3]]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return "no item has the keys of a prediction (line 1 has id, patch)"


def _patch_under_another_key(path: Path) -> str:
    # instance_id is right, but the patch is under a key no harness reads: scoring it as
    # an empty prediction would be a made-up zero.
    path.write_text(json.dumps({"instance_id": MINI_IDS[0], "patch": "diff"}) + "\n")
    return "line 1 has instance_id, patch"


def _another_dataset(path: Path) -> str:
    rows = [
        {"instance_id": f"django__django-{n}", "model_patch": "", "model_name_or_path": "m"}
        for n in range(5)
    ]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return "none of its 5 instance ids is in the dataset"


def _empty(path: Path) -> str:
    path.write_text("")
    return "the file is empty"


def _empty_list(path: Path) -> str:
    path.write_text("[]")
    return "it holds no prediction"


CASES: dict[str, Callable[[Path], str]] = {
    "csv": _csv,
    "other keys": _other_keys,
    "patch under another key": _patch_under_another_key,
    "another dataset": _another_dataset,
    "empty file": _empty,
    "empty list": _empty_list,
}


def _one_error_line(output: str, path: Path, why: str) -> None:
    lines = [line for line in output.splitlines() if line.strip()]
    assert len(lines) == 1, output
    line = lines[0]
    assert line.startswith(f"error: {path}: no usable prediction: "), line
    assert why in line
    assert all(key in line for key in EXPECTED_KEYS), line


@pytest.mark.parametrize("case", sorted(CASES))
def test_eval_refuses_a_file_without_a_usable_prediction(tmp_path: Path, case: str) -> None:
    path = tmp_path / ("predictions.csv" if case == "csv" else "predictions.jsonl")
    why = CASES[case](path)
    out = tmp_path / "runs"
    result = CliRunner().invoke(
        app,
        ["eval", "--predictions", str(path), "-o", str(out), "--run-id", "r"],
        env={"COLUMNS": "400"},
    )
    assert result.exit_code == 2, result.output
    _one_error_line(result.output, path, why)
    assert not out.exists()


@pytest.mark.parametrize("case", ["csv", "other keys", "another dataset", "empty file"])
def test_metrics_refuses_a_file_without_a_usable_prediction(tmp_path: Path, case: str) -> None:
    path = tmp_path / "predictions.jsonl"
    why = CASES[case](path)
    out = tmp_path / "metrics"
    result = CliRunner().invoke(
        app, ["metrics", "--predictions", str(path), "-o", str(out)], env={"COLUMNS": "400"}
    )
    assert result.exit_code == 2, result.output
    _one_error_line(result.output, path, why)
    assert not out.exists()


def test_predictions_for_none_of_the_chosen_instances_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "p.jsonl"
    path.write_text(json.dumps({"instance_id": MINI_IDS[1], "model_patch": ""}) + "\n")
    out = tmp_path / "runs"
    result = CliRunner().invoke(
        app,
        ["eval", "--predictions", str(path), "--instance-ids", MINI_IDS[0], "-o", str(out)],
        env={"COLUMNS": "400"},
    )
    assert result.exit_code == 2, result.output
    _one_error_line(result.output, path, "not chosen (--instance-ids)")
    assert not out.exists()


def test_other_instances_of_the_dataset_are_left_out_quietly(tmp_path: Path) -> None:
    path = tmp_path / "p.jsonl"
    path.write_text(
        "".join(json.dumps({"instance_id": i, "model_patch": ""}) + "\n" for i in MINI_IDS)
    )
    instances = load_builtin("mini")
    chosen = load_predictions(str(path), instances[:2], dataset_ids=MINI_IDS)
    assert sorted(chosen.predictions) == sorted(MINI_IDS[:2])
    assert chosen.problems == [] and chosen.left_out == len(MINI_IDS) - 2
    # Without the dataset's ids, the others are unknown: the reader cannot tell.
    alone = load_predictions(str(path), instances[:2])
    assert len(alone.problems) == len(MINI_IDS) - 2


def test_a_partly_usable_file_still_runs_its_good_items(tmp_path: Path) -> None:
    path = tmp_path / "p.jsonl"
    path.write_text(
        json.dumps({"instance_id": MINI_IDS[0], "model_patch": ""})
        + "\nnot json\n"
        + json.dumps({"id": "x"})
        + "\n"
    )
    found = load_predictions(str(path), load_builtin("mini"))
    assert list(found.predictions) == [MINI_IDS[0]]
    assert [p.where for p in found.problems] == ["line 2", "line 3"]
    assert "expected keys instance_id, model_patch" in found.problems[1].message


def test_the_library_raises_the_same_error(tmp_path: Path) -> None:
    path = tmp_path / "p.jsonl"
    _other_keys(path)
    with pytest.raises(NoUsablePredictions, match="no usable prediction"):
        load_predictions(str(path), load_builtin("mini"))
