"""Narrow terminal views (rich tables) of a report's rules, defences and token usage.

Every text that comes from input (run labels, task categories, instance ids, reasons) is
escaped, so that no square bracket in it is read as rich markup.
"""

from __future__ import annotations

from rich.markup import escape
from rich.table import Table

from polybench.report.defences import DEFENCES
from polybench.report.model import Report
from polybench.report.render_text import count, pct, pct_se, prices_line, usd
from polybench.report.strata import OVERALL

SHOWN_DISAGREEMENTS = 20
"""At most this many disagreements per run on the terminal (``report.md`` has them all)."""


def rules_table(report: Report) -> Table:
    """Each run's pass rate under the strict and the official rule."""
    table = Table(title="pass rate by resolved rule")
    for column in ("run", "statuses by", "strict", "strict %", "official", "official %"):
        table.add_column(column, justify="left" if column in ("run", "statuses by") else "right")
    table.add_column("disagree", justify="right")
    for run in report.runs:
        table.add_row(
            escape(run.label),
            escape(run.status_rule or "-"),
            f"{run.strict_resolved}/{run.instances}",
            f"{pct(run.strict_pass_rate)} ± {pct_se(run.strict_se)}",
            f"{run.official_resolved}/{run.instances}",
            f"{pct(run.official_pass_rate)} ± {pct_se(run.official_se)}",
            str(len(run.disagreements)),
        )
    return table


def disagreement_lines(report: Report) -> list[str]:
    """Where the rules disagree, per run (escaped, at most :data:`SHOWN_DISAGREEMENTS`)."""
    lines = []
    for run in report.runs:
        if not run.disagreements:
            continue
        lines.append(f"the rules disagree in {escape(run.label)} on:")
        for item in run.disagreements[:SHOWN_DISAGREEMENTS]:
            lines.append(f"  {escape(item.instance_id)}: {escape(item.text)}")
        more = len(run.disagreements) - SHOWN_DISAGREEMENTS
        if more > 0:
            lines.append(f"  ... and {more} more (report.md lists them all)")
    return lines


def defences_table(report: Report) -> Table:
    """Instances per defence and run; tampering detected is in the last column."""
    table = Table(title="defences: instances per run")
    table.add_column("run")
    for label in DEFENCES.values():
        table.add_column(label, justify="right")
    for run in report.runs:
        table.add_row(escape(run.label), *(str(run.defences.count(key)) for key in DEFENCES))
    return table


def detected_lines(report: Report) -> list[str]:
    """The instances with tampering detected, per run (escaped)."""
    return [
        f"tampering detected in {escape(run.label)}: "
        + escape(", ".join(run.defences.ids.get("detected", [])))
        for run in report.runs
        if run.defences.detected
    ]


def tokens_table(report: Report) -> Table | None:
    """Table 4 with mean tokens (and cost) per instance, per task category and overall,
    for the runs whose predictions report usage; None when none does."""
    runs = [run for run in report.runs if run.tokens_n]
    if not runs:
        return None
    by_category = next((t for t in report.tables if t.key == "task_category"), None)
    cached = any(run.cached_tokens is not None for run in runs)
    table = Table(title="Table 4: pass rate and mean tokens per instance by task category")
    table.add_column("task category")
    for run in runs:
        label = escape(run.label)
        for column in ("pass %", "input", "output", *(["cached"] if cached else [])):
            table.add_column(f"{label}\n{column}", justify="right")
        if report.prices is not None:
            table.add_column(f"{label}\nUSD/inst.", justify="right")
    for row in by_category.rows if by_category is not None else []:
        cells = [escape(row.label)]
        for run in runs:
            cell = row.cells[run.label]
            cells += [pct(cell.pass_rate), count(cell.input_tokens), count(cell.output_tokens)]
            cells += [count(cell.cached_tokens)] if cached else []
            cells += [usd(cell.cost)] if report.prices is not None else []
        table.add_row(*cells)
    overall = ["[bold]All[/bold]"]
    for run in runs:
        overall += [pct(run.pass_rate), count(run.input_tokens), count(run.output_tokens)]
        overall += [count(run.cached_tokens)] if cached else []
        overall += [usd(run.cost_per_instance)] if report.prices is not None else []
    table.add_row(*overall, end_section=True)
    if report.prices is not None:
        table.caption = escape(prices_line(report))
    return table


def retrieval_overall_table(report: Report) -> Table | None:
    """Each run's overall file and node retrieval (the per-language rows are in
    ``report.md``); None when retrieval was not scored."""
    if report.retrieval is None:
        return None
    overall = next((row for row in report.retrieval.rows if row.key == OVERALL), None)
    if overall is None:
        return None
    table = Table(title=f"{report.retrieval.reference}: retrieval over all languages (%)")
    table.add_column("run")
    for column in ("n", "file P", "file R", "file F1", "node n", "node P", "node R", "node F1"):
        table.add_column(column, justify="right")
    for label in report.labels:
        cell = overall.cells[label]
        table.add_row(
            escape(label),
            str(cell.n),
            pct(cell.file_precision),
            pct(cell.file_recall),
            pct(cell.file_f1),
            str(cell.node_n),
            pct(cell.node_precision),
            pct(cell.node_recall),
            pct(cell.node_f1),
        )
    return table
