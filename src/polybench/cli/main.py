"""The ``polybench`` command line.

Each command's module is imported only when the command runs (see
:mod:`polybench.cli.lazy_commands`); :data:`COMMANDS` lists them in the order
``polybench --help`` shows.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from typer._click import Context

from polybench import __version__
from polybench.cli.command_group import command_group
from polybench.cli.lazy_commands import LazyCommand, LazyGroup

COMMANDS: dict[str, LazyCommand] = {
    "eval": LazyCommand(
        "polybench.cli.eval_cmd:eval_command",
        "Evaluate predictions on a dataset and write a report.",
    ),
    "parse-log": LazyCommand(
        "polybench.cli.parse_log_cmd:parse_log_command",
        "Print the JSON object {test_id: status} that a parser reads from a log.",
    ),
    "report": LazyCommand(
        "polybench.cli.report_cmd:report_command",
        "Write stratified pass-rate and retrieval tables (Markdown, CSV, JSON, HTML).",
    ),
    "view": LazyCommand(
        "polybench.cli.view_cmd:view_command",
        "Write an HTML page per instance of a run, to see what happened.",
    ),
    "regrade": LazyCommand(
        "polybench.cli.regrade_cmd:regrade_command",
        "Re-grade a run from its saved logs with the current parsers and rules.",
    ),
    "metrics": LazyCommand(
        "polybench.cli.metrics_cmd:metrics_command",
        "Compute file and CST-node retrieval metrics of predictions (no test is run).",
    ),
    "collect": LazyCommand(
        "polybench.cli.collect_cmd:collect_command",
        "Screen repositories and collect merged PRs that resolve an issue and touch tests.",
    ),
    "build": LazyCommand(
        "polybench.cli.build_cmd:build_command",
        "Split each PR into code and test patches and fill the dataset columns.",
    ),
    "validate": LazyCommand(
        "polybench.cli.validate_cmd:validate_command",
        "Keep the instances whose gold patch turns tests from failing to passing.",
    ),
    "annotate": LazyCommand(
        "polybench.cli.annotate_cmd:annotate_command",
        "Add complexity columns and the paper's zero-shot LLM classifications.",
    ),
    "curate": LazyCommand(
        "polybench.cli.curate_cmd:curate_command",
        "Keep instances every rater scored issue >= 2, code == 2, test >= 2; downsample.",
    ),
    "version": LazyCommand("polybench.cli.main:version_command", "Print the polybench version."),
    "dataset": LazyCommand(
        "polybench.cli.dataset_cmd:dataset_app",
        "Inspect a dataset: Tables 1/2 statistics and its complexity columns.",
    ),
    "agent": LazyCommand(
        "polybench.cli.agent_cmd:agent_app",
        "Run the built-in agent on a dataset, or import other agents' output.",
    ),
    "images": LazyCommand(
        "polybench.cli.images_cmd:images_app",
        "Build, list, measure and remove polybench's Docker images.",
    ),
    "docker": LazyCommand(
        "polybench.cli.docker_cmd:docker_app", "Manage what polybench keeps in Docker."
    ),
    "backends": LazyCommand(
        "polybench.cli.backends_cmd:backends_app",
        "List the sandbox backends, or check one against the sandbox contract.",
    ),
    "submission": LazyCommand(
        "polybench.cli.submission_cmd:submission_app",
        "Leaderboard submissions: build the official folder from a run, or check one.",
    ),
}


class PolybenchGroup(LazyGroup):
    """The ``polybench`` group.

    ``polybench version`` and ``polybench COMMAND --help`` use none of the group's
    options, so they are answered before the group reads them: typer checks every value
    it reads with pydantic, whose import would be most of their start-up time.
    """

    table = COMMANDS

    def parse_args(self, ctx: Context, args: list[str]) -> list[str]:
        if args == ["version"]:
            version_command()
            ctx.exit()
        if len(args) == 2 and args[0] in self.table and args[1] in ctx.help_option_names:
            # Prints the command's help (its usage line under this group) and exits.
            self.commands[args[0]].make_context(args[0], args[1:], parent=ctx)
        return super().parse_args(ctx, args)


app = command_group(
    "Evaluate coding agents on SWE-PolyBench: run patches, grade tests, report.",
    name="polybench",
    pretty_exceptions_enable=False,
    cls=PolybenchGroup,
)


@app.callback()
def polybench_group(
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="Also print debug messages (on stderr).")
    ] = False,
    quiet: Annotated[
        bool,
        typer.Option("--quiet", "-q", help="Print only warnings, errors and the results."),
    ] = False,
    log_json: Annotated[
        Path | None,
        typer.Option(
            metavar="FILE",
            help="Append every event (run started, instance finished, warning, run finished) "
            "and message to FILE as JSON lines ('-': stderr).",
        ),
    ] = None,
) -> None:
    """Evaluate coding agents on SWE-PolyBench: run patches, grade tests, report."""
    if verbose and quiet:
        raise typer.BadParameter("--verbose and --quiet exclude each other")
    from polybench.logs import NORMAL, QUIET, VERBOSE, configure

    configure(VERBOSE if verbose else QUIET if quiet else NORMAL, log_json)


def main() -> None:
    """The ``polybench`` command: the CLI, then the process ends without the interpreter's
    teardown (see :mod:`polybench.cli.exiting`)."""
    from polybench.cli.exiting import run_and_leave

    run_and_leave(app)


def version_command() -> None:
    """Print the polybench version."""
    typer.echo(__version__)


if __name__ == "__main__":
    main()
