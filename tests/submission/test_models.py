"""The submission schemas: the real leaderboard files validate, and what polybench writes does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from polybench.metrics.prf import PRF
from polybench.metrics.retrieval import InstanceRetrieval, official_metrics_json
from polybench.submission.models import (
    OfficialMetrics,
    OfficialResult,
    RetrievalScores,
    SubmissionMetadata,
    SubmittedPrediction,
    format_pass_rate,
    parse_pass_rate,
)

LEADERBOARD = Path(__file__).resolve().parents[1] / "data" / "leaderboard"


def _leaderboard_runs() -> list[str]:
    runs = sorted(
        p.name.removesuffix(".official_results.jsonl")
        for p in LEADERBOARD.glob("*.official_results.jsonl")
    )
    return runs


def test_the_leaderboard_data_is_there() -> None:
    runs = _leaderboard_runs()
    assert runs, f"no official results in {LEADERBOARD}"
    for run in runs:
        assert (LEADERBOARD / f"{run}.predictions.jsonl").is_file()


@pytest.mark.parametrize("run", _leaderboard_runs())
def test_real_official_results_validate(run: str) -> None:
    lines = (LEADERBOARD / f"{run}.official_results.jsonl").read_text().splitlines()
    assert lines
    for line in lines:
        record = json.loads(line)
        # The data files join each result with its file retrieval metrics.
        file_metrics = record.pop("file_retrieval_metrics")
        result = OfficialResult.model_validate_json(json.dumps(record))
        assert result.instance_id == record["instance_id"]
        RetrievalScores.model_validate(file_metrics)


@pytest.mark.parametrize("run", _leaderboard_runs())
def test_real_predictions_validate(run: str) -> None:
    lines = (LEADERBOARD / f"{run}.predictions.jsonl").read_text().splitlines()
    ids = [SubmittedPrediction.model_validate_json(line).instance_id for line in lines if line]
    assert len(ids) == len(set(ids)) > 0


def test_a_result_line_with_its_metrics_joined_is_not_a_result_file() -> None:
    run = _leaderboard_runs()[0]
    line = (LEADERBOARD / f"{run}.official_results.jsonl").read_text().splitlines()[0]
    with pytest.raises(ValidationError, match="file_retrieval_metrics"):
        OfficialResult.model_validate_json(line)


def test_results_are_strict_about_types() -> None:
    record = {
        "instance_id": "a__b-1",
        "patch_applied": True,
        "generation": True,
        "with_logs": True,
        "all_f2p_passed": True,
        "no_p2p_failed": True,
        "resolved": True,
        "passed_tests": ["t"],
        "failed_tests": [],
    }
    assert OfficialResult.model_validate_json(json.dumps(record)).resolved is True
    for key, value in (("resolved", "true"), ("passed_tests", "t"), ("with_logs", 1)):
        with pytest.raises(ValidationError, match=key):
            OfficialResult.model_validate_json(json.dumps({**record, key: value}))
    missing = {k: v for k, v in record.items() if k != "generation"}
    with pytest.raises(ValidationError, match="generation"):
        OfficialResult.model_validate_json(json.dumps(missing))


def test_polybench_metrics_files_validate() -> None:
    scored = InstanceRetrieval(
        instance_id="a__b-1",
        file=PRF(precision=0.5, recall=1.0, f1=2 / 3),
        node=None,
        reference_files=["a.py"],
        predicted_files=["a.py", "b.py"],
        reference_nodes=[],
        predicted_nodes=[],
    )
    metrics = OfficialMetrics.model_validate_json(json.dumps(official_metrics_json(scored)))
    assert metrics.file_retrieval_metrics.recall == 1.0
    assert metrics.node_retrieval_metrics is None


@pytest.mark.parametrize(
    ("text", "parsed"),
    [
        ("48.95% (187/382)", (48.95, 187, 382)),
        ("0.00% (0/16)", (0.0, 0, 16)),
        ("100.00% (2/2)", (100.0, 2, 2)),
        ("48.95%", None),
        ("48.95 (187/382)", None),
        ("", None),
    ],
)
def test_pass_rate_text(text: str, parsed: tuple[float, int, int] | None) -> None:
    assert parse_pass_rate(text) == parsed


def test_pass_rate_is_written_as_the_leaderboard_does() -> None:
    assert format_pass_rate(187, 382) == "48.95% (187/382)"
    assert format_pass_rate(1, 3) == "33.33% (1/3)"
    assert format_pass_rate(0, 0) == "0.00% (0/0)"


def test_metadata_keys() -> None:
    metadata = SubmissionMetadata.model_validate(
        {
            "name": "Agent",
            "oss": False,
            "site": "https://example.org",
            "pass_rate": "28.01% (107/382)",
            "logo": "https://example.org/logo.png",
            "date": "2026-04-30",
        }
    )
    assert metadata.logo == ["https://example.org/logo.png"]
    assert metadata.model_extra == {"date": "2026-04-30"}
    for broken in ({"oss": False, "site": "s"}, {"name": "A", "oss": "no", "site": "s"}):
        with pytest.raises(ValidationError):
            SubmissionMetadata.model_validate(broken)
