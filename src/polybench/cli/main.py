"""The ``polybench`` command line."""

from __future__ import annotations

import typer

from polybench import __version__
from polybench.cli.eval_cmd import eval_command
from polybench.cli.parse_log_cmd import parse_log_command
from polybench.cli.report_cmd import report_command

app = typer.Typer(
    name="polybench",
    help="Evaluate coding agents on SWE-PolyBench: run patches, grade tests, report.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.command("eval")(eval_command)
app.command("parse-log")(parse_log_command)
app.command("report")(report_command)


@app.command("version")
def version_command() -> None:
    """Print the polybench version."""
    typer.echo(__version__)


if __name__ == "__main__":
    app()
