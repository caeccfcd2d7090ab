"""``polybench regrade``: grade a finished run again from its logs (nothing runs)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from polybench.cli.consoles import console, err_console, escape
from polybench.cli.inputs import SplitOption


def regrade_command(
    run_dir: Annotated[Path, typer.Argument(help="The run folder (<output-dir>/<run-id>).")],
    dataset: Annotated[
        str | None, typer.Option(help="Dataset of the run (default: the one run.json names).")
    ] = None,
    rule: Annotated[
        str | None, typer.Option(help="strict or official (default: the rule of each result).")
    ] = None,
    write: Annotated[
        bool,
        typer.Option(
            "--write", help="Rewrite result.json and report.json (old results kept beside)."
        ),
    ] = False,
    split: SplitOption = "test",
) -> None:
    """Re-grade a run from its saved logs with the current parsers and rules."""
    from rich.table import Table

    from polybench.dataset.loaders import DatasetError
    from polybench.runner.regrade import RegradeError, regrade

    if rule not in (None, "strict", "official"):
        err_console.print("[red]error:[/red] --rule is strict or official")
        raise typer.Exit(2)
    try:
        report = regrade(run_dir, dataset=dataset, rule=rule, write=write, split=split)
    except (RegradeError, DatasetError) as exc:
        err_console.print(f"[red]error:[/red] {escape(str(exc))}")
        raise typer.Exit(2) from exc
    if report.changes:
        table = Table(title="verdicts that changed")
        for column in ("instance", "before", "after", "reason"):
            table.add_column(column)
        for change in report.changes:
            cells = (change.instance_id, change.before, change.after, change.reason[:200])
            table.add_row(*(escape(text) for text in cells))
        console.print(table)
    written = " (result.json and report.json rewritten)" if write else ""
    console.print(
        f"regraded {report.regraded} instances from their logs, kept {report.kept} that did "
        f"not run tests; {len(report.changes)} verdicts changed{written}"
    )
