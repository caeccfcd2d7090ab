"""``polybench eval`` never picks predictions for the user: forgetting ``--predictions``
is bad input (exit 2) and nothing runs or is written."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from polybench.cli.main import app


def test_eval_without_predictions_is_refused_and_writes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "runs"
    result = CliRunner().invoke(app, ["eval", "--dataset", "mini", "-o", str(out)])
    assert result.exit_code == 2
    assert "Missing option '--predictions'" in result.output
    assert not out.exists()


def test_the_help_says_predictions_are_required() -> None:
    result = CliRunner().invoke(app, ["eval", "--help"], env={"COLUMNS": "200"})
    entry = result.output.split("--predictions", 1)[1].split("\n  -", 1)[0]
    assert "[required]" in entry
