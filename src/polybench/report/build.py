"""Assemble a :class:`~polybench.report.model.Report` from loaded runs and their dataset."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone

from polybench import __version__
from polybench.dataset.models import Instance
from polybench.metrics.coverage import coverage_note
from polybench.metrics.stats import DEFAULT_RESAMPLES, DEFAULT_SEED, bootstrap_mean
from polybench.report.compare import (
    coverage_warning,
    instance_coverage,
    paired_comparisons,
    restrict,
)
from polybench.report.defences import count_defences, defences_of
from polybench.report.model import (
    Coverage,
    InstanceRecord,
    PassRateTable,
    Report,
    RunSummary,
    TokenPrices,
)
from polybench.report.retrieval import RetrievalLike, retrieval_record, retrieval_table
from polybench.report.rules import rule_answers, tally_rules
from polybench.report.runs import NO_PREDICTION, LoadedRun
from polybench.report.strata import (
    INFORMATIVENESS_COLUMNS,
    STRATIFICATIONS,
    RunOutcomes,
    instance_strata,
    pass_rate_table,
    token_means,
)

DEFAULT_CONFIDENCE = 0.95


def run_summary(
    run: LoadedRun,
    n_resamples: int,
    seed: int,
    confidence: float,
    scored: bool,
    common: RunOutcomes | None = None,
    prices: TokenPrices | None = None,
) -> RunSummary:
    """Overall counts and pass rate (with SE and a percentile interval) of one run, its
    pass rate under each resolved rule, what its defences did, and its mean token usage
    (and cost at ``prices``) per instance.

    ``common`` is the run limited to the instances every run covers (its ``common_*``
    numbers); None leaves them out.
    """
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
    summary = RunSummary(
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
        dataset_instances=run.dataset_instances,
        finished=run.finished,
        notes=notes,
    )
    _add_rules(summary, run, n_resamples, seed)
    means = token_means(run.instance_ids, run.outcomes(), prices)
    summary.input_tokens = means.input_tokens
    summary.output_tokens = means.output_tokens
    summary.cached_tokens = means.cached_tokens
    summary.cost_per_instance = means.cost
    summary.total_cost = means.total_cost
    if common is not None:
        shared = bootstrap_mean(
            [1.0 if common.resolved.get(i, False) else 0.0 for i in common.instance_ids],
            n_resamples=n_resamples,
            seed=seed,
        )
        summary.common_n = shared.n
        summary.common_resolved = int(shared.total)
        summary.common_pass_rate = shared.mean
        summary.common_se = shared.se
    return summary


def _add_rules(summary: RunSummary, run: LoadedRun, n_resamples: int, seed: int) -> None:
    """Both rules' pass rates (over the run's instances), where they disagree, defences."""
    results = [run.results[i] for i in run.instance_ids if i in run.results]
    tally = tally_rules(results)
    answers = {r.instance_id: rule_answers(r) for r in results}
    strict, official = (
        bootstrap_mean(
            [1.0 if answers.get(i, (False, False))[index] else 0.0 for i in run.instance_ids],
            n_resamples=n_resamples,
            seed=seed,
        )
        for index in (0, 1)
    )
    summary.strict_resolved = int(strict.total)
    summary.strict_pass_rate, summary.strict_se = strict.mean, strict.se
    summary.official_resolved = int(official.total)
    summary.official_pass_rate, summary.official_se = official.mean, official.se
    summary.status_rule = tally.rule
    summary.disagreements = tally.disagreements
    summary.defences = count_defences(results)


def _scope(coverage: Coverage) -> str:
    """The line that says which instances the comparison tables are over."""
    if coverage.compared_on == "common":
        return (
            f"Runs compared on the {coverage.common_instances} instances they all cover "
            f"(of {coverage.dataset_instances} in the dataset)."
        )
    if coverage.compared_on == "own":
        return (
            "Each run over its own instances: the runs have no instance in common, so the "
            "columns are not comparable."
        )
    return ""


def _describe(run: LoadedRun) -> str:
    text = f"{len(run.instance_ids)} of {run.dataset_instances}"
    return text if run.finished else f"{text}, unfinished"


def build_report(
    runs: Sequence[LoadedRun],
    instances: Mapping[str, Instance],
    retrieval: Mapping[str, Mapping[str, RetrievalLike]] | None = None,
    retrieval_notes: Sequence[str] = (),
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    confidence: float = DEFAULT_CONFIDENCE,
    notes: Sequence[str] = (),
    prices: TokenPrices | None = None,
) -> Report:
    """Every table for ``runs`` (each already attached to ``instances``).

    ``retrieval`` maps a run label to its per-instance retrieval scores; None leaves the
    retrieval table out (``retrieval_notes`` say why). ``prices`` turn token usage into
    costs.
    """
    report_notes = list(notes)
    warnings = [f"{run.label}: {warning}" for run in runs for warning in run.warnings]
    own = [run.outcomes() for run in runs]
    coverage = instance_coverage(own, len(instances))
    warning = coverage_warning(coverage, {run.label: _describe(run) for run in runs})
    if warning is not None:
        warnings.insert(0, warning)
    outcomes = (
        [restrict(run, coverage.common_ids) for run in own]
        if coverage.compared_on == "common"
        else own
    )
    scope = _scope(coverage)
    paired, paired_notes = paired_comparisons(
        own, n_resamples=n_resamples, seed=seed, confidence=confidence
    )
    report_notes += paired_notes
    tables: list[PassRateTable] = []
    for strat in STRATIFICATIONS:
        table = pass_rate_table(
            strat, instances, outcomes, n_resamples=n_resamples, seed=seed, prices=prices
        )
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
        table.scope = scope
        tables.append(table)
    table6 = None
    if retrieval is not None:
        coverage_notes = [
            _retrieval_coverage(run, compared.instance_ids, retrieval.get(run.label, {}))
            for run, compared in zip(runs, outcomes, strict=True)
        ]
        table6 = retrieval_table(
            instances,
            [
                (run.label, compared.instance_ids, retrieval.get(run.label, {}))
                for run, compared in zip(runs, outcomes, strict=True)
            ],
            notes=[*coverage_notes, *retrieval_notes],
        )
        table6.scope = scope
    else:
        report_notes.extend(retrieval_notes)
    records = {
        run.label: _records(run, instances, (retrieval or {}).get(run.label, {}), prices)
        for run in runs
    }
    summaries = [
        run_summary(
            run,
            n_resamples,
            seed,
            confidence,
            retrieval is not None,
            common=restrict(outcome, coverage.common_ids) if len(runs) > 1 else None,
            prices=prices,
        )
        for run, outcome in zip(runs, own, strict=True)
    ]
    se_note = equal_rates_note(summaries, tables, seed)
    if se_note is not None:
        report_notes.append(se_note)
    return Report(
        polybench_version=__version__,
        generated_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        n_resamples=n_resamples,
        seed=seed,
        confidence=confidence,
        runs=summaries,
        tables=tables,
        retrieval=table6,
        instances=records,
        coverage=coverage,
        paired=paired,
        warnings=warnings,
        notes=report_notes,
        prices=prices,
    )


def equal_rates_note(
    runs: Sequence[RunSummary], tables: Sequence[PassRateTable], seed: int
) -> str | None:
    """A note when equal pass rates (the same k of n) are shown with different SEs, which
    readers take for an error; None when there are none."""
    seen: dict[tuple[int, int], dict[str, str]] = {}
    cells = [(run.instances, run.resolved, run.se, run.label) for run in runs]
    for table in tables:
        for row in table.rows:
            for label, cell in row.cells.items():
                where = f"{label}, {table.title.lower()}: {row.label}"
                cells.append((cell.n, cell.resolved, cell.se, where))
    for n, resolved, se, where in cells:
        if se is not None and 0 < resolved < n:
            seen.setdefault((n, resolved), {}).setdefault(f"{100 * se:.2f}", where)
    differing = [(key, shown) for key, shown in seen.items() if len(shown) > 1]
    if not differing:
        return None
    (n, resolved), shown = differing[0]
    examples = "; ".join(f"{where} SE {se}" for se, where in list(shown.items())[:2])
    p = resolved / n
    analytic = 100 * (p * (1 - p) / n) ** 0.5
    return (
        f"Equal pass rates can have different bootstrap SEs (e.g. {resolved}/{n}: "
        f"{examples}): every SE resamples the same rows of instance positions (seed {seed}), "
        "so it depends on which instances were resolved, not only on how many. The "
        f"difference is resampling noise; the normal approximation sqrt(p(1-p)/n) gives "
        f"{analytic:.2f} for {resolved}/{n}."
    )


def _retrieval_coverage(
    run: LoadedRun, instance_ids: Sequence[str], scores: Mapping[str, RetrievalLike]
) -> str:
    """How many instances the run's retrieval means are over, and how many of them had no
    prediction (scored as empty ones, as ``polybench metrics`` does)."""
    scored = [i for i in instance_ids if i in scores]
    without = sum(1 for i in scored if run.status(i) == NO_PREDICTION)
    return f"{run.label}: {coverage_note(len(scored), without)}"


def _records(
    run: LoadedRun,
    instances: Mapping[str, Instance],
    scores: Mapping[str, RetrievalLike],
    prices: TokenPrices | None,
) -> list[InstanceRecord]:
    """One record per instance the run covers."""
    records = []
    for i in run.instance_ids:
        result = run.results.get(i)
        answers = rule_answers(result) if result is not None else (None, None)
        tokens = run.tokens.get(i)
        cached = run.cached_tokens.get(i)
        records.append(
            InstanceRecord(
                instance_id=i,
                status=run.status(i),
                resolved=run.status(i) == "resolved",
                strata=instance_strata(instances[i]),
                input_tokens=tokens[0] if tokens else None,
                output_tokens=tokens[1] if tokens else None,
                cached_tokens=cached,
                cost=prices.cost(*tokens, cached or 0.0) if tokens and prices else None,
                strict_resolved=answers[0],
                official_resolved=answers[1],
                defences=defences_of(result) if result is not None else [],
                retrieval=retrieval_record(scores[i]) if i in scores else None,
            )
        )
    return records
