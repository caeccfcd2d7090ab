"""Assemble a :class:`~polybench.report.model.Report` from loaded runs and their dataset."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone

from polybench import __version__
from polybench.dataset.models import Instance
from polybench.metrics.stats import DEFAULT_RESAMPLES, DEFAULT_SEED, bootstrap_mean
from polybench.report.model import InstanceRecord, PassRateTable, Report, RunSummary
from polybench.report.retrieval import RetrievalLike, retrieval_record, retrieval_table
from polybench.report.runs import NO_PREDICTION, LoadedRun
from polybench.report.strata import (
    INFORMATIVENESS_COLUMNS,
    STRATIFICATIONS,
    instance_strata,
    pass_rate_table,
)

DEFAULT_CONFIDENCE = 0.95


def run_summary(
    run: LoadedRun, n_resamples: int, seed: int, confidence: float, scored: bool
) -> RunSummary:
    """Overall counts and pass rate (with SE and a percentile interval) of one run."""
    statuses = Counter(run.status(i) for i in run.instance_ids)
    estimate = bootstrap_mean(
        [1.0 if run.status(i) == "resolved" else 0.0 for i in run.instance_ids],
        n_resamples=n_resamples,
        seed=seed,
        confidence=confidence,
    )
    notes = list(run.notes)
    if statuses["error"]:
        notes.append(
            f"{statuses['error']} instances ended in an infrastructure error; they count as "
            "not resolved (rerun them to get a grade)"
        )
    return RunSummary(
        label=run.label,
        run_id=run.run_id,
        run_dir=str(run.run_dir),
        dataset=run.dataset,
        model=run.model,
        predictions_source=run.predictions_source,
        instances=len(run.instance_ids),
        resolved=statuses["resolved"],
        unresolved=statuses["unresolved"],
        empty_patch=statuses["empty_patch"],
        error=statuses["error"],
        no_prediction=statuses[NO_PREDICTION],
        pass_rate=estimate.mean,
        se=estimate.se,
        ci_low=estimate.ci_low,
        ci_high=estimate.ci_high,
        retrieval_scored=scored,
        tokens_n=len(run.tokens),
        notes=notes,
    )


def build_report(
    runs: Sequence[LoadedRun],
    instances: Mapping[str, Instance],
    retrieval: Mapping[str, Mapping[str, RetrievalLike]] | None = None,
    retrieval_notes: Sequence[str] = (),
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    confidence: float = DEFAULT_CONFIDENCE,
    notes: Sequence[str] = (),
) -> Report:
    """Every table for ``runs`` (each already attached to ``instances``).

    ``retrieval`` maps a run label to its per-instance retrieval scores; None leaves the
    retrieval table out (``retrieval_notes`` say why).
    """
    report_notes = list(notes)
    outcomes = [run.outcomes() for run in runs]
    tables: list[PassRateTable] = []
    for strat in STRATIFICATIONS:
        table = pass_rate_table(strat, instances, outcomes, n_resamples=n_resamples, seed=seed)
        if table is None:
            what = f"{strat.reference} ({strat.title})" if strat.reference else strat.title
            columns = ", ".join(INFORMATIVENESS_COLUMNS.values())
            why = (
                f"no instance has informativeness labels (columns {columns})"
                if strat.key == "informativeness"
                else "no instance has this information"
            )
            report_notes.append(f"{what} is left out: {why}")
            continue
        tables.append(table)
    table6 = None
    if retrieval is not None:
        table6 = retrieval_table(
            instances,
            [(run.label, run.instance_ids, retrieval.get(run.label, {})) for run in runs],
            notes=retrieval_notes,
        )
    else:
        report_notes.extend(retrieval_notes)
    records: dict[str, list[InstanceRecord]] = {}
    for run in runs:
        scores = (retrieval or {}).get(run.label, {})
        records[run.label] = [
            InstanceRecord(
                instance_id=i,
                status=run.status(i),
                resolved=run.status(i) == "resolved",
                strata=instance_strata(instances[i]),
                input_tokens=run.tokens[i][0] if i in run.tokens else None,
                output_tokens=run.tokens[i][1] if i in run.tokens else None,
                retrieval=retrieval_record(scores[i]) if i in scores else None,
            )
            for i in run.instance_ids
        ]
    return Report(
        polybench_version=__version__,
        generated_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        n_resamples=n_resamples,
        seed=seed,
        confidence=confidence,
        runs=[
            run_summary(run, n_resamples, seed, confidence, retrieval is not None) for run in runs
        ],
        tables=tables,
        retrieval=table6,
        instances=records,
        notes=report_notes,
    )
