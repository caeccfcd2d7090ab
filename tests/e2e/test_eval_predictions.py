"""A predictions file mixing good, wrong, broken, hostile and invalid items."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from polybench.dataset.builtin import materialise_builtin_repos
from polybench.dataset.models import Instance
from tests.e2e.conftest import read_report, run_cli

pytestmark = pytest.mark.slow


def make_patch(clone: Path, commit: str, work: Path, edits: dict[str, str | None]) -> str:
    """A real ``git diff`` for ``edits`` (path -> new content, None deletes) at ``commit``."""
    checkout = work / f"edit-{abs(hash(tuple(edits)))}"
    subprocess.run(["git", "clone", "-q", "--shared", str(clone), str(checkout)], check=True)
    subprocess.run(["git", "-C", str(checkout), "checkout", "-q", commit], check=True)
    for path, content in edits.items():
        target = checkout / path
        if content is None:
            target.unlink()
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(content)
    subprocess.run(["git", "-C", str(checkout), "add", "-A"], check=True)
    return subprocess.run(
        ["git", "-C", str(checkout), "diff", "--cached"], capture_output=True, text=True, check=True
    ).stdout


def test_mixed_predictions_file(cache_env: Path, tmp_path: Path, mini: dict[str, Instance]) -> None:
    repos = tmp_path / "repos"
    materialise_builtin_repos("mini", repos)
    logline = mini["polybench-mini__logline-63"]
    test_file = "tests/test_formatter.py"
    assert test_file in logline.test_patch
    tamper = make_patch(
        repos / "polybench-mini__logline",
        logline.base_commit,
        tmp_path,
        {test_file: "import unittest\n"},
    )
    # Removed lines that the file does not contain: no strategy can apply this.
    not_applying = "\n".join(
        "-this line is not in the file"
        if line.startswith("-") and not line.startswith("---")
        else line
        for line in mini["polybench-mini__envcfg-18"].patch.split("\n")
    )
    outside = (
        "diff --git a/../escape.js b/../escape.js\n--- a/../escape.js\n+++ b/../escape.js\n"
        "@@ -1 +1 @@\n-a\n+b\n"
    )
    lines = [
        {
            "instance_id": "polybench-mini__timespan-27",
            "model_patch": mini["polybench-mini__timespan-27"].patch,
            "model_name_or_path": "agent-x",
        },
        {
            "instance_id": "polybench-mini__logline-58",
            "model_patch": mini["polybench-mini__logline-63"].patch,
        },
        {"instance_id": "polybench-mini__logline-63", "model_patch": tamper},
        {"instance_id": "polybench-mini__envcfg-18", "model_patch": not_applying},
        {"instance_id": "polybench-mini__hues-41", "model_patch": "I fixed the bug.\n"},
        {"instance_id": "polybench-mini__cronex-12", "model_patch": outside},
        {"instance_id": "nobody__nothing-1", "model_patch": ""},
        {"instance_id": "polybench-mini__timespan-27", "model_patch": ""},
        {"instance_id": "polybench-mini__quantify-58", "model_patch": 42},
    ]
    path = tmp_path / "preds.jsonl"
    raw = [json.dumps(item) for item in lines]
    raw.insert(3, '{"instance_id": "polybench-mini__argkit-97", "model_patch": "diff')
    path.write_text("\n".join(raw) + "\n")

    done = run_cli(
        [
            "eval",
            "--dataset",
            "mini",
            "--predictions",
            str(path),
            "--run-id",
            "mixed",
            "--output-dir",
            str(tmp_path / "runs"),
        ],
        cache_env,
    )
    assert done.returncode == 0, done.stderr
    report = read_report(tmp_path / "runs" / "mixed")
    assert report["resolved_ids"] == ["polybench-mini__timespan-27"]
    assert sorted(report["unresolved_ids"]) == sorted(
        [
            "polybench-mini__logline-58",
            "polybench-mini__logline-63",
            "polybench-mini__envcfg-18",
            "polybench-mini__hues-41",
            "polybench-mini__cronex-12",
        ]
    )
    assert report["error_instances"] == 0
    assert report["no_prediction_instances"] == report["total_instances"] - 6

    def reason(instance_id: str) -> str:
        folder = tmp_path / "runs" / "mixed" / "instances" / instance_id
        return str(json.loads((folder / "result.json").read_text())["reason"])

    assert "F2P not passing" in reason("polybench-mini__logline-58")
    assert "F2P not passing" in reason("polybench-mini__logline-63")
    assert "did not apply" in reason("polybench-mini__envcfg-18")
    assert "not a valid unified diff" in reason("polybench-mini__hues-41")
    assert "leaves the repository" in reason("polybench-mini__cronex-12")

    problems = {(p["where"], p["instance_id"]): p["message"] for p in report["input_problems"]}
    assert problems[("line 4", None)].startswith("malformed JSON")
    assert problems[("line 8", "nobody__nothing-1")] == "unknown instance_id for this dataset"
    assert problems[("line 9", "polybench-mini__timespan-27")].startswith("duplicate instance_id")
    assert "must be a string" in problems[("line 10", "polybench-mini__quantify-58")]
    assert "warning: predictions line 4: malformed JSON" in done.stderr
    assert "line 8 (nobody__nothing-1): unknown instance_id" in done.stderr
