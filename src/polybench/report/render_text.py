"""Markdown and CSV renderings of a :class:`~polybench.report.model.Report`.

Markdown shows rates in percent (one decimal) and standard errors in percentage points
(two decimals), as the paper does. CSV files are tidy (one line per stratum and run) and
hold the exact numbers of ``report.json``: fractions, full precision, empty when None.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Sequence
from typing import Any

from polybench.report.defences import DEFENCES
from polybench.report.model import (
    PairedComparison,
    PassCell,
    PassRateTable,
    Report,
    RetrievalCell,
    RetrievalTable,
    RunSummary,
)

MISSING = "-"
_NUMERIC = re.compile(r"^(-|[-+]?[\d,.]+( - [\d,.]+)?)$")
STRATUM_HEADERS = {
    "language": "language",
    "task_category": "task category",
    "files_changed": "files modified",
    "node_category": "node change",
    "informativeness": "label",
    "repository": "repository",
}


def pct(value: float | None) -> str:
    """A fraction as a percentage with one decimal (``-`` when None)."""
    return MISSING if value is None else f"{100 * value:.1f}"


def pct_se(value: float | None) -> str:
    """A standard error in percentage points with two decimals (``-`` when None)."""
    return MISSING if value is None else f"{100 * value:.2f}"


def pct_diff(value: float | None) -> str:
    """A difference of fractions in percentage points, signed, one decimal."""
    return MISSING if value is None else f"{100 * value:+.1f}"


def p_value(value: float | None) -> str:
    """A p-value: three decimals, or scientific notation below 0.001."""
    if value is None:
        return MISSING
    return f"{value:.3f}" if value >= 0.001 else f"{value:.1e}"


def count(value: float | None) -> str:
    """A token count rounded to a whole number with thousands separators."""
    return MISSING if value is None else f"{value:,.0f}"


def usd(value: float | None, digits: int = 4) -> str:
    """An amount in USD with ``digits`` decimals and thousands separators."""
    return MISSING if value is None else f"{value:,.{digits}f}"


def _numeric(text: str) -> bool:
    return bool(_NUMERIC.match(text))


def _md_table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    """A Markdown table; columns whose cells are all numbers are right-aligned."""

    def escape(cell: str) -> str:
        return cell.replace("|", "\\|")

    body = [list(row) for row in rows]
    align = [
        "---:" if body and all(_numeric(row[i]) for row in body) else "---"
        for i in range(len(header))
    ]
    lines = ["| " + " | ".join(escape(h) for h in header) + " |"]
    lines.append("|" + "|".join(align) + "|")
    lines += ["| " + " | ".join(escape(c) for c in row) + " |" for row in body]
    return "\n".join(lines)


def _prefix(labels: Sequence[str], label: str) -> str:
    return f"{label} " if len(labels) > 1 else ""


def token_columns(table: PassRateTable, label: str) -> list[str]:
    """The token (and cost) column names of run ``label`` in a pass-rate table."""
    if label not in table.token_runs:
        return []
    columns = ["input tokens", "output tokens"]
    if label in table.cached_runs:
        columns.append("cached tokens")
    if table.priced:
        columns.append("cost/instance (USD)")
    return columns


def token_cells(table: PassRateTable, label: str, cell: PassCell) -> list[str]:
    """The displayed token (and cost) cells of run ``label`` (see :func:`token_columns`)."""
    if label not in table.token_runs:
        return []
    cells = [count(cell.input_tokens), count(cell.output_tokens)]
    if label in table.cached_runs:
        cells.append(count(cell.cached_tokens))
    if table.priced:
        cells.append(usd(cell.cost))
    return cells


def pass_rate_columns(table: PassRateTable, labels: Sequence[str]) -> list[str]:
    """The Markdown/HTML column names of a pass-rate table (after the stratum column)."""
    header = []
    for label in labels:
        p = _prefix(labels, label)
        header += [f"{p}n", f"{p}resolved", f"{p}pass rate (%)", f"{p}SE"]
        header += [f"{p}{name}" for name in token_columns(table, label)]
    return header


def pass_rate_cells(table: PassRateTable, labels: Sequence[str]) -> list[list[str]]:
    """The displayed cells of each row of a pass-rate table (stratum label first)."""
    rows = []
    for row in table.rows:
        cells = [row.label]
        for label in labels:
            cell = row.cells[label]
            cells += [str(cell.n), str(cell.resolved), pct(cell.pass_rate), pct_se(cell.se)]
            cells += token_cells(table, label, cell)
        rows.append(cells)
    return rows


RULES_DESCRIPTION = (
    "Each instance graded under both resolved rules. Strict (polybench's): every listed "
    "test ran and passed, a fail-to-pass test for real (an expected failure does not "
    "count). Official (the official harness's): the F2P tests are among the passed ones "
    "and no P2P test is among the failed ones, so a missing or skipped P2P test counts as "
    "fine, and an empty F2P list passes. Both are false when tampering was detected. "
    "'statuses by' names the rule that set the run's statuses (and its main pass rate)."
)


def rules_cells(report: Report) -> tuple[list[str], list[list[str]]]:
    """Header and rows of the pass rate under each rule, one row per run."""
    header = [
        "run",
        "statuses by",
        "instances",
        "strict resolved",
        "strict pass rate (%)",
        "strict SE",
        "official resolved",
        "official pass rate (%)",
        "official SE",
        "rules disagree",
    ]
    rows = [
        [
            run.label,
            run.status_rule or MISSING,
            str(run.instances),
            str(run.strict_resolved),
            pct(run.strict_pass_rate),
            pct_se(run.strict_se),
            str(run.official_resolved),
            pct(run.official_pass_rate),
            pct_se(run.official_se),
            str(len(run.disagreements)),
        ]
        for run in report.runs
    ]
    return header, rows


def disagreement_lines(run: RunSummary) -> list[str]:
    """One line per instance where the rules disagree: ``id: verdicts: why``."""
    return [f"{d.instance_id}: {d.text}" for d in run.disagreements]


DEFENCES_DESCRIPTION = (
    "Instances each defence against forged verdicts touched: paths of the patch the tamper "
    "policy reverted or refused, armed fail-to-pass tests that passed in the canary run, "
    "canary runs that could not confirm a resolved verdict (the verdict stands), test "
    "reports that could not be trusted, cut output, non-test changes flagged for reaching "
    "into test-framework internals (a pointer for review; no effect on the verdict), and "
    "instances where tampering was detected (never resolved, under either rule)."
)


def defence_cells(report: Report) -> tuple[list[str], list[list[str]]]:
    """Header and rows of the defences table, one row per run."""
    header = ["run", "instances", *DEFENCES.values()]
    rows = [
        [run.label, str(run.instances), *(str(run.defences.count(key)) for key in DEFENCES)]
        for run in report.runs
    ]
    return header, rows


def canary_lines(report: Report) -> list[str]:
    """One line per run: its instances per canary status and the detection probabilities."""
    return [f"{run.label}: {run.defences.canaries.line()}" for run in report.runs]


def detected_lines(report: Report) -> list[str]:
    """One line per run with tampering detected: ``label: ids``."""
    return [
        f"{run.label}: {', '.join(run.defences.ids.get('detected', []))}"
        for run in report.runs
        if run.defences.detected
    ]


def token_summary_cells(report: Report) -> tuple[list[str], list[list[str]]]:
    """Header and rows of mean token usage (and cost) per instance over all instances,
    one row per run that reports usage (none: no rows)."""
    runs = [run for run in report.runs if run.tokens_n]
    cached = any(run.cached_tokens is not None for run in runs)
    header = ["run", "instances with usage", "input tokens", "output tokens"]
    header += ["cached tokens"] if cached else []
    header += ["cost/instance (USD)", "total cost (USD)"] if report.prices else []
    header += ["pass rate (%)", "SE"]
    rows = []
    for run in runs:
        row = [run.label, f"{run.tokens_n} of {run.instances}"]
        row += [count(run.input_tokens), count(run.output_tokens)]
        row += [count(run.cached_tokens)] if cached else []
        row += [usd(run.cost_per_instance), usd(run.total_cost)] if report.prices else []
        row += [pct(run.pass_rate), pct_se(run.se)]
        rows.append(row)
    return header, rows


def prices_line(report: Report) -> str:
    """The token prices of the costs, in one sentence ("" without prices)."""
    prices = report.prices
    if prices is None:
        return ""
    cached = (
        f", cached input {prices.cached:g}"
        if prices.cached is not None
        else ", cached input at the input price"
    )
    return (
        f"Costs at USD {prices.input:g} per million input tokens, {prices.output:g} per "
        f"million output tokens{cached}."
    )


def retrieval_cells(
    table: RetrievalTable, labels: Sequence[str], level: str
) -> tuple[list[str], list[list[str]]]:
    """Header and rows of the file (``level="file"``) or node retrieval table."""
    header = ["language"]
    for label in labels:
        p = _prefix(labels, label)
        header += [f"{p}n", f"{p}recall (%)", f"{p}precision (%)", f"{p}F1 (%)"]
    rows = []
    for row in table.rows:
        cells = [row.label]
        for label in labels:
            cell: RetrievalCell = row.cells[label]
            n = cell.n if level == "file" else cell.node_n
            cells += [
                str(n),
                pct(getattr(cell, f"{level}_recall")),
                pct(getattr(cell, f"{level}_precision")),
                pct(getattr(cell, f"{level}_f1")),
            ]
        rows.append(cells)
    return header, rows


def summary_cells(report: Report) -> tuple[list[str], list[list[str]]]:
    """Header and rows of the runs overview."""
    level = f"{round(100 * report.confidence)}% CI"
    header = [
        "run",
        "model",
        "dataset",
        "instances (of dataset)",
        "resolved",
        "unresolved",
        "empty patch",
        "error",
        "no prediction",
        "pass rate (%)",
        "SE",
        level,
    ]
    common = _shows_common(report)
    if common:
        header += ["common resolved/n", "common pass rate (%)", "common SE"]
    rows = []
    for run in report.runs:
        interval = MISSING if run.ci_low is None else f"{pct(run.ci_low)} - {pct(run.ci_high)}"
        covers = run.coverage if run.finished else f"{run.coverage} (unfinished: partial)"
        row = [
            run.label,
            run.model,
            run.dataset or MISSING,
            covers,
            str(run.resolved),
            str(run.unresolved),
            str(run.empty_patch),
            str(run.error),
            str(run.no_prediction),
            pct(run.pass_rate),
            pct_se(run.se),
            interval,
        ]
        if common:
            row += [
                f"{run.common_resolved}/{run.common_n}",
                pct(run.common_pass_rate),
                pct_se(run.common_se),
            ]
        rows.append(row)
    return header, rows


def _shows_common(report: Report) -> bool:
    """Whether the runs table needs columns over the common instances."""
    return report.coverage is not None and not report.coverage.same_instances


PAIRED_DESCRIPTION = (
    "Every pair of runs on the instances both cover: the difference in pass rate (second "
    "minus first) in percentage points, with its paired bootstrap standard error and "
    "percentile interval (instances resampled, same resamples as the other standard "
    "errors), and McNemar's test on the discordant instances (b: only the first run "
    "resolved it, c: only the second). The test is exact (binomial) when b + c < 25, "
    "otherwise a chi-square with continuity correction."
)


def paired_cells(
    pairs: Sequence[PairedComparison], confidence: float
) -> tuple[list[str], list[list[str]]]:
    """Header and rows of the paired comparison table."""
    header = [
        "first",
        "second",
        "n (common)",
        "first pass rate (%)",
        "second pass rate (%)",
        "difference (pp)",
        "SE (pp)",
        f"{round(100 * confidence)}% CI (pp)",
        "b (only first)",
        "c (only second)",
        "McNemar",
        "p-value",
    ]
    rows = []
    for pair in pairs:
        interval = (
            MISSING
            if pair.ci_low is None
            else f"[{pct_diff(pair.ci_low)}, {pct_diff(pair.ci_high)}]"
        )
        test = "exact" if pair.statistic is None else f"chi-square {pair.statistic:.2f}"
        rows.append(
            [
                pair.first,
                pair.second,
                str(pair.n),
                pct(pair.first_pass_rate),
                pct(pair.second_pass_rate),
                pct_diff(pair.difference),
                pct_se(pair.se),
                interval,
                str(pair.b),
                str(pair.c),
                test,
                p_value(pair.p_value),
            ]
        )
    return header, rows


def _notes(notes: Iterable[str]) -> list[str]:
    return [f"- {note}" for note in notes]


def to_markdown(report: Report) -> str:
    """The whole report as Markdown."""
    labels = report.labels
    out = [
        "# polybench report",
        "",
        f"polybench {report.polybench_version}, {report.generated_at}. Pass rates in %, "
        f"with bootstrap standard errors in percentage points ({report.n_resamples} "
        f"resamples, seed {report.seed}).",
        "",
    ]
    for warning in report.warnings:
        out += [f"> **Warning:** {warning}", ""]
    out += [
        "## Runs",
        "",
        _md_table(*summary_cells(report)),
        "",
    ]
    for run in report.runs:
        if run.notes:
            out += [f"Notes on {run.label}:", "", *_notes(run.notes), ""]
    out += _rules_markdown(report)
    out += _defences_markdown(report)
    if report.paired:
        out += ["## Paired comparison", "", PAIRED_DESCRIPTION, ""]
        out += [_md_table(*paired_cells(report.paired, report.confidence)), ""]
    for table in report.tables:
        title = f"{table.reference}: {table.title}" if table.reference else table.title
        out += [f"## {title}", ""]
        if table.scope:
            out += [f"*{table.scope}*", ""]
        if table.description:
            out += [table.description, ""]
        header = [STRATUM_HEADERS.get(table.key, table.key), *pass_rate_columns(table, labels)]
        body = pass_rate_cells(table, labels)
        if any(row.group for row in table.rows):
            header = ["axis", *header]
            body = [[row.group or "", *cells] for row, cells in zip(table.rows, body, strict=True)]
        out += [_md_table(header, body), ""]
        if table.notes:
            out += [*_notes(table.notes), ""]
        if table.key == "task_category":
            out += _tokens_markdown(report)
    if report.retrieval is not None:
        out += [f"## {report.retrieval.reference}: {report.retrieval.title}", ""]
        if report.retrieval.scope:
            out += [f"*{report.retrieval.scope}*", ""]
        for level in ("file", "node"):
            out += [f"### {level.capitalize()} retrieval (%)", ""]
            out += [_md_table(*retrieval_cells(report.retrieval, labels, level)), ""]
        if report.retrieval.notes:
            out += [*_notes(report.retrieval.notes), ""]
    if report.notes:
        out += ["## Notes", "", *_notes(report.notes), ""]
    return "\n".join(out)


def _rules_markdown(report: Report) -> list[str]:
    out = ["## Strict and official rules", "", RULES_DESCRIPTION, ""]
    out += [_md_table(*rules_cells(report)), ""]
    for run in report.runs:
        if run.disagreements:
            out += [f"Where the rules disagree in {run.label}:", ""]
            out += [*_notes(disagreement_lines(run)), ""]
    return out


def _defences_markdown(report: Report) -> list[str]:
    out = ["## Defences", "", DEFENCES_DESCRIPTION, ""]
    out += [_md_table(*defence_cells(report)), ""]
    detected = detected_lines(report)
    if detected:
        out += ["Tampering detected in:", "", *_notes(detected), ""]
    out += ["Canary runs:", "", *_notes(canary_lines(report)), ""]
    return out


def _tokens_markdown(report: Report) -> list[str]:
    header, rows = token_summary_cells(report)
    if not rows:
        return []
    out = ["### Token usage per instance, all task categories", ""]
    line = prices_line(report)
    if line:
        out += [line, ""]
    return [*out, _md_table(header, rows), ""]


def _csv(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    for row in rows:
        writer.writerow(["" if value is None else value for value in row])
    return buffer.getvalue()


TOKEN_FIELDS = ("tokens_n", "input_tokens", "output_tokens", "cached_tokens", "cost")


def pass_rate_csv(table: PassRateTable, labels: Sequence[str]) -> str:
    """One pass-rate table as tidy CSV: a line per (stratum, run)."""
    header = ["group", "stratum", "label", "run", "n", "resolved", "pass_rate", "se"]
    if table.with_tokens:
        header += list(TOKEN_FIELDS)
    rows = []
    for row in table.rows:
        for label in labels:
            cell = row.cells[label]
            line: list[Any] = [row.group, row.key, row.label, label, cell.n, cell.resolved]
            line += [cell.pass_rate, cell.se]
            if table.with_tokens:
                line += [getattr(cell, name) for name in TOKEN_FIELDS]
            rows.append(line)
    return _csv(header, rows)


RETRIEVAL_FIELDS = (
    "n",
    "file_precision",
    "file_recall",
    "file_f1",
    "node_n",
    "node_precision",
    "node_recall",
    "node_f1",
)


def retrieval_csv(table: RetrievalTable, labels: Sequence[str]) -> str:
    """The retrieval table as tidy CSV: a line per (language, run)."""
    rows = [
        [row.key, label, *(getattr(row.cells[label], name) for name in RETRIEVAL_FIELDS)]
        for row in table.rows
        for label in labels
    ]
    return _csv(["language", "run", *RETRIEVAL_FIELDS], rows)


RUN_FIELDS = (
    "label",
    "run_id",
    "model",
    "dataset",
    "predictions_source",
    "instances",
    "resolved",
    "unresolved",
    "empty_patch",
    "error",
    "no_prediction",
    "pass_rate",
    "se",
    "ci_low",
    "ci_high",
    "tokens_n",
    "dataset_instances",
    "finished",
    "common_n",
    "common_resolved",
    "common_pass_rate",
    "common_se",
    "status_rule",
    "strict_resolved",
    "strict_pass_rate",
    "strict_se",
    "official_resolved",
    "official_pass_rate",
    "official_se",
    "input_tokens",
    "output_tokens",
    "cached_tokens",
    "cost_per_instance",
    "total_cost",
)
PAIRED_FIELDS = tuple(PairedComparison.model_fields)


def csv_files(report: Report) -> dict[str, str]:
    """Every CSV file of the report, by file name."""
    files = {
        "runs.csv": _csv(
            RUN_FIELDS, ([getattr(run, name) for name in RUN_FIELDS] for run in report.runs)
        )
    }
    files["rule_disagreements.csv"] = _csv(
        ["run", "instance_id", "strict", "official", "why"],
        (
            [run.label, d.instance_id, d.strict, d.official, "; ".join(d.why)]
            for run in report.runs
            for d in run.disagreements
        ),
    )
    files["defences.csv"] = _csv(
        ["run", "defence", "instances", "instance_ids"],
        (
            [run.label, key, run.defences.count(key), " ".join(run.defences.ids.get(key, []))]
            for run in report.runs
            for key in DEFENCES
        ),
    )
    for table in report.tables:
        files[f"{table.key}.csv"] = pass_rate_csv(table, report.labels)
    if report.retrieval is not None:
        files["retrieval.csv"] = retrieval_csv(report.retrieval, report.labels)
    if report.paired:
        files["paired.csv"] = _csv(
            PAIRED_FIELDS, ([getattr(p, name) for name in PAIRED_FIELDS] for p in report.paired)
        )
    return files
