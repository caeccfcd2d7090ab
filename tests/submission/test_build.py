"""``build_submission`` on synthetic run folders."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from polybench.dataset.models import Instance
from polybench.grading.result import Status
from polybench.metrics.retrieval import RetrievalScorer
from polybench.report.runs import RunDirError
from polybench.submission.build import (
    SubmissionError,
    build_submission,
    load_finished_run,
    parse_metadata_options,
)
from polybench.submission.models import (
    METADATA_FILE,
    PREDICTIONS_FILE,
    README_FILE,
    metrics_path,
    result_path,
)
from polybench.submission.readme import TEMPLATE_MARKER
from tests.submission.conftest import (
    EMPTY,
    MODEL,
    RESOLVED,
    UNRESOLVED,
    make_result,
    standard_entries,
    write_run,
)


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_build_writes_the_official_layout(
    synthetic_run: Path, tmp_path: Path, mini: dict[str, Instance], scorer: RetrievalScorer
) -> None:
    out = tmp_path / "sub"
    report = build_submission(
        load_finished_run(synthetic_run), out, mini, dataset="mini", scorer=scorer
    )
    predictions = _lines(out / PREDICTIONS_FILE)
    assert [p["instance_id"] for p in predictions] == sorted([RESOLVED, UNRESOLVED, EMPTY])
    by_id = {p["instance_id"]: p for p in predictions}
    assert by_id[RESOLVED]["model_patch"] == mini[RESOLVED].patch
    assert by_id[EMPTY]["model_patch"] == ""
    assert {p["model_name_or_path"] for p in predictions} == {MODEL}

    results = {i: json.loads(result_path(out, i).read_text()) for i in by_id}
    assert results[RESOLVED]["resolved"] and results[RESOLVED]["all_f2p_passed"]
    assert results[UNRESOLVED]["resolved"] is False
    assert mini[UNRESOLVED].F2P[0] in results[UNRESOLVED]["failed_tests"]
    assert results[EMPTY]["generation"] is False and results[EMPTY]["with_logs"] is False

    metrics = {i: json.loads(metrics_path(out, i).read_text()) for i in by_id}
    assert metrics[RESOLVED]["file_retrieval_metrics"]["f1"] == 1.0
    assert metrics[RESOLVED]["reference_nodes"] == mini[RESOLVED].modified_nodes
    assert metrics[EMPTY]["file_retrieval_metrics"] == {"recall": 0.0, "precision": 0.0, "f1": 0.0}
    assert metrics[EMPTY]["predicted_nodes"] == []

    metadata = yaml.safe_load((out / METADATA_FILE).read_text())
    assert metadata == {"name": MODEL, "oss": False, "site": "", "pass_rate": "6.25% (1/16)"}
    assert TEMPLATE_MARKER in (out / README_FILE).read_text()
    assert (report.instances, report.resolved, report.metrics_written) == (3, 1, 3)
    assert report.error_ids == []
    assert any("site" in w for w in report.warnings)
    assert any("3 of the 16 instances" in w for w in report.warnings)
    # The synthetic run has no report.json, as a run killed before its end.
    assert any("stopped before the end" in w for w in report.warnings)


def test_a_finished_run_is_not_called_stopped(
    synthetic_run: Path, tmp_path: Path, mini: dict[str, Instance]
) -> None:
    ids = {"resolved_ids": [RESOLVED], "unresolved_ids": [UNRESOLVED], "empty_patch_ids": [EMPTY]}
    (synthetic_run / "report.json").write_text(json.dumps(ids))
    run = load_finished_run(synthetic_run)
    report = build_submission(run, tmp_path / "sub", mini, dataset="mini", scorer=None)
    assert not any("stopped before the end" in w for w in report.warnings)


def test_predictions_come_from_the_recorded_file_when_it_holds_the_same_patch(
    tmp_path: Path, mini: dict[str, Instance]
) -> None:
    changed = mini[UNRESOLVED].patch.replace("\n+", "\n+ ", 1)
    file_lines = [
        {
            "instance_id": RESOLVED,
            "model_patch": mini[RESOLVED].patch,
            "model_name_or_path": MODEL,
            "artifact_names": ["trace.md"],
        },
        {"instance_id": UNRESOLVED, "model_patch": changed, "model_name_or_path": MODEL},
        {"instance_id": EMPTY, "model_patch": "", "model_name_or_path": MODEL},
    ]
    source = tmp_path / "preds.jsonl"
    source.write_text("".join(json.dumps(line) + "\n" for line in file_lines))
    run_dir = write_run(tmp_path / "run", standard_entries(mini), predictions_source=str(source))
    out = tmp_path / "sub"
    report = build_submission(load_finished_run(run_dir), out, mini, dataset="mini", scorer=None)
    by_id = {p["instance_id"]: p for p in _lines(out / PREDICTIONS_FILE)}
    assert by_id[RESOLVED]["artifact_names"] == ["trace.md"]
    # The file changed after the run: the patch that was evaluated is the one submitted.
    assert by_id[UNRESOLVED]["model_patch"] == mini[UNRESOLVED].patch
    assert any("differ from the file" in w and UNRESOLVED in w for w in report.warnings)
    assert report.metrics_written == 0 and not list(out.glob("logs/*_metrics.json"))


def test_infrastructure_errors_are_warned_about(tmp_path: Path, mini: dict[str, Instance]) -> None:
    entries = standard_entries(mini)
    erred = make_result(mini[UNRESOLVED], Status.ERROR, mini[UNRESOLVED].patch)
    entries[1] = (erred, mini[UNRESOLVED].patch)
    run_dir = write_run(tmp_path / "run", entries)
    out = tmp_path / "sub"
    report = build_submission(load_finished_run(run_dir), out, mini, dataset="mini", scorer=None)
    assert report.error_ids == [UNRESOLVED]
    assert any("infrastructure error" in w and UNRESOLVED in w for w in report.warnings)
    assert json.loads(result_path(out, UNRESOLVED).read_text())["resolved"] is False


def test_results_outside_the_dataset_are_left_out(
    tmp_path: Path, mini: dict[str, Instance]
) -> None:
    run_dir = write_run(tmp_path / "run", standard_entries(mini))
    smaller = {i: instance for i, instance in mini.items() if i != EMPTY}
    out = tmp_path / "sub"
    report = build_submission(load_finished_run(run_dir), out, smaller, dataset="d", scorer=None)
    assert [p["instance_id"] for p in _lines(out / PREDICTIONS_FILE)] == sorted(
        [RESOLVED, UNRESOLVED]
    )
    assert any("not in dataset d" in w and EMPTY in w for w in report.warnings)
    assert yaml.safe_load((out / METADATA_FILE).read_text())["pass_rate"] == "6.67% (1/15)"


def test_a_folder_that_is_not_a_run_is_refused(tmp_path: Path) -> None:
    with pytest.raises(RunDirError, match="not a polybench run"):
        load_finished_run(tmp_path)
    (tmp_path / "instances").mkdir()
    with pytest.raises(RunDirError, match="no finished instance"):
        load_finished_run(tmp_path)
    with pytest.raises(RunDirError, match="not a folder"):
        load_finished_run(tmp_path / "missing")


def test_a_folder_in_the_way_needs_force(
    synthetic_run: Path, tmp_path: Path, mini: dict[str, Instance]
) -> None:
    run = load_finished_run(synthetic_run)
    out = tmp_path / "sub"
    build_submission(run, out, mini, dataset="mini", scorer=None)
    (out / "logs" / "stale_result.json").write_text("{}")
    (out / README_FILE).write_text("# my agent\n")
    path = out / METADATA_FILE
    metadata = yaml.safe_load(path.read_text())
    path.write_text(yaml.safe_dump({**metadata, "logo": ["https://example.org/l.png"]}))
    with pytest.raises(SubmissionError, match="not empty"):
        build_submission(run, out, mini, dataset="mini", scorer=None)
    build_submission(
        run,
        out,
        mini,
        dataset="mini",
        scorer=None,
        name="My Agent",
        metadata={"oss": True},
        force=True,
    )
    assert not (out / "logs" / "stale_result.json").exists()
    assert (out / README_FILE).read_text() == "# my agent\n"
    rebuilt = yaml.safe_load(path.read_text())
    assert rebuilt["logo"] == ["https://example.org/l.png"]
    assert (rebuilt["name"], rebuilt["oss"]) == ("My Agent", True)


def test_metadata_options() -> None:
    parsed = parse_metadata_options(
        ["oss=true", "name=123", "site=https://x.org/a=b", "logo=[a, b]"]
    )
    assert parsed == {"oss": True, "name": "123", "site": "https://x.org/a=b", "logo": ["a", "b"]}
    for bad in ("oss", "=true"):
        with pytest.raises(SubmissionError, match="key=value"):
            parse_metadata_options([bad])


def test_an_agent_runs_trajectories_are_copied_into_trajs(
    tmp_path: Path, mini: dict[str, Instance]
) -> None:
    from polybench.submission.check import check_submission
    from polybench.submission.models import TRAJS_DIR

    agent = tmp_path / "agent-run"
    (agent / "trajectories").mkdir(parents=True)
    entries = standard_entries(mini)
    lines = [
        {"instance_id": r.instance_id, "model_patch": patch, "model_name_or_path": MODEL}
        for r, patch in entries
    ]
    (agent / "predictions.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    (agent / "trajectories" / f"{RESOLVED}.traj.json").write_text('{"steps": []}\n')
    (agent / "trajectories" / f"{UNRESOLVED}.agent.log").write_text("my agent's output\n")
    run_dir = write_run(
        tmp_path / "run", entries, predictions_source=str(agent / "predictions.jsonl")
    )
    out = tmp_path / "sub"
    report = build_submission(load_finished_run(run_dir), out, mini, dataset="mini", scorer=None)
    assert sorted(p.name for p in (out / TRAJS_DIR).iterdir()) == [
        f"{RESOLVED}.traj.json",
        f"{UNRESOLVED}.agent.log",
    ]
    assert (out / TRAJS_DIR / f"{UNRESOLVED}.agent.log").read_text() == "my agent's output\n"
    assert report.trajectories == 2
    assert any("1 instances have no trajectory" in w and EMPTY in w for w in report.warnings)
    checked = check_submission(out, mini)
    missing = [p for p in checked.problems if p.where == TRAJS_DIR]
    assert len(missing) == 1 and EMPTY in missing[0].message


def test_a_run_without_an_agent_folder_says_trajs_are_to_be_added(
    synthetic_run: Path, tmp_path: Path, mini: dict[str, Instance]
) -> None:
    report = build_submission(
        load_finished_run(synthetic_run), tmp_path / "sub", mini, dataset="mini", scorer=None
    )
    assert report.trajectories == 0
    assert any("no agent trajectories found" in w and "trajs/" in w for w in report.warnings)
