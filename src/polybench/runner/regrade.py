"""Grading a finished run again from its saved logs, with the current parsers and rules,
without running anything.

Every instance whose tests ran (its artifacts hold ``test_output.txt``) is judged again:
the log is parsed, the canaries planted in that run (kept beside the log) are checked
and taken out, and the verdict rules are applied. Instances whose tests did not run (a
rejected or empty patch, an infrastructure error before the tests) keep their result.
The regrade reports every verdict that changed; with ``write`` it also rewrites
``result.json`` (the earlier one kept as ``result.before-regrade.json``) and ``report.json``.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path

from polybench.dataset.loaders import load_dataset
from polybench.dataset.models import Instance
from polybench.grading.canaries import CanaryCheck, CanaryStatus, armed_from_json, check_armed
from polybench.grading.parsers import get_parser
from polybench.grading.parsers.official import official_lists
from polybench.grading.result import InstanceResult
from polybench.grading.verdict import Rule, RunFacts, decide
from polybench.runner.artifacts import InstanceArtifacts
from polybench.runner.records import RecordError, read_metadata, read_summary, write_summary
from polybench.runner.run import load_result, write_result
from polybench.runner.saved_logs import graded_section
from polybench.runner.spec import InstanceSpec, SpecError, build_spec
from polybench.runner.summary import build_summary
from polybench.sandbox.eval_script import split_log

BEFORE = "result.before-regrade.json"


class RegradeError(ValueError):
    """The run folder cannot be regraded (not a run, unknown dataset)."""


@dataclass(frozen=True)
class Change:
    """One instance whose verdict is not what it was."""

    instance_id: str
    before: str
    after: str
    reason: str


@dataclass
class RegradeReport:
    """What a regrade found."""

    run_dir: Path
    regraded: int = 0
    kept: int = 0
    changes: list[Change] = field(default_factory=list)
    results: dict[str, InstanceResult] = field(default_factory=dict)


def _instances(run_dir: Path, dataset: str | None, split: str) -> dict[str, Instance]:
    if dataset is None:
        try:
            dataset = read_metadata(run_dir).dataset
        except RecordError as exc:
            raise RegradeError(f"{exc}: give the dataset") from exc
    if not dataset:
        raise RegradeError(f"{run_dir}/run.json does not name its dataset: give the dataset")
    return {i.instance_id: i for i in load_dataset(dataset, split=split)}


def _canaries_again(
    spec: InstanceSpec, check: CanaryCheck, artifacts: InstanceArtifacts
) -> CanaryCheck:
    """The armed tests read again from the last canary run's log (kept beside the graded
    run's), when the canary run checked the instance."""
    suffix = "" if check.runs <= 1 else f".{check.runs}"
    log_path = artifacts.path(f"canary_output{suffix}.txt")
    armed_path = artifacts.path(f"canaries{suffix}.json")
    if check.status is not CanaryStatus.CHECKED or not log_path.exists():
        return check
    armed = armed_from_json(armed_path.read_text()) if armed_path.exists() else []
    if not armed:
        return check
    stdout_path = artifacts.path(f"canary_stdout{suffix}.txt")
    if spec.report_stream == "stdout" and stdout_path.exists():
        log_path = stdout_path
    text = split_log(log_path.read_text()).body
    records = check_armed(armed, get_parser(spec.parser)(text).statuses)
    return check.model_copy(update={"records": records})


def regrade_result(
    instance: Instance, previous: InstanceResult, artifacts: InstanceArtifacts, rule: Rule
) -> InstanceResult:
    """``previous`` judged again from the logs in ``artifacts`` (unchanged if none)."""
    log_path = artifacts.path("test_output.txt")
    if previous.test_exit_code is None or not log_path.exists():
        return previous
    spec = build_spec(instance)
    log = artifacts.read_text("test_output.txt")
    stdout_path = artifacts.path("test_stdout.txt")
    stdout = artifacts.read_text("test_stdout.txt") if stdout_path.exists() else None
    marked = split_log(log)
    parsed = get_parser(spec.parser)(graded_section(log, stdout, spec.parser))
    check = _canaries_again(spec, previous.tampering.canaries, artifacts)
    facts = RunFacts(
        timed_out=False,
        timeout_seconds=0.0,
        ended=marked.ended,
        marker_exit_code=marked.exit_code,
        process_exit_code=(
            previous.process_exit_code
            if previous.process_exit_code is not None
            else marked.exit_code
        ),
        truncated_bytes=previous.tampering.truncated_bytes,
    )
    verdict = decide(list(spec.f2p), list(spec.p2p), facts, parsed, marked.body, check, rule)
    tampering = previous.tampering.model_copy(
        update={
            "canaries": check,
            "distrusted_reports": list(parsed.distrust),
            "detected": sorted(set(verdict.detected) | _kept_detections(previous)),
        }
    )
    return previous.model_copy(
        update={
            "status": verdict.status,
            "reason": verdict.reason,
            "error_kind": verdict.error_kind,
            "f2p": verdict.f2p,
            "p2p": verdict.p2p,
            "log_parsed": parsed.parsed_anything,
            "log_passed_tests": official_lists(parsed)[0],
            "log_failed_tests": official_lists(parsed)[1],
            "tests_in_log": len(parsed.statuses),
            "strict_resolved": verdict.strict_resolved,
            "official_resolved": verdict.official_resolved,
            "build_failure": verdict.build_failure,
            "rule": rule.value,
            "tampering": tampering,
        }
    )


def _kept_detections(previous: InstanceResult) -> set[str]:
    """Detections that came from the sandbox, not from the log (restores that failed)."""
    return {d for d in previous.tampering.detected if "put back" in d}


def regrade(
    run_dir: Path,
    dataset: str | None = None,
    rule: str | None = None,
    write: bool = False,
    split: str = "test",
) -> RegradeReport:
    """Regrade the run in ``run_dir`` (see the module docstring)."""
    run_dir = run_dir.expanduser().resolve()
    instances_dir = run_dir / "instances"
    if not instances_dir.is_dir():
        raise RegradeError(f"{run_dir} is not a run folder (no instances/)")
    instances = _instances(run_dir, dataset, split)
    chosen_rule = Rule(rule) if rule else None
    report = RegradeReport(run_dir=run_dir)
    for folder in sorted(p for p in instances_dir.iterdir() if p.is_dir()):
        previous = load_result(folder / "result.json")
        instance = instances.get(folder.name)
        if previous is None or instance is None:
            continue
        artifacts = InstanceArtifacts(folder)
        try:
            result = regrade_result(
                instance, previous, artifacts, chosen_rule or Rule(previous.rule)
            )
        except SpecError:
            result = previous
        report.results[folder.name] = result
        if result is previous:
            report.kept += 1
            continue
        report.regraded += 1
        if result.status is not previous.status:
            report.changes.append(
                Change(folder.name, previous.status.value, result.status.value, result.reason)
            )
        if write:
            shutil.copyfile(folder / "result.json", folder / BEFORE)
            write_result(artifacts, result)
    if write:
        _rewrite_summary(run_dir, instances, report)
    return report


def _rewrite_summary(run_dir: Path, instances: dict[str, Instance], report: RegradeReport) -> None:
    try:
        old = read_summary(run_dir)
    except RecordError:
        return
    listed = [
        *old.resolved_ids,
        *old.unresolved_ids,
        *old.error_ids,
        *old.empty_patch_ids,
        *old.no_prediction_ids,
        *old.not_run_ids,
    ]
    covered = [instances[i] for i in sorted(set(listed)) if i in instances]
    summary = build_summary(
        old.run_id,
        covered,
        report.results,
        not_run=old.not_run_ids,
        interrupted=old.interrupted,
        dataset=old.dataset,
        predictions=old.predictions,
        backend=old.backend,
        executor=old.executor,
        canaries=old.canaries,
        isolation=old.isolation,
        wall_seconds=old.wall_seconds,
        reused_results=old.reused_results,
    )
    summary = summary.model_copy(update={"input_problems": old.input_problems})
    write_summary(run_dir, summary)
