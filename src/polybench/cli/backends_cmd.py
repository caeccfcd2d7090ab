"""``polybench backends``: the sandbox backends usable here, and their conformance check."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table

from polybench.cli.backends import BackendChoice, BackendChoiceError, BackendOptionsOption
from polybench.cli.command_group import command_group
from polybench.cli.consoles import console, err_console, escape

if TYPE_CHECKING:
    from polybench.dataset.models import Instance

backends_app = command_group(
    "List the sandbox backends, or check one against the sandbox contract."
)


@backends_app.command("list")
def list_command() -> None:
    """Every backend usable here (built in, or added by an installed package) and its options."""
    from polybench.environments.backends import UnknownBackend, available_backends, get_backend

    table = Table("backend", "from", "description", "options (--backend-option KEY=VALUE)")
    for info in available_backends():
        try:
            fields = get_backend(info.name).Options.model_fields
            options = ", ".join(f"{key}={field.default!r}" for key, field in fields.items())
        except UnknownBackend as exc:
            options = f"(cannot be loaded: {exc})"
        table.add_row(*(escape(text) for text in (info.name, info.source, info.description,
                                                  options or "none")))  # fmt: skip
    console.print(table)


@backends_app.command("check")
def check_command(
    name: Annotated[str, typer.Argument(help="The backend to check (see `backends list`).")],
    backend_option: BackendOptionsOption = None,
    instance_id: Annotated[
        str | None,
        typer.Option(help="Built-in instance of `mini` to check on (default: a small Python one)."),
    ] = None,
    only: Annotated[
        list[str] | None, typer.Option(help="Run only these checks (repeatable).")
    ] = None,
    allow_network: Annotated[
        bool, typer.Option(help="Make the sandbox with the network allowed.")
    ] = False,
) -> None:
    """Check a backend against the sandbox contract on a real instance; exit 1 if it fails.

    The checks: the repository at the base commit and nothing newer, files only inside
    the sandbox, timeouts that kill every process, no host variables, no network unless
    allowed, cleanup that sticks (see polybench.environments.conformance).
    """
    from polybench.environments.conformance import run_conformance

    try:
        choice = BackendChoice.from_flags(name, allow_network, extra=backend_option)
    except BackendChoiceError as exc:
        err_console.print(f"[red]error:[/red] {escape(str(exc))}")
        raise typer.Exit(2) from None
    instance = None
    if instance_id is not None:
        instance = _builtin_instance(instance_id)
    try:
        report = run_conformance(choice.settings(), instance, only=only)
    except ValueError as exc:
        err_console.print(f"[red]error:[/red] {escape(str(exc))}")
        raise typer.Exit(2) from None
    for problem in report.problems:
        err_console.print(f"[red]cannot run:[/red] {escape(problem)}")
    table = Table("check", "status", "detail")
    colours = {"passed": "green", "failed": "red", "skipped": "yellow"}
    for check in report.checks:
        status = f"[{colours[check.status]}]{check.status}[/]"
        table.add_row(escape(check.name), status, escape(check.detail))
    console.print(table)
    passed = sum(check.status == "passed" for check in report.checks)
    verdict = "conforms" if report.ok else "does NOT conform"
    if report.boundary_failures:
        verdict += f" (not a boundary: {len(report.boundary_failures)} boundary checks failed)"
    console.print(
        f"backend {escape(report.backend)} (isolation {escape(report.isolation or '?')}) "
        f"{verdict}: {passed} passed, {len(report.failures)} failed, "
        f"{len(report.checks) - passed - len(report.failures)} skipped, "
        f"on {escape(report.instance_id)}"
    )
    if not report.ok:
        raise typer.Exit(1)


def _builtin_instance(instance_id: str) -> Instance:
    from polybench.dataset.builtin import load_builtin

    for instance in load_builtin("mini"):
        if instance.instance_id == instance_id:
            return instance
    err_console.print(f"[red]error:[/red] no built-in instance {escape(instance_id)}")
    raise typer.Exit(2)
