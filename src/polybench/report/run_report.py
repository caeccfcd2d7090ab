"""What a run's summary says in words under the results table, and the official-format
result files."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from polybench.atomic import atomic_write_text
from polybench.grading.result import InstanceResult, Status
from polybench.report.defences import DEFENCES
from polybench.runner.records import RunSummary

SHOWN_DISAGREEMENTS = 20
"""The console lists at most this many disagreements (``report.json`` has them all)."""


def _rate(count: int, total: int) -> str:
    return f"{100 * count / total if total else 0:.1f}% ({count}/{total})"


def _instances(count: int) -> str:
    return f"{count} instance{'' if count == 1 else 's'}"


def summary_lines(summary: RunSummary) -> list[str]:
    """Plain-text lines shown under a run's results table: the pass rate under each rule,
    the instances where the rules disagree and why, and what the defences did."""
    lines = []
    total = summary.decided_instances
    rule = summary.rule
    follows = f"; the statuses above follow the {rule} rule" if rule else ""
    partial = "partial " if summary.partial else ""
    if summary.partial:
        lines.append(
            f"partial: the run was interrupted with {_instances(summary.not_run_instances)} "
            f"of {summary.total_instances} not run; every pass rate is over the {total} "
            "that were"
        )
    lines.append(
        f"{partial}pass rate by rule: strict "
        f"{_rate(summary.strict_resolved_instances, total)}, "
        f"official {_rate(summary.official_resolved_instances, total)}{follows}"
    )
    disagreements = summary.rule_disagreements
    if disagreements:
        lines.append(f"the rules disagree on {_instances(len(disagreements))}:")
        for item in disagreements[:SHOWN_DISAGREEMENTS]:
            lines.append(f"  {item.instance_id}: {item.text}")
        if len(disagreements) > SHOWN_DISAGREEMENTS:
            lines.append(
                f"  ... and {len(disagreements) - SHOWN_DISAGREEMENTS} more (report.json "
                "lists them all)"
            )
    tampering = summary.tampering.model_dump()
    counts = ", ".join(f"{label} {tampering.get(key, 0)}" for key, label in DEFENCES.items())
    lines.append(f"defences (instances): {counts}")
    if summary.canaries is not None:
        canaries = summary.tampering.canaries.line()
        lines.append(canaries if summary.canaries == "on" else "canaries: off for this run")
    detected = (tampering.get("ids") or {}).get("detected") or []
    if detected:
        lines.append(
            f"tampering detected in {_instances(len(detected))} (not resolved under any "
            f"rule): {', '.join(detected)}"
        )
    return lines


def official_result(result: InstanceResult) -> dict[str, Any]:
    """One instance in the official ``<instance_id>_result.json`` shape.

    As the official harness writes it: ``passed_tests``/``failed_tests`` list every test of
    the log (tests that share a name once per run of them), ``all_f2p_passed`` says whether
    every F2P test is among the passed, ``no_p2p_failed`` whether no P2P test is among the
    failed (so a log without results, a build that broke, gives ``true`` there and empty
    lists). ``resolved`` is polybench's verdict under the run's rule.
    """
    ran = result.test_exit_code is not None
    passed = result.log_passed_tests
    failed = result.log_failed_tests
    if passed is None or failed is None:  # a result from before the lists were recorded
        passed, failed = result.passed_tests, result.failed_tests
    all_f2p_passed = ran and bool(result.f2p) and set(result.f2p) <= set(passed)
    no_p2p_failed = ran and not (set(result.p2p) & set(failed))
    return {
        "instance_id": result.instance_id,
        "patch_applied": result.patch_applied,
        "generation": result.status is not Status.EMPTY_PATCH,
        "with_logs": ran,
        "all_f2p_passed": all_f2p_passed,
        "no_p2p_failed": no_p2p_failed,
        "resolved": result.resolved,
        "passed_tests": list(passed) if ran else [],
        "failed_tests": list(failed) if ran else [],
    }


def write_official(run_dir: Path, results: dict[str, InstanceResult]) -> Path:
    """Write ``official/<id>_result.json`` files and the official aggregate counts."""
    out = run_dir / "official"
    out.mkdir(parents=True, exist_ok=True)
    counts: Counter[str] = Counter()
    for instance_id, result in sorted(results.items()):
        record = official_result(result)
        atomic_write_text(out / f"{instance_id}_result.json", json.dumps(record, indent=2))
        counts["generation" if record["generation"] else "no_generation"] += 1
        counts["patch_applied"] += int(record["patch_applied"])
        counts["with_logs"] += int(record["with_logs"])
        counts["resolved" if record["resolved"] else "not_resolved"] += 1
    total = len(results)
    aggregate = {
        "no_generation": counts["no_generation"],
        "generation": counts["generation"],
        "patch_applied": counts["patch_applied"],
        "with_logs": counts["with_logs"],
        "resolved": counts["resolved"],
        "not_resolved": counts["not_resolved"],
        "total_instances": total,
        "total_resolved": counts["resolved"],
        "total_unresolved": total - counts["resolved"],
    }
    path = out / "aggregate_results.json"
    atomic_write_text(path, json.dumps(aggregate, indent=2))
    return path
