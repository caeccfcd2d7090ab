"""``polybench report``: stratified pass rates and retrieval metrics of one or more runs."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from polybench.cli.consoles import console, err_console, escape
from polybench.cli.inputs import OutputDirOption, RepoDirOption, SplitOption
from polybench.cli.prices import (
    PriceCachedOption,
    PriceInputOption,
    PriceOutputOption,
    prices_or_exit,
)

if TYPE_CHECKING:
    from rich.table import Table

    from polybench.report.model import Report


def _print_tables(report: Report) -> None:
    from rich.table import Table

    from polybench.report.render_text import pct, pct_se
    from polybench.report.terminal import (
        defences_table,
        detected_lines,
        disagreement_lines,
        retrieval_overall_table,
        rules_table,
        tokens_table,
    )

    runs = Table(title="runs")
    columns = ("run", "model", "instances", "resolved", "error", "pass rate (%)", "SE")
    for column in columns:
        runs.add_column(column, justify="left" if column in ("run", "model") else "right")
    for run in report.runs:
        covers = run.coverage if run.finished else f"{run.coverage} (unfinished: partial)"
        runs.add_row(
            escape(run.label),
            escape(run.model),
            covers,
            str(run.resolved),
            str(run.error),
            pct(run.pass_rate),
            pct_se(run.se),
        )
    console.print(runs)
    if report.paired:
        console.print(_paired_table(report))
    by_language = report.table("language")
    table = Table(title=f"{by_language.reference}: {by_language.title}")
    table.add_column("language")
    for label in report.labels:
        table.add_column(f"{escape(label)}\nresolved/n", justify="right")
        table.add_column(f"{escape(label)}\npass % ± SE", justify="right")
    for row in by_language.rows:
        cells = [escape(row.label)]
        for label in report.labels:
            cell = row.cells[label]
            cells += [f"{cell.resolved}/{cell.n}", f"{pct(cell.pass_rate)} ± {pct_se(cell.se)}"]
        table.add_row(*cells)
    console.print(table)
    if by_language.scope:
        console.print(escape(by_language.scope))
    console.print(rules_table(report))
    for line in disagreement_lines(report):
        console.print(line)
    console.print(defences_table(report))
    for line in detected_lines(report):
        console.print(line)
    tokens = tokens_table(report)
    if tokens is not None:
        console.print(tokens)
    retrieval = retrieval_overall_table(report)
    if retrieval is not None and report.retrieval is not None:
        console.print(retrieval)
        for note in report.retrieval.notes:
            console.print(f"retrieval: {escape(note)}", highlight=False)


def _paired_table(report: Report) -> Table:
    """A narrow view of the paired comparisons (report.md has every column)."""
    from rich.table import Table

    from polybench.report.render_text import paired_cells

    header, lines = paired_cells(report.paired, report.confidence)
    shown = {name: header.index(name) for name in header}
    table = Table(title="paired comparison: second - first, on the instances both cover")
    for column in ("first", "second", "n", "diff (pp) ± SE", header[7], "b", "c", "p"):
        table.add_column(
            escape(column), justify="left" if column in ("first", "second") else "right"
        )
    for line in lines:
        table.add_row(
            escape(line[0]),
            escape(line[1]),
            line[shown["n (common)"]],
            f"{line[shown['difference (pp)']]} ± {line[shown['SE (pp)']]}",
            line[7],
            line[shown["b (only first)"]],
            line[shown["c (only second)"]],
            f"{line[shown['p-value']]} ({line[shown['McNemar']]})",
        )
    return table


def _print_warnings(report: Report) -> None:
    for warning in report.warnings:
        err_console.print(f"[bold yellow]warning:[/bold yellow] {escape(warning)}")


def report_command(
    run_dirs: Annotated[
        list[Path], typer.Argument(help="Run folders (<output-dir>/<run-id>) to report on.")
    ],
    dataset: Annotated[
        str | None,
        typer.Option(help="Dataset of the runs (default: the one each run.json names)."),
    ] = None,
    output_dir: OutputDirOption = Path("polybench_report"),
    repo_dir: RepoDirOption = None,
    retrieval: Annotated[
        bool, typer.Option(help="Compute file and node retrieval metrics of the patches.")
    ] = True,
    html: Annotated[bool, typer.Option(help="Also write report.html with charts.")] = True,
    charts: Annotated[
        bool, typer.Option(help="Also write every chart as charts/<name>.svg and .pdf.")
    ] = True,
    resamples: Annotated[
        int, typer.Option(min=2, help="Bootstrap resamples for standard errors.")
    ] = 2000,
    seed: Annotated[int, typer.Option(help="Seed of the bootstrap.")] = 0,
    split: SplitOption = "test",
    price_input: PriceInputOption = None,
    price_output: PriceOutputOption = None,
    price_cached: PriceCachedOption = None,
) -> None:
    """Write stratified pass-rate and retrieval tables (Markdown, CSV, JSON, HTML)."""
    from polybench.report.api import ReportInputError, report_runs
    from polybench.report.output import write_report

    prices = prices_or_exit(price_input, price_output, price_cached)

    def on_scoring(label: str, count: int) -> None:
        console.print(f"scoring retrieval of {escape(label)} ({count} instances)")

    try:
        report = report_runs(
            run_dirs,
            dataset=dataset,
            split=split,
            repo_dir=repo_dir,
            retrieval=retrieval,
            resamples=resamples,
            seed=seed,
            prices=prices,
            on_scoring=on_scoring,
        )
    except ReportInputError as exc:
        err_console.print(f"[red]error:[/red] {escape(str(exc))}")
        raise typer.Exit(2) from exc
    written = write_report(report, output_dir, html=html, charts=charts)
    _print_tables(report)
    for note in report.notes:
        console.print(f"note: {escape(note)}")
    _print_warnings(report)
    console.print(f"report: {escape(_names(written, output_dir))} in {escape(str(output_dir))}")


def _names(paths: Sequence[Path], folder: Path) -> str:
    """The files written, relative to ``folder``; the chart files are counted, not listed."""
    from polybench.report.output import CHARTS_DIR

    charts = folder / CHARTS_DIR
    names = [str(p.relative_to(folder)) for p in paths if p.parent != charts]
    drawn = sum(1 for p in paths if p.parent == charts and p.suffix == ".svg")
    if drawn:
        names.append(f"{CHARTS_DIR}/ ({drawn} charts, SVG and PDF)")
    return ", ".join(names)
