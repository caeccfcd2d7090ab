"""``polybench report`` through a local typer app."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from polybench.cli import report_cmd
from polybench.dataset.builtin import load_builtin
from polybench.report import api as report_api
from tests.helpers.report_data import FakeScorer, dataset, write_dataset, write_run

app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
app.command("report")(report_cmd.report_command)


@app.command("noop")
def _noop() -> None:
    """Keeps typer in sub-command mode."""


runner = CliRunner()


@pytest.fixture
def runs(tmp_path: Path) -> tuple[Path, Path, Path]:
    data = write_dataset(tmp_path / "data.jsonl", dataset())
    preds = tmp_path / "preds.jsonl"
    preds.write_text(
        json.dumps(
            {
                "instance_id": "a-1",
                "model_patch": "GOOD",
                "usage": {"input_tokens": 7, "output_tokens": 3},
            }
        )
        + "\n"
    )
    ids = [i.instance_id for i in dataset()]
    first = write_run(
        tmp_path / "runs",
        "first",
        {"a-1": "resolved", "d-1": "resolved", "d-2": "unresolved"},
        no_prediction=[i for i in ids if i not in ("a-1", "d-1", "d-2")],
        dataset_spec=str(data),
        predictions_source=str(preds),
        patches={"a-1": "GOOD", "d-1": "GOOD"},
    )
    second = write_run(
        tmp_path / "runs",
        "second",
        {i: "unresolved" for i in ids},
        dataset_spec=str(data),
        predictions_source="empty",
    )
    return data, first, second


def test_report_of_two_runs(
    runs: tuple[Path, Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, first, second = runs
    scorers: list[FakeScorer] = []

    def factory(store: object) -> FakeScorer:
        scorers.append(FakeScorer(store))
        return scorers[-1]

    monkeypatch.setattr(report_api, "load_scorer_factory", lambda: factory)
    out = tmp_path / "out"
    result = runner.invoke(
        app, ["report", str(first), str(second), "--output-dir", str(out), "--resamples", "200"]
    )
    assert result.exit_code == 0, result.output
    assert "Table 3: Pass rate by language" in result.output
    assert "2/10" in result.output and "20.0 ±" in result.output
    assert len(scorers) == 1 and scorers[0].closed  # one scorer per dataset, closed after
    report = json.loads((out / "report.json").read_text())
    assert [run["label"] for run in report["runs"]] == ["first", "second"]
    assert [run["pass_rate"] for run in report["runs"]] == [0.2, 0.0]
    assert report["n_resamples"] == 200
    overall = next(r for r in report["retrieval"]["rows"] if r["key"] == "All")
    assert overall["cells"]["first"]["file_precision"] == 0.2  # a-1 and d-1 of 10
    assert overall["cells"]["second"]["file_precision"] == 0.0
    table4 = next(t for t in report["tables"] if t["key"] == "task_category")
    assert table4["token_runs"] == ["first"]
    for name in ("report.md", "report.html", "language.csv", "retrieval.csv", "runs.csv"):
        assert (out / name).is_file()
    for name in ("language", "retrieval", "paired"):
        assert (out / "charts" / f"{name}.svg").is_file()
        assert (out / "charts" / f"{name}.pdf").is_file()
    assert "warning" not in result.output  # both runs cover the same 10 instances
    # The paired comparison: first resolves a-1 and d-1, second nothing (b=2, c=0).
    assert "paired comparison" in result.output
    assert [(p["b"], p["c"], p["p_value"]) for p in report["paired"]] == [(2, 0, 0.5)]
    table3 = result.output.split("Table 3: Pass rate by language", 1)[1]
    table3 = table3.split("pass rate by resolved rule", 1)[0]
    languages = [line.split()[1] for line in table3.splitlines() if line.startswith("│")]
    assert languages == ["Java", "JavaScript", "Python", "TypeScript", "All"]


def test_runs_over_different_instances_are_warned_about(
    runs: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    data, _, second = runs
    killed = write_run(
        tmp_path / "runs",
        "killed",
        {"a-1": "resolved", "b-2": "unresolved"},
        dataset_spec=str(data),
        with_summary=False,
    )
    out = tmp_path / "out"
    result = runner.invoke(
        app,
        ["report", str(second), str(killed), "-o", str(out), "--no-retrieval", "--no-charts"],
    )
    assert result.exit_code == 0, result.output
    output = " ".join(result.output.split())  # rich wraps long lines
    assert "warning: the runs cover different instance sets" in output
    assert "on the 2 instances they all cover" in output
    assert "killed: unfinished run (no report.json)" in output
    # The runs table says "2 of 10 (unfinished: partial)"; its cell may wrap at any width.
    cells = "".join(output.replace("│", " ").split())
    assert "(unfinished:partial)" in cells
    report = json.loads((out / "report.json").read_text())
    assert [run["instances"] for run in report["runs"]] == [10, 2]
    assert [run["pass_rate"] for run in report["runs"]] == [0.0, 0.5]
    assert report["coverage"]["common_ids"] == ["a-1", "b-2"]
    assert report["warnings"][0].startswith("the runs cover different instance sets")
    (pair,) = report["paired"]
    assert (pair["n"], pair["b"], pair["c"]) == (2, 0, 1)
    assert (
        "> **Warning:** the runs cover different instance sets" in (out / "report.md").read_text()
    )
    assert not (out / "charts").exists()


def test_missing_retrieval_module_is_a_note(
    runs: tuple[Path, Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(report_api, "load_scorer_factory", lambda: None)
    out = tmp_path / "out"
    result = runner.invoke(app, ["report", str(runs[1]), "-o", str(out), "--no-html"])
    assert result.exit_code == 0, result.output
    assert "retrieval metrics skipped" in result.output
    report = json.loads((out / "report.json").read_text())
    assert report["retrieval"] is None
    assert any("polybench.metrics.retrieval" in note for note in report["notes"])
    assert not (out / "report.html").exists() and not (out / "retrieval.csv").exists()


def test_no_retrieval_option(runs: tuple[Path, Path, Path], tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = runner.invoke(app, ["report", str(runs[1]), "-o", str(out), "--no-retrieval"])
    assert result.exit_code == 0, result.output
    notes = json.loads((out / "report.json").read_text())["notes"]
    assert any("--no-retrieval" in note for note in notes)


def test_dataset_option_overrides_run_json(runs: tuple[Path, Path, Path], tmp_path: Path) -> None:
    data, first, _ = runs
    (first / "run.json").write_text(json.dumps({"run_id": "first"}))
    out = tmp_path / "out"
    failed = runner.invoke(app, ["report", str(first), "-o", str(out), "--no-retrieval"])
    assert failed.exit_code == 2
    assert "give the dataset" in failed.output
    worked = runner.invoke(
        app, ["report", str(first), "--dataset", str(data), "-o", str(out), "--no-retrieval"]
    )
    assert worked.exit_code == 0, worked.output


def test_bad_inputs_exit_with_2(tmp_path: Path, runs: tuple[Path, Path, Path]) -> None:
    not_a_run = runner.invoke(app, ["report", str(tmp_path)])
    assert not_a_run.exit_code == 2 and "not a polybench run" in not_a_run.output
    missing_dataset = runner.invoke(
        app, ["report", str(runs[1]), "--dataset", str(tmp_path / "nope.csv"), "--no-retrieval"]
    )
    assert missing_dataset.exit_code == 2 and "no dataset" in missing_dataset.output


@pytest.mark.slow
def test_real_retrieval_scorer_on_mini(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("polybench.metrics.retrieval")
    monkeypatch.setenv("POLYBENCH_CACHE_DIR", str(tmp_path / "cache"))
    mini = load_builtin("mini")
    gold = write_run(
        tmp_path / "runs",
        "gold",
        {i.instance_id: "resolved" for i in mini},
        dataset_spec="mini",
        predictions_source="gold",
        patches={i.instance_id: i.patch for i in mini},
    )
    empty = write_run(
        tmp_path / "runs",
        "empty",
        {i.instance_id: "empty_patch" for i in mini},
        dataset_spec="mini",
        predictions_source="empty",
    )
    out = tmp_path / "out"
    result = runner.invoke(app, ["report", str(gold), str(empty), "-o", str(out)])
    assert result.exit_code == 0, result.output
    report = json.loads((out / "report.json").read_text())
    rows = {row["key"]: row["cells"] for row in report["retrieval"]["rows"]}
    assert rows["All"]["gold"]["n"] == 16
    for name in ("file_precision", "file_recall", "node_precision", "node_recall"):
        assert rows["All"]["gold"][name] == 1.0
        assert rows["All"]["empty"][name] == 0.0
    # Gold patches touching no class or function are left out of node averages.
    no_nodes = sum(1 for i in mini if i.is_no_nodes)
    assert rows["All"]["gold"]["node_n"] == 16 - no_nodes
