"""Bad predictions get a clear message naming the line or id; good ones are kept."""

import json
from pathlib import Path

import pytest

from polybench.dataset.models import Instance
from polybench.dataset.predictions import (
    PredictionsFileError,
    load_predictions,
    read_predictions_file,
    synthetic_predictions,
)
from tests.dataset.test_models import official_row

KNOWN = {"a__b-1", "a__b-2", "a__b-3"}
PATCH = "diff --git a/f.py b/f.py\n--- a/f.py\n+++ b/f.py\n@@ -1 +1 @@\n-x\n+y\n"


def line(instance_id: object, patch: object = PATCH, **extra: object) -> bytes:
    return json.dumps({"instance_id": instance_id, "model_patch": patch, **extra}).encode()


def test_each_bad_line_is_reported_and_the_rest_kept(tmp_path: Path) -> None:
    path = tmp_path / "preds.jsonl"
    path.write_bytes(
        b"\n".join(
            [
                line("a__b-1", model_name_or_path="agent", usage={"input_tokens": 5}),
                b'{"instance_id": "a__b-2", "model_patch": ',  # malformed JSON
                line("a__b-1"),  # duplicate
                line("zzz__unknown-9"),  # unknown id
                line("a__b-3", patch=["not", "a", "string"]),  # non-string patch
                b'{"instance_id": "a__b-2", "model_patch": "\xff\xfe"}',  # not UTF-8
                b"[1, 2]",  # not an object
                line("a__b-2"),
            ]
        )
        + b"\n"
    )
    result = read_predictions_file(path, KNOWN)
    assert sorted(result.predictions) == ["a__b-1", "a__b-2"]
    assert result.predictions["a__b-1"].model_extra == {"usage": {"input_tokens": 5}}
    messages = [str(p) for p in result.problems]
    assert messages[0].startswith("line 2: malformed JSON")
    assert messages[1] == "line 3 (a__b-1): duplicate instance_id (first at line 1, kept)"
    assert messages[2] == "line 4 (zzz__unknown-9): unknown instance_id for this dataset"
    assert messages[3].startswith("line 5 (a__b-3): model_patch: Value error, model_patch must be")
    assert messages[4].startswith("line 6: not UTF-8")
    assert messages[5] == "line 7: expected a JSON object, got list"
    assert len(messages) == 6


def test_huge_patch_is_rejected_with_its_size(tmp_path: Path) -> None:
    path = tmp_path / "preds.jsonl"
    huge = PATCH + "+" + "x" * (50 * 1024 * 1024) + "\n"
    path.write_bytes(line("a__b-1", patch=huge) + b"\n" + line("a__b-2") + b"\n")
    result = read_predictions_file(path, KNOWN)
    assert list(result.predictions) == ["a__b-2"]
    assert "model_patch is 52.4 MB, over the limit of 21.0 MB" in str(result.problems[0])


def test_lone_surrogates_and_nul_bytes_are_rejected(tmp_path: Path) -> None:
    path = tmp_path / "preds.jsonl"
    path.write_text(
        '{"instance_id": "a__b-1", "model_patch": "diff \\ud800"}\n'
        '{"instance_id": "a__b-2", "model_patch": "diff \\u0000"}\n'
    )
    result = read_predictions_file(path, KNOWN, allow_none=True)
    assert result.predictions == {}
    assert "not valid UTF-8" in str(result.problems[0])
    assert "NUL" in str(result.problems[1])


def test_json_list_and_keyed_object_forms(tmp_path: Path) -> None:
    as_list = tmp_path / "p.json"
    as_list.write_text(json.dumps([{"instance_id": "a__b-1", "model_patch": PATCH}, 7]))
    result = read_predictions_file(as_list, KNOWN)
    assert list(result.predictions) == ["a__b-1"]
    assert str(result.problems[0]) == "item 2: expected a JSON object, got int"
    keyed = tmp_path / "k.json"
    keyed.write_text(json.dumps({"a__b-3": {"model_patch": PATCH}}))
    assert list(read_predictions_file(keyed, KNOWN).predictions) == ["a__b-3"]


def test_unreadable_files_raise_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(PredictionsFileError, match="does not exist"):
        read_predictions_file(tmp_path / "missing.jsonl")
    broken = tmp_path / "broken.json"
    broken.write_text("[{")
    with pytest.raises(PredictionsFileError, match="malformed JSON"):
        read_predictions_file(broken)


def test_gold_and_empty() -> None:
    instances = [Instance.model_validate(official_row(instance_id="x__y-1", patch=PATCH))]
    gold = load_predictions("gold", instances)
    assert gold.predictions["x__y-1"].model_patch == PATCH
    empty = synthetic_predictions("empty", instances)
    assert empty.predictions["x__y-1"].is_empty
