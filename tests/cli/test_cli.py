"""The command line: argument errors are clear and exit 2; parse-log prints JSON."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from polybench.cli.main import app

runner = CliRunner()


def test_parse_log_prints_statuses(tmp_path: Path) -> None:
    log = tmp_path / "log.txt"
    log.write_text(
        "============ short test summary info ============\n"
        "PASSED tests/test_a.py::TestX::test_one[a b]\n"
        "FAILED tests/test_a.py::test_two - AssertionError\n"
    )
    result = runner.invoke(app, ["parse-log", "--parser", "pytest", str(log)])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == {
        "tests/test_a.py:TestX:test_one[a b]": "passed",
        "tests/test_a.py:None:test_two": "failed",
    }
    by_repo = runner.invoke(app, ["parse-log", "--repo", "yt-dlp/yt-dlp", str(log)])
    # The official repos' parser also records the id the official harness would have
    # produced for a parameter with a space (its pattern drops the brackets).
    assert json.loads(by_repo.stdout) == {
        **json.loads(result.stdout),
        "tests/test_a.py:TestX:test_one": "passed",
    }


def test_parse_log_errors(tmp_path: Path) -> None:
    log = tmp_path / "log.txt"
    log.write_text("nothing to see\n")
    nothing = runner.invoke(app, ["parse-log", "--parser", "pytest", str(log)])
    assert nothing.exit_code == 1 and "no test results found" in nothing.output
    unknown = runner.invoke(app, ["parse-log", "--parser", "nope", str(log)])
    assert unknown.exit_code == 2 and "unknown log parser 'nope'" in unknown.output
    neither = runner.invoke(app, ["parse-log", str(log)])
    assert neither.exit_code == 2 and "--parser NAME or --repo" in neither.output
    missing = runner.invoke(app, ["parse-log", "--parser", "tap", str(tmp_path / "none")])
    assert missing.exit_code == 2 and "cannot read" in missing.output


def test_eval_rejects_bad_arguments_with_exit_2(tmp_path: Path) -> None:
    cases = [
        (["--dataset", "no-such-dataset"], "no dataset 'no-such-dataset'"),
        (["--predictions", str(tmp_path / "missing.jsonl")], "does not exist"),
        (["--instance-ids", "nobody__x-1"], "unknown instance ids: nobody__x-1"),
        (["--backend", "kubernetes"], "unknown backend 'kubernetes'"),
        (["--isolation", "chroot"], "isolation: Input should be 'auto', 'bubblewrap' or 'none'"),
        (["--memory", "2g"], "--memory applies to the docker backend, not local"),
        (["--backend-option", "colour=blue"], "colour: Extra inputs are not permitted"),
        (["--rule", "lenient"], "--rule strict|official"),
        (["--canaries", "maybe"], "--canaries on|off"),
        (["--prepare-ahead", "-1"], "'--prepare-ahead': Input should be greater than or equal"),
    ]
    for extra, message in cases:
        given = extra if "--predictions" in extra else ["--predictions", "gold", *extra]
        result = runner.invoke(app, ["eval", "--output-dir", str(tmp_path), *given])
        assert result.exit_code == 2, (extra, result.output)
        assert message in result.output, (extra, result.output)
