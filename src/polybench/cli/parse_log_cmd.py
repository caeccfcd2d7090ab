"""``polybench parse-log``: turn a test log into ``{test_id: status}``."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from polybench.runner.saved_logs import SavedReading


def parser_lines() -> list[str]:
    """One line per log parser: its name and what it reads (the first line of its doc,
    without the reStructuredText quotes)."""
    from polybench.grading.parsers import registered_parsers

    parsers = sorted(registered_parsers().items())
    width = max(len(name) for name, _ in parsers)
    lines = []
    for name, parser in parsers:
        doc = (parser.__doc__ or "").strip().splitlines()
        summary = doc[0].replace("``", "") if doc else ""
        lines.append(f"{name:<{width}}  {summary}".rstrip())
    return lines


def _list_parsers(value: bool) -> None:
    if value:
        for line in parser_lines():
            typer.echo(line)
        raise typer.Exit()


def _reading(
    log_file: Path, instance: str | None, parser: str | None, repo: str | None
) -> tuple[SavedReading, str | None, str | None]:
    """What to parse and with which parser (None: the reading's own or the repository's)."""
    from polybench.runner.saved_logs import (
        SavedLogError,
        SavedReading,
        read_instance_folder,
        read_log_file,
    )

    if str(log_file) == "-":
        if parser is None and repo is None:
            raise _usage("give --parser NAME or --repo owner/name")
        raw = sys.stdin.buffer.read().decode("utf-8", errors="replace")
        return SavedReading(text=raw, source=log_file), parser, repo
    if log_file.is_dir():
        folder = log_file
        if instance is not None:
            folder = log_file / "instances" / instance
        elif (log_file / "instances").is_dir():
            raise _usage(f"{log_file} is a run folder: give --instance ID")
        try:
            reading = read_instance_folder(folder)
        except SavedLogError as exc:
            raise _usage(str(exc)) from exc
        if parser is None and repo is None:
            parser = reading.parser
        return reading, parser, repo
    if parser is None and repo is None:
        raise _usage("give --parser NAME or --repo owner/name (or a run's instance folder)")
    try:
        raw = log_file.read_bytes().decode("utf-8", errors="replace")
    except OSError as exc:
        raise _usage(f"cannot read {log_file}: {exc.strerror}") from exc
    from polybench.grading.repo_map import parser_for

    try:
        name = parser_for(repo, parser)
    except ValueError as exc:
        raise _usage(str(exc)) from exc
    return read_log_file(log_file, raw, name), name, None


def _usage(message: str) -> typer.Exit:
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(2)


def parse_log_command(
    log_file: Annotated[
        Path,
        typer.Argument(
            help="The log file ('-' for standard input), or a run's instance folder "
            "(instances/ID), or a run folder with --instance."
        ),
    ],
    parser: Annotated[
        str | None, typer.Option(metavar="NAME", help="Parser name (see --list).")
    ] = None,
    repo: Annotated[
        str | None,
        typer.Option(metavar="OWNER/NAME", help="Official repository; picks its parser."),
    ] = None,
    instance: Annotated[
        str | None,
        typer.Option(metavar="ID", help="With a run folder: the instance whose logs to read."),
    ] = None,
    list_parsers: Annotated[
        bool,
        typer.Option(
            "--list",
            callback=_list_parsers,
            is_eager=True,
            help="List the parsers (name and what each reads) and exit.",
        ),
    ] = False,
) -> None:
    """Print the JSON object {test_id: status} that a parser reads from a log.

    From a run's folder, and from a merged log that has its stdout kept beside it, the
    part polybench graded is read: the same stream, between the same markers.
    """
    from polybench.grading.parsers import parse_log
    from polybench.grading.parsers.registry import UnknownParserError

    reading, parser, repo = _reading(log_file, instance, parser, repo)
    try:
        result = parse_log(reading.text, parser=parser, repo=repo)
    except (UnknownParserError, ValueError) as exc:
        raise _usage(str(exc)) from exc
    typer.echo(json.dumps({k: v.value for k, v in result.statuses.items()}, indent=2))
    for note in reading.notes:
        typer.echo(f"note: {note}", err=True)
    for note in result.notes:
        typer.echo(f"note: {note}", err=True)
    for warning in [*reading.warnings, *result.distrust]:
        typer.echo(f"warning: {warning}", err=True)
    disagreement = result.summary_disagreement()
    if disagreement is not None:
        typer.echo(f"warning: {disagreement}", err=True)
    graded = reading.graded_tests
    if graded is not None and graded != len(result.statuses):
        typer.echo(
            f"warning: polybench graded {graded} tests from this run, this reading has "
            f"{len(result.statuses)} (another parser or version?)",
            err=True,
        )
    if not result.parsed_anything:
        typer.echo("warning: no test results found in this log", err=True)
        raise typer.Exit(1)
