"""The verified subset: appendix A's rating rule, then seeded per-language downsampling."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from polybench.curation.dataset_io import write_dataset
from polybench.curation.verified import (
    Rating,
    curate,
    load_ratings,
    parse_limits,
    rule_violations,
)
from polybench.dataset.loaders import load_instances_from_file
from polybench.dataset.models import Instance
from tests.curation.conftest import curation_app

runner = CliRunner()


def _instance(instance_id: str, language: str) -> Instance:
    return Instance(
        instance_id=instance_id, repo="acme/x", base_commit="a" * 40, language=language, F2P=["t"]
    )


def _rating(instance_id: str, rater: str, issue: int, code: int, test: int) -> Rating:
    return Rating(instance_id=instance_id, rater=rater, issue=issue, code=code, test=test)


def test_rule_needs_every_rater() -> None:
    assert rule_violations([_rating("a", "r1", 2, 2, 2), _rating("a", "r2", 3, 2, 3)]) == []
    assert rule_violations([_rating("a", "r1", 3, 2, 3), _rating("a", "r2", 1, 3, 1)]) == [
        "issue score 1 < 2 by r2",
        "code score 3 != 2 by r2",
        "test score 1 < 2 by r2",
    ]
    assert rule_violations([]) == ["not annotated"]


def test_curate_filters_then_downsamples_with_a_seed() -> None:
    instances = [_instance(f"js-{n}", "JavaScript") for n in range(10)]
    instances += [_instance(f"py-{n}", "Python") for n in range(3)]
    instances.append(_instance("py-bad", "Python"))
    instances.append(_instance("py-none", "Python"))
    ratings = {i.instance_id: [_rating(i.instance_id, "r1", 2, 2, 2)] for i in instances}
    ratings["py-bad"] = [_rating("py-bad", "r1", 2, 2, 2), _rating("py-bad", "r2", 2, 1, 2)]
    del ratings["py-none"]
    first = curate(instances, ratings, {"JavaScript": 4}, seed=7)
    again = curate(instances, ratings, {"JavaScript": 4}, seed=7)
    other = curate(instances, ratings, {"JavaScript": 4}, seed=8)
    kept = [i.instance_id for i in first.kept]
    assert kept == [i.instance_id for i in again.kept]
    assert kept != [i.instance_id for i in other.kept]
    assert sum(k.startswith("js-") for k in kept) == 4
    assert [k for k in kept if k.startswith("py-")] == ["py-0", "py-1", "py-2"]
    assert first.removed["py-bad"] == "code score 1 != 2 by r2"
    assert first.removed["py-none"] == "not annotated"
    dropped = [k for k, v in first.removed.items() if v.startswith("downsampled")]
    assert len(dropped) == 6
    assert first.removed[dropped[0]] == "downsampled: JavaScript kept 4 of 10 (seed 7)"
    everything = curate(instances, ratings, {"*": 2}, seed=1)
    assert len(everything.kept) == 4


def test_limits_parsing() -> None:
    assert parse_limits(["javascript=100", "TypeScript=100,50"]) == {
        "JavaScript": 100,
        "TypeScript": 100,
        "*": 50,
    }
    with pytest.raises(ValueError, match="LANGUAGE=N"):
        parse_limits(["Java=many"])
    with pytest.raises(ValueError, match="unknown language"):
        parse_limits(["Cobol=3"])


def test_ratings_files_csv_and_jsonl(tmp_path: Path) -> None:
    csv_file = tmp_path / "ratings.csv"
    csv_file.write_text(
        "instance_id,rater,issue_quality,code_quality,test_quality\na,r1,3,2,2\na,r2,2,2,3\n"
    )
    assert [r.rater for r in load_ratings(csv_file)["a"]] == ["r1", "r2"]
    jsonl = tmp_path / "ratings.jsonl"
    jsonl.write_text(
        json.dumps({"instance_id": "b", "rater": "x", "issue": 2, "code": 2, "test": 2}) + "\n"
    )
    assert load_ratings(jsonl)["b"][0].test == 2
    jsonl.write_text(json.dumps({"instance_id": "b", "issue": 5, "code": 2, "test": 2}) + "\n")
    with pytest.raises(ValueError, match="row 1: issue"):
        load_ratings(jsonl)


def test_curate_cli_prints_what_was_removed(tmp_path: Path) -> None:
    dataset = tmp_path / "d.jsonl"
    write_dataset(
        [_instance("a", "Java"), _instance("b", "Java"), _instance("c", "Python")], dataset
    )
    ratings = tmp_path / "r.csv"
    ratings.write_text("instance_id,rater,issue,code,test\na,r1,2,2,2\nb,r1,0,2,2\nc,r1,2,2,3\n")
    out = tmp_path / "v.csv"
    result = runner.invoke(
        curation_app(),
        [
            "curate",
            str(dataset),
            "--annotations",
            str(ratings),
            "-o",
            str(out),
            "--max-per-language",
            "Python=0",
        ],
        env={"COLUMNS": "200"},
    )
    assert result.exit_code == 0, result.output
    assert "removed b: issue score 0 < 2 by r1" in result.output
    assert "removed c: downsampled: Python kept 0 of 1 (seed 0)" in result.output
    assert "kept 1 of 3 instances (Java 1); removed 2" in result.output
    assert [i.instance_id for i in load_instances_from_file(out)] == ["a"]
