"""An interrupted run's summary: the instances it did not reach are counted as not run
(not as missing predictions, not in no column), and its pass rates are labelled partial
and are over the instances that ran."""

from __future__ import annotations

import json
from pathlib import Path

from rich.console import Console

from polybench.cli.eval_cmd import results_table
from polybench.report.build import build_report
from polybench.report.render_text import to_markdown
from polybench.report.run_report import summary_lines
from polybench.report.runs import attach_dataset, load_run
from polybench.runner.records import RunSummary
from polybench.runner.summary import build_summary
from tests.helpers.report_data import dataset, graded, write_run


def _interrupted() -> tuple[list[str], RunSummary]:
    instances = dataset()  # 2 Java, 2 JavaScript, 2 TypeScript, 4 Python
    results = {
        "a-1": graded("a-1", "resolved", strict=True, official=True, language="Java"),
        "d-1": graded("d-1", "unresolved", strict=False, official=False),
    }
    not_run = [i.instance_id for i in instances if i.instance_id not in results]
    not_run.remove("d-4")  # no prediction for d-4
    return not_run, build_summary("cut", instances, results, not_run=not_run, interrupted=True)


def test_not_run_instances_are_counted_as_such() -> None:
    not_run, summary = _interrupted()
    assert summary.partial and summary.not_run_instances == len(not_run) == 7
    assert summary.no_prediction_ids == ["d-4"]
    java = summary.per_language["Java"]
    assert (java.total, java.resolved, java.not_run, java.pass_rate) == (2, 1, 1, 1.0)
    python = summary.per_language["Python"]
    assert (python.total, python.unresolved, python.no_prediction, python.not_run) == (4, 1, 1, 2)
    # Over the 3 instances that were not left not run: a-1 resolved, d-1 not, d-4 no prediction.
    assert summary.pass_rate == summary.strict_pass_rate == 1 / 3


def test_the_table_has_a_not_run_column_and_partial_rates() -> None:
    _, summary = _interrupted()
    console = Console(width=200, record=True)
    console.print(results_table(summary))
    text = console.export_text()
    assert "(interrupted)" in text and "pass rate (partial)" in text and "not run" in text
    java = next(line for line in text.splitlines() if "Java " in line and "Script" not in line)
    assert "100.0% of 1" in java and java.rstrip(" │").endswith("1")
    typescript = next(line for line in text.splitlines() if "TypeScript" in line)
    assert "- (none ran)" in typescript
    lines = summary_lines(summary)
    assert lines[0].startswith("partial: the run was interrupted with 7 instances of 10 not run")
    assert lines[1].startswith("partial pass rate by rule: strict 33.3% (1/3)")


def test_a_finished_run_keeps_its_plain_table() -> None:
    instances = dataset()
    results = {"a-1": graded("a-1", "resolved", strict=True, official=True, language="Java")}
    summary = build_summary("done", instances, results)
    console = Console(width=200, record=True)
    console.print(results_table(summary))
    text = console.export_text()
    assert not summary.partial and "not run" not in text and "partial" not in text
    assert summary_lines(summary)[0].startswith("pass rate by rule: strict 10.0% (1/10)")


def test_the_report_counts_an_interrupted_run_as_partial(tmp_path: Path) -> None:
    instances = {i.instance_id: i for i in dataset()}
    run_dir = write_run(tmp_path, "cut", {"a-1": "resolved", "d-1": "unresolved"})
    summary = json.loads((run_dir / "report.json").read_text())
    summary["not_run_ids"] = [i for i in instances if i not in ("a-1", "d-1")]
    (run_dir / "report.json").write_text(json.dumps(summary))
    run = load_run(run_dir)
    attach_dataset(run, instances)
    assert not run.finished and run.instance_ids == ["a-1", "d-1"]
    (warning,) = run.warnings
    assert warning.startswith("interrupted run: 8 instances were not run; partial: scored over")
    report = build_report([run], instances, n_resamples=50, seed=1)
    assert report.runs[0].pass_rate == 0.5 and not report.runs[0].finished
    assert "2 of 10 (unfinished: partial)" in to_markdown(report)
