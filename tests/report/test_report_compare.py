"""Runs over different instance sets, unfinished runs, paired comparisons, language order."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from polybench.dataset.models import Instance
from polybench.metrics.stats import paired_difference
from polybench.report.build import build_report
from polybench.report.compare import common_ids, paired_comparison
from polybench.report.model import Report
from polybench.report.render_html import to_html
from polybench.report.render_text import csv_files, pct_se, to_markdown
from polybench.report.retrieval import score_patches
from polybench.report.runs import LoadedRun, attach_dataset, load_run
from polybench.report.strata import LANGUAGE_ORDER, RunOutcomes
from tests.helpers.report_data import STATUSES_A, FakeScorer, dataset, sample_report, write_run

LANGUAGES = ["Java", "JavaScript", "Python", "TypeScript"]


@pytest.fixture
def instances() -> dict[str, Instance]:
    return {i.instance_id: i for i in dataset()}


def _loaded(path: Path, instances: dict[str, Instance]) -> LoadedRun:
    run = load_run(path)
    attach_dataset(run, instances)
    return run


@pytest.fixture
def killed(tmp_path: Path, instances: dict[str, Instance]) -> Report:
    """agent-a finished all 10 instances; agent-b was killed after 2 (no report.json)."""
    full = _loaded(write_run(tmp_path, "agent-a", STATUSES_A), instances)
    partial = _loaded(
        write_run(tmp_path, "agent-b", {"a-2": "resolved", "d-1": "resolved"}, with_summary=False),
        instances,
    )
    return build_report([full, partial], instances, n_resamples=200, seed=2)


def test_a_killed_run_is_scored_over_the_instances_it_covers(killed: Report) -> None:
    full, partial = killed.runs
    assert (partial.instances, partial.resolved, partial.no_prediction) == (2, 2, 0)
    assert partial.pass_rate == 1.0  # 2 of its 2 instances, not 2 of the 10
    assert (partial.coverage, partial.finished) == ("2 of 10", False)
    assert (full.instances, full.pass_rate, full.coverage, full.finished) == (
        10,
        0.5,
        "10 of 10",
        True,
    )


def test_different_instance_sets_give_a_warning_and_a_common_comparison(killed: Report) -> None:
    assert killed.coverage is not None
    assert (killed.coverage.compared_on, killed.coverage.common_instances) == ("common", 2)
    assert killed.coverage.common_ids == ["a-2", "d-1"]
    first = killed.warnings[0]
    assert "different instance sets" in first
    assert "agent-a: 10 of 10" in first and "agent-b: 2 of 10, unfinished" in first
    assert "on the 2 instances they all cover" in first
    assert any(w.startswith("agent-b: unfinished run (no report.json)") for w in killed.warnings)
    # Every comparison table is over the 2 common instances (a-2: Java, d-1: Python).
    language = {row.key: row.cells for row in killed.table("language").rows}
    assert (language["All"]["agent-a"].n, language["All"]["agent-a"].resolved) == (2, 1)
    assert (language["All"]["agent-b"].n, language["All"]["agent-b"].resolved) == (2, 2)
    assert language["TypeScript"]["agent-a"].n == 0
    for table in killed.tables:
        assert table.scope.startswith("Runs compared on the 2 instances")
    # The Runs table keeps each run's own numbers and adds the common ones.
    full = killed.runs[0]
    assert (full.common_n, full.common_resolved, full.common_pass_rate) == (2, 1, 0.5)


def test_the_warning_is_in_every_format(killed: Report) -> None:
    warning = killed.warnings[0]
    markdown = to_markdown(killed)
    assert f"> **Warning:** {warning}" in markdown
    assert markdown.index("**Warning:**") < markdown.index("## Runs")
    assert "*Runs compared on the 2 instances they all cover (of 10 in the dataset).*" in markdown
    assert "2 of 10 (unfinished: partial)" in markdown and "common pass rate (%)" in markdown
    html = to_html(killed)
    assert '<div class="warning" role="alert"><strong>Warning:</strong> ' in html
    assert html.count('class="warning"') == len(killed.warnings)
    assert '<p class="scope">Runs compared on the 2 instances' in html
    assert json.loads(killed.model_dump_json())["warnings"] == killed.warnings
    runs = list(csv.DictReader(io.StringIO(csv_files(killed)["runs.csv"])))
    assert [(r["instances"], r["dataset_instances"], r["finished"]) for r in runs] == [
        ("10", "10", "True"),
        ("2", "10", "False"),
    ]
    assert [r["common_n"] for r in runs] == ["2", "2"]


def test_runs_over_the_same_instances_need_no_warning(tmp_path: Path) -> None:
    report = sample_report(tmp_path)
    assert report.warnings == []
    assert report.coverage is not None and report.coverage.compared_on == "all"
    assert report.coverage.common_instances == 10
    assert all(table.scope == "" for table in report.tables)
    assert "Warning" not in to_markdown(report) and 'class="warning"' not in to_html(report)


def test_runs_with_nothing_in_common(tmp_path: Path, instances: dict[str, Instance]) -> None:
    left = _loaded(write_run(tmp_path, "left", {"a-1": "resolved"}, with_summary=False), instances)
    right = _loaded(write_run(tmp_path, "right", {"b-1": "resolved"}), instances)
    report = build_report([left, right], instances, n_resamples=50)
    assert report.coverage is not None and report.coverage.compared_on == "own"
    assert "no instance in common" in report.warnings[0]
    assert report.paired == []
    assert any("cover no instance in common" in note for note in report.notes)
    overall = next(row for row in report.table("language").rows if row.key == "All")
    assert (overall.cells["left"].n, overall.cells["right"].n) == (1, 1)
    assert "not comparable" in report.tables[0].scope


def test_paired_comparison_of_the_sample_runs(tmp_path: Path) -> None:
    report = sample_report(tmp_path)
    (pair,) = report.paired
    # agent-a resolves a-1, b-1, c-1, d-1, d-2; agent-b resolves a-1 only.
    assert (pair.first, pair.second, pair.n) == ("agent-a", "agent-b", 10)
    assert (pair.both_resolved, pair.b, pair.c, pair.neither_resolved) == (1, 4, 0, 5)
    assert pair.difference == pytest.approx(-0.4)
    assert pair.test == "exact" and pair.statistic is None
    assert pair.p_value == 2 / 2**4  # 2 * P(X <= 0), X ~ Binomial(4, 1/2)
    a = [1, 0, 1, 0, 1, 0, 1, 1, 0, 0]  # dataset order a-1 ... d-4
    b = [1, 0, 0, 0, 0, 0, 0, 0, 0, 0]
    expected = paired_difference(a, b, n_resamples=300, seed=1, confidence=0.95)
    assert (pair.se, pair.ci_low, pair.ci_high) == (expected.se, expected.ci_low, expected.ci_high)

    markdown = to_markdown(report)
    section = markdown.split("## Paired comparison", 1)[1].split("\n## ", 1)[0]
    assert "McNemar's test" in section
    row = next(line for line in section.splitlines() if line.startswith("| agent-a"))
    cells = [c.strip() for c in row.strip("|").split(" | ")]
    assert cells[:7] == ["agent-a", "agent-b", "10", "50.0", "10.0", "-40.0", pct_se(pair.se)]
    assert cells[8:] == ["4", "0", "exact", "0.125"]
    lines = list(csv.DictReader(io.StringIO(csv_files(report)["paired.csv"])))
    assert len(lines) == 1
    assert (lines[0]["b"], lines[0]["c"], float(lines[0]["p_value"])) == ("4", "0", 0.125)
    assert float(lines[0]["difference"]) == pytest.approx(-0.4)
    html = to_html(report)
    assert 'id="table-paired"' in html and '<td class="num">0.125</td>' in html


def test_each_pair_uses_the_instances_both_runs_cover() -> None:
    a = RunOutcomes("A", ["x", "y", "z", "w"], {"x": True, "y": True})
    b = RunOutcomes("B", ["y", "z", "w"], {"z": True, "w": True})
    pair = paired_comparison(a, b, n_resamples=100, seed=0)
    assert pair.n == 3  # y, z, w
    assert (pair.b, pair.c, pair.first_resolved, pair.second_resolved) == (1, 2, 1, 2)
    assert pair.p_value == 1.0  # 2 * P(X <= 1), X ~ Binomial(3, 1/2) = 2 * 4/8, capped
    assert common_ids([["x", "y", "z"], ["z", "y"], ["y", "z", "q"]]) == ["y", "z"]


def test_three_runs_give_every_pair(tmp_path: Path, instances: dict[str, Instance]) -> None:
    runs = [
        _loaded(write_run(tmp_path, name, {i: status for i in instances}), instances)
        for name, status in (("r1", "resolved"), ("r2", "unresolved"), ("r3", "resolved"))
    ]
    report = build_report(runs, instances, n_resamples=50)
    assert [(p.first, p.second) for p in report.paired] == [
        ("r1", "r2"),
        ("r1", "r3"),
        ("r2", "r3"),
    ]
    r1_r2 = report.paired[0]
    # 10 discordant pairs: exact test, 2 * P(X <= 0) = 2 / 1024.
    assert (r1_r2.b, r1_r2.c, r1_r2.p_value, r1_r2.se) == (10, 0, 2 / 1024, 0.0)
    assert report.paired[1].p_value == 1.0 and report.paired[1].difference == 0.0


def test_languages_are_in_one_sorted_official_order_everywhere(
    tmp_path: Path, instances: dict[str, Instance]
) -> None:
    assert list(LANGUAGE_ORDER) == LANGUAGES
    report = sample_report(tmp_path)
    assert [row.label for row in report.table("language").rows] == [*LANGUAGES, "All"]
    assert report.retrieval is not None
    assert [row.label for row in report.retrieval.rows] == [*LANGUAGES, "All"]
    markdown = to_markdown(report)
    for section in ("## Table 3", "### File retrieval", "### Node retrieval"):
        body = markdown.split(section, 1)[1]
        positions = [body.index(f"| {language} |") for language in LANGUAGES]
        assert positions == sorted(positions), section
    language_csv = list(csv.DictReader(io.StringIO(csv_files(report)["language.csv"])))
    assert [line["stratum"] for line in language_csv][::2] == [*LANGUAGES, "All"]
    # A run's scores are retrieval-table rows in the same order, whatever the dataset order.
    reversed_instances = dict(reversed(list(instances.items())))
    run = _loaded(write_run(tmp_path / "rev", "rev", STATUSES_A), reversed_instances)
    scores, _ = score_patches(FakeScorer(), reversed_instances, run.instance_ids, {})
    again = build_report([run], reversed_instances, retrieval={"rev": scores}, n_resamples=20)
    assert [row.key for row in again.table("language").rows] == [*LANGUAGES, "All"]
    assert again.retrieval is not None
    assert [row.key for row in again.retrieval.rows] == [*LANGUAGES, "All"]
