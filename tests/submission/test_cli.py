"""``polybench submission build|check`` through a local app (no test is run)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
import yaml
from typer.testing import CliRunner

from polybench.cli.submission_cmd import submission_app
from polybench.submission.models import METADATA_FILE, PREDICTIONS_FILE, result_path
from tests.submission.conftest import RESOLVED

app = typer.Typer()
app.add_typer(submission_app, name="submission")
runner = CliRunner()


@pytest.fixture(autouse=True)
def _cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("POLYBENCH_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("COLUMNS", "250")


def test_build_refuses_a_folder_that_is_not_a_run(tmp_path: Path) -> None:
    result = runner.invoke(app, ["submission", "build", str(tmp_path), "--output-dir", "x"])
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "not a polybench run" in lines[0]


def test_build_refuses_a_bad_metadata_option(synthetic_run: Path, tmp_path: Path) -> None:
    out = tmp_path / "sub"
    result = runner.invoke(
        app,
        ["submission", "build", str(synthetic_run), "--output-dir", str(out), "--metadata", "oss"],
    )
    assert result.exit_code == 2 and "key=value" in result.output
    assert not out.exists()


def test_build_then_check(synthetic_run: Path, tmp_path: Path) -> None:
    out = tmp_path / "sub"
    built = runner.invoke(
        app,
        [
            *("submission", "build", str(synthetic_run), "--output-dir", str(out)),
            *(
                "--name",
                "Agent X",
                "--metadata",
                "site=https://example.org",
                "--metadata",
                "oss=true",
            ),
        ],
    )
    assert built.exit_code == 0, built.output
    assert "pass rate 6.25% (1/16)" in built.output
    assert "3 predictions, 3 results, 3 metrics files and 0 trajectories" in built.output
    again = runner.invoke(
        app, ["submission", "build", str(synthetic_run), "--output-dir", str(out)]
    )
    assert again.exit_code == 2 and "--force" in again.output

    checked = runner.invoke(app, ["submission", "check", str(out), "--dataset", "mini"])
    assert checked.exit_code == 0, checked.output
    # Only warnings: the README is the template and there are no trajectories.
    assert "0 errors, 2 warnings" in checked.output and "submission ok" in checked.output


def test_check_fails_on_errors_and_prints_them(clean: Path) -> None:
    path = result_path(clean, RESOLVED)
    path.write_text(json.dumps({**json.loads(path.read_text()), "all_f2p_passed": False}))
    result = runner.invoke(app, ["submission", "check", str(clean), "--dataset", "mini"])
    assert result.exit_code == 1
    assert "inconsistent" in result.output and RESOLVED in result.output
    assert "1 errors, 0 warnings" in result.output
    assert "submission ok" not in result.output


def test_text_from_the_submission_is_printed_as_it_is(clean: Path) -> None:
    hostile = "[bold]x[/bold]__y-1"
    with (clean / PREDICTIONS_FILE).open("a") as handle:
        handle.write(json.dumps({"instance_id": hostile, "model_patch": ""}) + "\n")
    metadata = clean / METADATA_FILE
    metadata.write_text(
        yaml.safe_dump({**yaml.safe_load(metadata.read_text()), "site": "[red]lab"})
    )
    result = runner.invoke(app, ["submission", "check", str(clean), "--dataset", "mini"])
    assert result.exit_code == 1
    assert hostile in result.output
    assert "'[red]lab'" in result.output


def test_check_needs_a_dataset_outside_a_split_folder(clean: Path, tmp_path: Path) -> None:
    result = runner.invoke(app, ["submission", "check", str(clean)])
    assert result.exit_code == 2 and "--dataset" in result.output
    missing = runner.invoke(
        app, ["submission", "check", str(tmp_path / "nope"), "--dataset", "mini"]
    )
    assert missing.exit_code == 2 and "not a folder" in missing.output


def test_check_with_an_unknown_dataset_stops(clean: Path) -> None:
    result = runner.invoke(app, ["submission", "check", str(clean), "--dataset", "no-such-set"])
    assert result.exit_code == 2 and "no dataset" in result.output
