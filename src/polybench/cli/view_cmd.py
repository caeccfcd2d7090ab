"""``polybench view``: a page per instance of a run, to see what happened."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from polybench.cli.consoles import console, err_console, escape
from polybench.cli.prices import (
    PriceCachedOption,
    PriceInputOption,
    PriceOutputOption,
    prices_or_exit,
)


def view_command(
    run_dir: Annotated[
        Path,
        typer.Argument(help="An evaluation run or an agent run folder (<output-dir>/<run-id>)."),
    ],
    output_dir: Annotated[
        Path | None,
        typer.Option("--output-dir", "-o", help="Where the pages go (default: <run>/view)."),
    ] = None,
    price_input: PriceInputOption = None,
    price_output: PriceOutputOption = None,
    price_cached: PriceCachedOption = None,
) -> None:
    """Write an HTML page per instance of a run, to see what happened.

    Each page shows the verdict and its reason, the defences that fired, tokens and cost,
    the end of the test log (with a link to all of it) and the agent's trajectory step by
    step; an index lists the instances.
    """
    from polybench.report.instance_view import RunViewError
    from polybench.report.views import write_run_view

    prices = prices_or_exit(price_input, price_output, price_cached)
    try:
        run, index = write_run_view(run_dir, output_dir, prices)
    except RunViewError as exc:
        err_console.print(f"[red]error:[/red] {escape(str(exc))}")
        raise typer.Exit(2) from exc
    except OSError as exc:
        err_console.print(f"[red]error:[/red] cannot write the pages: {escape(str(exc))}")
        raise typer.Exit(3) from exc
    for note in run.notes:
        err_console.print(f"[yellow]note:[/yellow] {escape(note)}")
    console.print(f"{len(run.instances)} instance pages; open {escape(str(index))}")
