"""The summary of a run (``report.json``), from its instances and their results."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from typing import Any

from polybench.dataset.models import Instance
from polybench.dataset.predictions import InputProblem
from polybench.grading.result import InstanceResult, Status
from polybench.report.defences import count_defences
from polybench.report.rules import tally_rules
from polybench.runner.records import InputProblemRecord, LanguageCounts, RunSummary

_STATUS_KEYS = {
    Status.RESOLVED: "resolved",
    Status.UNRESOLVED: "unresolved",
    Status.ERROR: "error",
    Status.EMPTY_PATCH: "empty_patch",
}


def build_summary(
    run_id: str,
    instances: list[Instance],
    results: dict[str, InstanceResult],
    problems: Iterable[InputProblem] = (),
    not_run: Iterable[str] = (),
    **extra: Any,
) -> RunSummary:
    """The summary of a run over ``instances``.

    An instance without a result is counted as ``no_prediction``, unless it is in
    ``not_run`` (it had a prediction, but an interrupted run did not reach it): it is
    counted as not run, and the pass rates are over the other instances (``partial``).
    """
    skipped = set(not_run)
    ids: dict[str, list[str]] = {key: [] for key in _STATUS_KEYS.values()}
    per_language: dict[str, Counter[str]] = defaultdict(Counter)
    error_kinds: Counter[str] = Counter()
    no_prediction: list[str] = []
    for instance in instances:
        language = instance.language.value
        per_language[language]["total"] += 1
        result = results.get(instance.instance_id)
        if result is None:
            if instance.instance_id in skipped:
                per_language[language]["not_run"] += 1
            else:
                no_prediction.append(instance.instance_id)
                per_language[language]["no_prediction"] += 1
            continue
        key = _STATUS_KEYS[result.status]
        ids[key].append(instance.instance_id)
        per_language[language][key] += 1
        if result.error_kind is not None:
            error_kinds[result.error_kind.value] += 1
    total = len(instances)
    not_run_ids = sorted(skipped - set(results))
    decided = total - len(not_run_ids)
    resolved = len(ids["resolved"])
    judged = [results[i.instance_id] for i in instances if i.instance_id in results]
    rules = tally_rules(judged)
    return RunSummary(
        run_id=run_id,
        total_instances=total,
        submitted_instances=total - len(no_prediction),
        not_run_instances=len(not_run_ids),
        partial=bool(not_run_ids),
        resolved_instances=resolved,
        unresolved_instances=len(ids["unresolved"]),
        error_instances=len(ids["error"]),
        empty_patch_instances=len(ids["empty_patch"]),
        no_prediction_instances=len(no_prediction),
        pass_rate=resolved / decided if decided else 0.0,
        resolved_ids=sorted(ids["resolved"]),
        unresolved_ids=sorted(ids["unresolved"]),
        error_ids=sorted(ids["error"]),
        empty_patch_ids=sorted(ids["empty_patch"]),
        no_prediction_ids=sorted(no_prediction),
        not_run_ids=not_run_ids,
        error_kinds=dict(sorted(error_kinds.items())),
        per_language={
            language: LanguageCounts(
                total=counts["total"],
                resolved=counts["resolved"],
                unresolved=counts["unresolved"],
                error=counts["error"],
                empty_patch=counts["empty_patch"],
                no_prediction=counts["no_prediction"],
                not_run=counts["not_run"],
                pass_rate=_rate(counts["resolved"], counts["total"] - counts["not_run"]),
            )
            for language, counts in sorted(per_language.items())
        },
        input_problems=[
            InputProblemRecord(where=p.where, instance_id=p.instance_id, message=p.message)
            for p in problems
        ],
        rule=rules.rule,
        strict_resolved_instances=rules.strict_resolved,
        official_resolved_instances=rules.official_resolved,
        strict_pass_rate=_rate(rules.strict_resolved, decided),
        official_pass_rate=_rate(rules.official_resolved, decided),
        rule_disagreements=list(rules.disagreements),
        tampering=count_defences(judged),
        **extra,
    )


def _rate(count: int, total: int) -> float:
    return count / total if total else 0.0
