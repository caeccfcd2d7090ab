"""Both resolved rules and the defences' counts: the run summary of ``polybench eval``
(``report.json`` and the lines under its table) and ``polybench report``."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

from polybench.cli.eval_cmd import results_table
from polybench.dataset.models import Instance
from polybench.grading.canaries import (
    CanaryCheck,
    CanaryOutcome,
    CanaryRecord,
    CanaryStatus,
    detection_probability,
)
from polybench.grading.probe import ProbeCheck, ProbeFinding, ProbeStatus
from polybench.grading.result import InstanceResult
from polybench.grading.tampering import Flag, PathRecord, Tampering
from polybench.report.build import build_report
from polybench.report.defences import DEFENCES, count_defences, defences_of
from polybench.report.model import Report
from polybench.report.render_html import to_html
from polybench.report.render_text import csv_files, to_markdown
from polybench.report.rules import rule_answers, tally_rules
from polybench.report.run_report import SHOWN_DISAGREEMENTS, summary_lines
from polybench.report.runs import attach_dataset, load_run
from polybench.runner.records import RunSummary
from polybench.runner.summary import build_summary
from tests.helpers.report_data import dataset, graded, write_results_run
from tests.helpers.session_cache import shared_root


@pytest.fixture
def instances() -> dict[str, Instance]:
    return {i.instance_id: i for i in dataset()}


def _canaries(*outcomes: CanaryOutcome, status: str = "checked") -> CanaryCheck:
    records = [
        CanaryRecord(file="tests/test_x.py", test="test_x", outcome=o, observed="passed")
        for o in outcomes
    ]
    probability = detection_probability(1) if status == "checked" else 0.0
    return CanaryCheck(
        status=CanaryStatus(status), records=records, detection_probability=probability, runs=1
    )


# --- one instance under both rules ----------------------------------------------------------


@pytest.mark.parametrize(
    ("f2p", "p2p", "expected"),
    [
        ({}, {"p1": "passed"}, "no F2P test is listed: an empty F2P list passes officially"),
        (
            {"t1": "xfail", "t2": "passed"},
            {},
            "F2P test t1 only xfailed: an expected failure counts as passed officially",
        ),
        ({"t1": "passed"}, {"p1": "missing"}, "P2P test p1 missing: counts as fine officially"),
        (
            {"t1": "passed"},
            {"p1": "skipped", "p2": "skipped", "p3": "passed"},
            "P2P tests p1, p2 skipped: counts as fine officially",
        ),
    ],
)
def test_why_official_resolves_what_strict_does_not(
    f2p: dict[str, str], p2p: dict[str, str], expected: str
) -> None:
    result = graded("x-1", "unresolved", strict=False, official=True, f2p=f2p, p2p=p2p)
    tally = tally_rules([result])
    (found,) = tally.disagreements
    assert (found.instance_id, found.strict, found.official) == ("x-1", False, True)
    assert found.why == [expected]
    assert found.text == f"resolved officially, not strictly: {expected}"
    assert (tally.strict_resolved, tally.official_resolved) == (0, 1)


def test_many_tests_of_one_kind_are_cut_short() -> None:
    p2p = {f"p{i}": "missing" for i in range(5)}
    result = graded("x-1", "unresolved", strict=False, official=True, p2p=p2p)
    (found,) = tally_rules([result]).disagreements
    assert found.why == ["P2P tests p0, p1, p2 and 2 more missing: counts as fine officially"]


def test_agreeing_rules_and_tampering_list_nothing() -> None:
    results = [
        graded("a", strict=True, official=True),
        graded("b", "unresolved", strict=False, official=False, f2p={"t1": "failed"}),
        graded(
            "c",
            "unresolved",
            strict=False,
            official=False,
            p2p={"p1": "missing"},
            tampering=Tampering(detected=["a canary passed"]),
        ),
        graded("d", "error"),  # the tests did not run: None under both rules
    ]
    tally = tally_rules(results)
    assert tally.disagreements == []
    assert (tally.strict_resolved, tally.official_resolved, tally.rule) == (1, 1, "strict")


def test_results_without_both_answers_fall_back_on_status_and_outcomes() -> None:
    # Written before both answers were recorded: the status rule's answer is the status,
    # the other is worked out from the outcomes.
    strict_ok = graded("a", f2p={"t1": "passed"}, p2p={"p1": "passed"})
    official_only = graded("b", rule="official", f2p={"t1": "passed"}, p2p={"p1": "missing"})
    unresolved = graded("c", "unresolved", f2p={"t1": "failed"})
    assert rule_answers(strict_ok) == (True, True)
    assert rule_answers(official_only) == (False, True)
    assert rule_answers(unresolved) == (False, False)
    tally = tally_rules([strict_ok, official_only, unresolved])
    assert tally.rule == "official+strict"
    assert [d.instance_id for d in tally.disagreements] == ["b"]
    assert tally.disagreements[0].why == ["P2P test p1 missing: counts as fine officially"]


# --- the defences ---------------------------------------------------------------------------


def _tampered_results() -> list[InstanceResult]:
    return [
        graded(
            "a-1",
            tampering=Tampering(
                reverted=[PathRecord(path="pytest.ini", reason="tool configuration")],
                flags=[Flag(path="src/m.py", rule="imports the test runner", line="import pytest")],
            ),
        ),
        graded(
            "a-2",
            "unresolved",
            strict=False,
            official=False,
            tampering=Tampering(
                refused=[PathRecord(path="conftest.py", reason="test root")],
                canaries=_canaries(CanaryOutcome.AS_PLANTED, CanaryOutcome.WRONG),
                probe=ProbeCheck(
                    status=ProbeStatus.READ,
                    processes=1,
                    findings=[ProbeFinding(name="_pytest.reports.TestReport.__init__", by="m.py")],
                ),
                distrusted_reports=["the report was cut short"],
                detected=["1 armed F2P test(s) passed in the canary run"],
            ),
        ),
        graded(
            "b-1",
            "unresolved",
            strict=False,
            official=False,
            tampering=Tampering(truncated_bytes=512, detected=["the output was cut"]),
        ),
        # A canary run that could not answer is not tampering: the verdict stands.
        graded(
            "b-2",
            tampering=Tampering(canaries=_canaries(CanaryOutcome.NOT_RUN, status="unavailable")),
        ),
    ]


def test_defences_count_instances_per_defence() -> None:
    results = _tampered_results()
    assert defences_of(results[0]) == ["reverted", "flagged"]
    assert defences_of(results[3]) == ["canaries_unavailable"]
    counts = count_defences(results)
    assert {key: counts.count(key) for key in DEFENCES} == {
        "reverted": 1,
        "refused": 1,
        "canaries_tampered": 1,
        "canaries_unavailable": 1,
        "framework_changed": 1,
        "distrusted": 1,
        "truncated": 1,
        "flagged": 1,
        "detected": 2,
    }
    assert counts.ids["detected"] == ["a-2", "b-1"]
    assert counts.ids["canaries_tampered"] == ["a-2"]
    assert counts.ids["canaries_unavailable"] == ["b-2"]
    assert counts.canaries.statuses == {"checked": 1, "off": 2, "unavailable": 1}
    assert counts.canaries.detection_per_instance == 0.75
    assert counts.canaries.detection_per_run == 0.75


# --- polybench eval: report.json and the lines under the table -------------------------------


def _summary(instances: dict[str, Instance]) -> RunSummary:
    results = {r.instance_id: r for r in _tampered_results()}
    results["c-1"] = graded("c-1", "unresolved", strict=False, official=True, p2p={"p": "missing"})
    results["c-2"] = graded("c-2", "empty_patch")
    return build_summary("run-1", list(instances.values()), results, canaries="on")


def test_run_summary_keeps_its_keys_and_adds_both_rules_and_defences(
    instances: dict[str, Instance],
) -> None:
    summary = json.loads(_summary(instances).model_dump_json())
    # The keys other code reads are still there, with the same meaning.
    assert summary["resolved_ids"] == ["a-1", "b-2"]
    assert summary["unresolved_ids"] == ["a-2", "b-1", "c-1"]
    assert summary["no_prediction_ids"] == ["d-1", "d-2", "d-3", "d-4"]
    assert summary["pass_rate"] == 0.2
    assert summary["rule"] == "strict"
    assert (summary["strict_resolved_instances"], summary["official_resolved_instances"]) == (2, 3)
    assert (summary["strict_pass_rate"], summary["official_pass_rate"]) == (0.2, 0.3)
    assert summary["rule_disagreements"] == [
        {
            "instance_id": "c-1",
            "strict": False,
            "official": True,
            "why": ["P2P test p missing: counts as fine officially"],
        }
    ]
    tampering = summary["tampering"]
    assert isinstance(tampering, dict)
    assert (tampering["reverted"], tampering["canaries_tampered"], tampering["detected"]) == (
        1,
        1,
        2,
    )
    assert tampering["ids"]["detected"] == ["a-2", "b-1"]
    json.dumps(summary)  # report.json is written as JSON


def test_lines_under_the_eval_table(instances: dict[str, Instance]) -> None:
    lines = summary_lines(_summary(instances))
    assert lines == [
        "pass rate by rule: strict 20.0% (2/10), official 30.0% (3/10); the statuses above "
        "follow the strict rule",
        "the rules disagree on 1 instance:",
        "  c-1: resolved officially, not strictly: P2P test p missing: counts as fine officially",
        "defences (instances): reverted 1, refused 1, canaries tampered 1, canaries "
        "unavailable 1, framework changed 1, distrusted 1, truncated 1, flagged 1, detected 2",
        "canaries (instances): checked 1, off 4, unavailable 1; detection probability per "
        "checked instance >= 0.75, per run >= 0.7500",
        "tampering detected in 2 instances (not resolved under any rule): a-2, b-1",
    ]


def test_long_disagreement_lists_are_cut_on_the_console(instances: dict[str, Instance]) -> None:
    results = {
        f"x-{i:02}": graded(f"x-{i:02}", "unresolved", strict=False, official=True, f2p={})
        for i in range(SHOWN_DISAGREEMENTS + 3)
    }
    fake = [instances["a-1"].model_copy(update={"instance_id": i}) for i in results]
    lines = summary_lines(build_summary("r", fake, results))
    listed = [line for line in lines if line.startswith("  x-")]
    assert len(listed) == SHOWN_DISAGREEMENTS
    assert "  ... and 3 more (report.json lists them all)" in lines


def test_an_older_summary_reads_with_defaults() -> None:
    lines = summary_lines(RunSummary.model_validate({"run_id": "old", "total_instances": 3}))
    assert lines[0].startswith("pass rate by rule: strict 0.0% (0/3)")


def test_results_table_prints_the_run_id_as_text(instances: dict[str, Instance]) -> None:
    summary = _summary(instances).model_copy(update={"run_id": "[bold]x[/bold]"})
    console = Console(width=120, record=True)
    console.print(results_table(summary))
    assert "run [bold]x[/bold]" in console.export_text()


# --- polybench report -----------------------------------------------------------------------


@pytest.fixture
def report(tmp_path: Path, instances: dict[str, Instance]) -> Report:
    results = [
        *_tampered_results(),
        graded("c-1", "unresolved", strict=False, official=True, p2p={"p": "missing"}),
    ]
    run = load_run(write_results_run(tmp_path, "agent", results))
    attach_dataset(run, instances)
    return build_report([run], instances, n_resamples=100, seed=0)


def test_report_has_both_pass_rates_the_disagreements_and_the_defences(report: Report) -> None:
    (run,) = report.runs
    assert (run.instances, run.resolved, run.status_rule) == (5, 2, "strict")
    assert (run.strict_resolved, run.strict_pass_rate) == (2, 0.4)
    assert (run.official_resolved, run.official_pass_rate) == (3, 0.6)
    assert run.strict_se is not None and run.official_se is not None
    assert [(d.instance_id, d.why) for d in run.disagreements] == [
        ("c-1", ["P2P test p missing: counts as fine officially"])
    ]
    assert (run.defences.reverted, run.defences.detected) == (1, 2)
    records = {r.instance_id: r for r in report.instances["agent"]}
    assert (records["c-1"].strict_resolved, records["c-1"].official_resolved) == (False, True)
    assert records["a-2"].defences == [
        "refused",
        "canaries_tampered",
        "framework_changed",
        "distrusted",
        "detected",
    ]
    assert Report.model_validate_json(report.model_dump_json()) == report


def test_markdown_shows_both_rules_and_the_defences(report: Report) -> None:
    markdown = to_markdown(report)
    rules = markdown.split("## Strict and official rules", 1)[1].split("\n## ", 1)[0]
    assert "| agent | strict | 5 | 2 | 40.0 |" in rules
    assert "| 3 | 60.0 |" in rules
    assert (
        "- c-1: resolved officially, not strictly: P2P test p missing: counts as fine officially"
        in rules
    )
    defences = markdown.split("## Defences", 1)[1].split("\n## ", 1)[0]
    assert "| agent | 5 | 1 | 1 | 1 | 1 | 1 | 1 | 1 | 1 | 2 |" in defences
    assert "- agent: canaries (instances): checked 1, off 3, unavailable 1;" in defences
    assert "- agent: a-2, b-1" in defences


def test_csv_files_of_the_disagreements_and_the_defences(report: Report) -> None:
    files = csv_files(report)
    disagreements = list(csv.DictReader(io.StringIO(files["rule_disagreements.csv"])))
    assert disagreements == [
        {
            "run": "agent",
            "instance_id": "c-1",
            "strict": "False",
            "official": "True",
            "why": "P2P test p missing: counts as fine officially",
        }
    ]
    defences = {row["defence"]: row for row in csv.DictReader(io.StringIO(files["defences.csv"]))}
    assert list(defences) == list(DEFENCES)
    assert (defences["detected"]["instances"], defences["detected"]["instance_ids"]) == (
        "2",
        "a-2 b-1",
    )
    runs = list(csv.DictReader(io.StringIO(files["runs.csv"])))
    assert (runs[0]["strict_pass_rate"], runs[0]["official_pass_rate"]) == ("0.4", "0.6")


def test_html_shows_both_rules_and_the_defences(report: Report) -> None:
    html = to_html(report, charts=[])
    rules = html.split('id="table-rules"', 1)[1].split("</table>", 1)[0]
    assert '<td class="num">40.0</td>' in rules and '<td class="num">60.0</td>' in rules
    assert "P2P test p missing: counts as fine officially" in html
    defences = html.split('id="table-defences"', 1)[1].split("</table>", 1)[0]
    assert defences.count('<td class="num">2</td>') == 1  # detected
    assert "agent: a-2, b-1" in html
    assert '<a href="#defences">' in html


@pytest.mark.slow
def test_eval_prints_both_rules_and_the_defences(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    cache = shared_root(tmp_path_factory)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "polybench",
            "eval",
            "--dataset",
            "mini",
            "--predictions",
            "gold",
            "--instance-ids",
            "polybench-mini__logline-58",
            "--output-dir",
            str(tmp_path / "runs"),
            "--run-id",
            "gold",
        ],
        capture_output=True,
        text=True,
        timeout=1200,
        env=dict(os.environ, POLYBENCH_CACHE_DIR=str(cache), COLUMNS="200"),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert (
        "pass rate by rule: strict 100.0% (1/1), official 100.0% (1/1); the statuses above "
        "follow the strict rule" in done.stdout
    )
    assert "defences (instances): reverted 0, refused 0, canaries tampered 0" in done.stdout
    summary = json.loads((tmp_path / "runs" / "gold" / "report.json").read_text())
    assert (summary["strict_pass_rate"], summary["official_pass_rate"]) == (1.0, 1.0)
    assert summary["tampering"]["detected"] == 0
