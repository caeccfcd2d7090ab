"""One rule for instances without a prediction: ``metrics`` and ``report`` give the same
retrieval means on the same predictions, over the same instances, and both print how many
instances the means are over and how many had no prediction."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from polybench.cli.main import app
from polybench.dataset.models import Instance
from tests.helpers.report_data import write_run

runner = CliRunner()


def test_metrics_and_report_agree_on_a_missing_prediction(
    tmp_path: Path, mini_instances: list[Instance], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("POLYBENCH_CACHE_DIR", str(tmp_path / "cache"))
    missing = mini_instances[0].instance_id
    given = {i.instance_id: i.patch for i in mini_instances if i.instance_id != missing}
    predictions = tmp_path / "preds.jsonl"
    predictions.write_text(
        "".join(
            json.dumps({"instance_id": i, "model_patch": p, "model_name_or_path": "m"}) + "\n"
            for i, p in given.items()
        )
    )
    metrics = runner.invoke(
        app,
        ["metrics", "--predictions", str(predictions), "-o", str(tmp_path / "metrics")],
        env={"COLUMNS": "200"},
    )
    assert metrics.exit_code == 0, metrics.output
    run_dir = write_run(
        tmp_path / "runs",
        "agent",
        dict.fromkeys(given, "resolved"),
        no_prediction=[missing],
        dataset_spec="mini",
        predictions_source=str(predictions),
        patches=given,
    )
    report = runner.invoke(
        app,
        ["report", str(run_dir), "-o", str(tmp_path / "report"), "--no-html", "--no-charts"],
        env={"COLUMNS": "200"},
    )
    assert report.exit_code == 0, report.output

    note = "means over 16 instances, 1 of them without a prediction"
    assert note in metrics.output
    assert f"retrieval: agent: {note}" in report.output
    summary = json.loads((tmp_path / "metrics" / "metrics_summary.json").read_text())
    written = json.loads((tmp_path / "report" / "report.json").read_text())
    overall = next(row for row in written["retrieval"]["rows"] if row["key"] == "All")
    cell = overall["cells"]["agent"]
    assert summary["overall"]["instances"] == cell["n"] == 16
    files = summary["overall"]["file_retrieval_metrics"]
    assert files["f1"] == pytest.approx(cell["file_f1"])
    assert files["precision"] == pytest.approx(cell["file_precision"])
    assert files["f1"] == pytest.approx(15 / 16)  # the gold patches score 1, the missing 0
    nodes = summary["overall"]["node_retrieval_metrics"]
    assert summary["overall"]["node_instances"] == cell["node_n"]
    assert nodes["f1"] == pytest.approx(cell["node_f1"])
    assert not (tmp_path / "metrics" / f"{missing}_metrics.json").exists()
