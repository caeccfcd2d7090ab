"""``polybench metrics`` and ``polybench dataset stats|complexity`` through a local app."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from polybench.cli.dataset_cmd import dataset_app
from polybench.cli.metrics_cmd import metrics_command
from polybench.dataset.models import Instance

app = typer.Typer()
app.command("metrics")(metrics_command)
app.add_typer(dataset_app, name="dataset")
runner = CliRunner()


def write_dataset(path: Path, instances: list[Instance]) -> Path:
    path.write_text("".join(json.dumps(i.model_dump(mode="json")) + "\n" for i in instances))
    return path


def test_metrics_on_mini_with_bad_predictions(
    tmp_path: Path,
    mini_repos: Path,
    mini_instances: list[Instance],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # --dataset mini materialises the built-in repositories into the cache.
    monkeypatch.setenv("POLYBENCH_CACHE_DIR", str(tmp_path / "cache"))
    by_id = {i.instance_id: i for i in mini_instances}
    gold_id, empty_id, stale_id = (
        "polybench-mini__timespan-27",
        "polybench-mini__semver-java-14",
        "polybench-mini__cronex-12",
    )
    removed = next(line for line in by_id[stale_id].patch.splitlines() if line[:2] == "- ")
    stale = by_id[stale_id].patch.replace(removed, removed + " // not in the file")
    lines = [
        json.dumps({"instance_id": gold_id, "model_patch": by_id[gold_id].patch}),
        json.dumps({"instance_id": empty_id, "model_patch": ""}),
        json.dumps({"instance_id": stale_id, "model_patch": stale}),
        "{not json",
        json.dumps({"instance_id": "nobody__x-1", "model_patch": ""}),
    ]
    predictions = tmp_path / "preds.jsonl"
    predictions.write_text("\n".join(lines) + "\n")
    out = tmp_path / "out"
    result = runner.invoke(
        app,
        [
            *("metrics", "--dataset", "mini", "--predictions", str(predictions)),
            *("--output-dir", str(out), "--workers", "2"),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "malformed JSON" in result.output and "unknown instance_id" in result.output
    written = sorted(p.name for p in out.iterdir())
    assert written == sorted(
        [f"{i}_metrics.json" for i in (gold_id, empty_id, stale_id)] + ["metrics_summary.json"]
    )
    gold = json.loads((out / f"{gold_id}_metrics.json").read_text())
    assert set(gold) == {
        "instance_id",
        "file_retrieval_metrics",
        "node_retrieval_metrics",
        "reference_nodes",
        "predicted_nodes",
    }
    assert gold["file_retrieval_metrics"] == {"recall": 1.0, "precision": 1.0, "f1": 1.0}
    assert gold["predicted_nodes"] == ["src/timespan/parser.py->module->function_definition:parse"]
    empty = json.loads((out / f"{empty_id}_metrics.json").read_text())
    assert empty["node_retrieval_metrics"] == {"recall": 0.0, "precision": 0.0, "f1": 0.0}
    summary = json.loads((out / "metrics_summary.json").read_text())
    # The 13 instances without a prediction count as empty predictions, in every mean.
    assert summary["scored_instances"] == 16
    assert summary["instances_without_prediction"] == 13
    assert summary["overall"]["file_retrieval_metrics"]["f1"] == pytest.approx(1 / 16)
    assert summary["per_language"]["Python"]["instances"] == 4
    assert "means over 16 instances, 13 of them without a prediction" in result.output
    assert summary["notes"][empty_id] == "empty prediction"
    assert summary["notes"][stale_id].startswith("patch does not apply")
    assert len(summary["input_problems"]) == 2


def test_metrics_rejects_bad_arguments(tmp_path: Path) -> None:
    missing = runner.invoke(
        app,
        [
            "metrics",
            "--dataset",
            str(tmp_path / "none.jsonl"),
            "--output-dir",
            "o",
            "--predictions",
            "gold",
        ],
    )
    assert missing.exit_code == 2 and "no dataset" in missing.output
    unknown = runner.invoke(
        app,
        [
            "metrics",
            "--instance-ids",
            "a__b-1",
            "--output-dir",
            str(tmp_path),
            "--predictions",
            "gold",
        ],
    )
    assert unknown.exit_code == 2 and "unknown instance ids: a__b-1" in unknown.output


def test_metrics_reports_an_unavailable_repository(
    tmp_path: Path, mini_instances: list[Instance]
) -> None:
    dataset = write_dataset(tmp_path / "d.jsonl", mini_instances[:1])
    empty_repos = tmp_path / "repos"
    (empty_repos / mini_instances[0].repo_dir_name).mkdir(parents=True)  # not a clone
    result = runner.invoke(
        app,
        [
            *("metrics", "--dataset", str(dataset), "--repo-dir", str(empty_repos)),
            *("--predictions", "gold"),
            *("--output-dir", str(tmp_path / "out")),
        ],
    )
    assert result.exit_code == 1
    assert "RepositoryError" in result.output
    summary = json.loads((tmp_path / "out" / "metrics_summary.json").read_text())
    assert list(summary["errors"]) == [mini_instances[0].instance_id]


def test_dataset_stats_from_columns_and_recomputed(
    tmp_path: Path, mini_repos: Path, mini_instances: list[Instance]
) -> None:
    listed = runner.invoke(app, ["dataset", "stats", "--dataset", "mini"])
    assert listed.exit_code == 0, listed.output
    assert "TypeScript" in listed.output and "dataset columns" in listed.output
    dataset = write_dataset(tmp_path / "d.jsonl", mini_instances)
    out = tmp_path / "stats.json"
    recomputed = runner.invoke(
        app,
        [
            *("dataset", "stats", "--dataset", str(dataset), "--repo-dir", str(mini_repos)),
            *("--recompute", "--json", str(out)),
        ],
    )
    assert recomputed.exit_code == 0, recomputed.output
    stats = json.loads(out.read_text())
    assert stats["node_source"] == "recomputed"
    everything = stats["groups"][-1]
    assert everything["group"] == "All" and everything["instances"] == 16
    # 2 of 16 mini gold patches touch no node, 4 are mixed (hand count in instance.json).
    assert everything["node_categories"]["none"] == pytest.approx(12.5)
    assert everything["node_categories"]["mixed"] == pytest.approx(25.0)


def test_dataset_complexity_finds_mismatches(
    tmp_path: Path, mini_repos: Path, mini_instances: list[Instance]
) -> None:
    wrong = mini_instances[0].model_copy(update={"num_nodes": 99, "is_mixed": True})
    dataset = write_dataset(tmp_path / "d.jsonl", [wrong, *mini_instances[1:]])
    args = ["dataset", "complexity", "--dataset", str(dataset), "--repo-dir", str(mini_repos)]
    args += ["--convention", "polybench"]
    report = runner.invoke(app, [*args, "--output", str(tmp_path / "cols.json")])
    assert report.exit_code == 0, report.output
    assert (
        "16 instances (polybench node ids): modified_nodes match on 16, differ on 0; "
        "other columns differ on 1; 0 could not be recomputed" in report.output
    )
    assert "num_nodes: dataset 99, recomputed 8" in report.output
    assert "is_mixed: dataset True, recomputed False" in report.output
    columns = json.loads((tmp_path / "cols.json").read_text())
    assert columns[wrong.instance_id]["num_nodes"] == 8
    assert runner.invoke(app, [*args, "--check"]).exit_code == 1
    clean = write_dataset(tmp_path / "clean.jsonl", mini_instances)
    ok = runner.invoke(
        app,
        [
            *("dataset", "complexity", "--dataset", str(clean), "--repo-dir", str(mini_repos)),
            *("--convention", "polybench", "--check"),
        ],
    )
    assert ok.exit_code == 0 and "match on 16, differ on 0" in ok.output


def test_dataset_complexity_lists_the_differing_node_ids(
    tmp_path: Path, mini_repos: Path, mini_instances: list[Instance]
) -> None:
    # A dataset file is checked in the official convention by default: it gives no node
    # to a new file, so the nodes polybench's mini column lists in the new
    # RangeShorthand.java are the only difference.
    by_id = {i.instance_id: i for i in mini_instances}
    java = by_id["polybench-mini__semver-java-21"]
    dropped = "src/main/java/io/polybench/semver/Version.java->program->class_declaration:Version"
    renamed = java.model_copy(
        update={
            "modified_nodes": [
                n.replace("Version_nextMajor", "nextMajor") for n in java.modified_nodes
            ]
        }
    )
    dataset = write_dataset(
        tmp_path / "d.jsonl", [renamed if i is java else i for i in mini_instances]
    )
    out = tmp_path / "check.json"
    result = runner.invoke(
        app,
        [
            *("dataset", "complexity", "--dataset", str(dataset), "--repo-dir", str(mini_repos)),
            *("--report", str(out), "--check"),
        ],
    )
    assert result.exit_code == 1, result.output
    assert "(official node ids): modified_nodes match on 15, differ on 1" in result.output
    new_file = "src/main/java/io/polybench/semver/RangeShorthand.java->program->"
    assert f"  - {new_file}class_declaration:RangeShorthand->method_declaration:caret" in (
        result.output
    )
    assert f"  - {dropped}->method_declaration:nextMajor" in result.output
    assert f"  + {dropped}->method_declaration:Version_nextMajor" in result.output
    report = json.loads(out.read_text())
    assert report["convention"] == "official"
    assert report["summary"] == {
        "instances": 16,
        "nodes_match": 15,
        "nodes_differ": 1,
        "other_columns_differ": 1,
        "errors": 0,
    }
    checks = {c["instance_id"]: c for c in report["instances"]}
    assert len(checks) == 16
    differs = checks[java.instance_id]
    assert not differs["nodes_match"]
    assert differs["only_recomputed"] == [f"{dropped}->method_declaration:Version_nextMajor"]
    assert sorted(differs["only_in_dataset"]) == sorted(
        [
            f"{new_file}class_declaration:RangeShorthand->method_declaration:caret",
            f"{new_file}class_declaration:RangeShorthand->method_declaration:tilde",
            f"{dropped}->method_declaration:nextMajor",
        ]
    )
    assert differs["other_columns"]["num_nodes"] == [9, 7]
    assert all(c["nodes_match"] for i, c in checks.items() if i != java.instance_id)
