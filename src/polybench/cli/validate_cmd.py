"""``polybench validate``: run tests before/after the gold patch, fill F2P and P2P."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from polybench.atomic import atomic_write_text
from polybench.cli.backends import (
    BackendChoice,
    BackendChoiceError,
    BackendOption,
    BackendOptionsOption,
)
from polybench.cli.consoles import console, err_console, escape
from polybench.cli.defaults import DEFAULT_RUNS
from polybench.cli.inputs import IsolationOption, RepoDirOption, load_dataset_file_or_exit

if TYPE_CHECKING:
    from polybench.curation.validate import ValidationResult


def _line(result: ValidationResult, reused: bool) -> str:
    again = " [dim](saved verdict)[/dim]" if reused else ""
    if result.valid:
        return (
            f"[green]valid  [/green] {result.instance_id}: F2P {len(result.F2P)}, "
            f"P2P {len(result.P2P)}, flaky dropped {len(result.flaky)}{again}"
        )
    style = "yellow" if result.status == "invalid" else "red"
    return f"[{style}]{result.status:<7}[/{style}] {result.instance_id}: {result.reason}{again}"


def validate_command(
    dataset: Annotated[Path, typer.Argument(help="Instances from `polybench build`.")],
    output: Annotated[
        Path, typer.Option("--output", "-o", help="Validated dataset (.jsonl, .json or .csv).")
    ] = Path("dataset.jsonl"),
    report: Annotated[
        Path | None, typer.Option(help="Validation report (default: <output>.validation.json).")
    ] = None,
    work_dir: Annotated[
        Path | None,
        typer.Option(help="Logs and saved verdicts (default: <output>.validation/)."),
    ] = None,
    repo_dir: RepoDirOption = None,
    runs: Annotated[int, typer.Option(min=1, help="Test runs per phase.")] = DEFAULT_RUNS,
    workers: Annotated[int, typer.Option(min=1, help="Instances validated in parallel.")] = 1,
    timeout: Annotated[float, typer.Option(help="Seconds for one test run.")] = 1800.0,
    backend: BackendOption = "local",
    backend_option: BackendOptionsOption = None,
    isolation: IsolationOption = None,
    force: Annotated[bool, typer.Option(help="Ignore saved verdicts.")] = False,
) -> None:
    """Keep the instances whose gold patch turns tests from failing to passing."""
    from polybench.curation.dataset_io import write_dataset
    from polybench.curation.validate import Validator
    from polybench.curation.validate_run import (
        validate_all,
        validated_instances,
        validation_report,
    )
    from polybench.dataset.builtin import repo_dir_or_env
    from polybench.environments.backends import build_provider
    from polybench.environments.backends.consent import decide_isolation
    from polybench.paths import cache_root

    try:
        choice = BackendChoice.from_flags(backend, flags={"isolation": isolation},
                                          extra=backend_option)  # fmt: skip
    except BackendChoiceError as exc:
        err_console.print(f"[red]error:[/red] {escape(str(exc))}")
        raise typer.Exit(2) from None
    problems = choice.problems()
    if problems:
        err_console.print(f"[red]error:[/red] {escape('; '.join(problems))}")
        raise typer.Exit(2)
    instances = load_dataset_file_or_exit(dataset)
    repo_dir = repo_dir_or_env(repo_dir)
    work_dir = work_dir or output.with_name(output.name + ".validation")
    report_path = report or output.with_name(output.name + ".validation.json")
    settings = choice.settings(repo_dir=repo_dir, cache_dir=cache_root())
    warning = decide_isolation(settings, None).warning
    if warning is not None:
        err_console.print(f"[yellow]warning:[/yellow] {escape(warning)}")
    provider = build_provider(settings)
    validator = Validator(provider, runs=runs, timeout=timeout, log_dir=work_dir)
    console.print(f"validating {len(instances)} instances, {runs} runs before and after the fix")
    results = validate_all(
        instances,
        validator,
        workers=workers,
        results_dir=work_dir,
        force=force,
        on_result=lambda result, reused: console.print(_line(result, reused)),
        on_untrusted=lambda instance_id, why: err_console.print(
            "[yellow]warning:[/yellow] "
            + escape(f"the saved verdict of {instance_id} is redone: {why}")
        ),
    )
    kept = validated_instances(instances, results)
    write_dataset(kept, output)
    summary = validation_report(results, runs)
    atomic_write_text(report_path, json.dumps(summary, indent=1) + "\n")
    totals = summary["totals"]
    reasons = ", ".join(f"{k} {v}" for k, v in sorted(summary["not_valid_reasons"].items()))
    console.print(
        f"{totals['valid']} of {totals['instances']} instances valid "
        f"({totals['f2p_tests']} F2P and {totals['p2p_tests']} P2P tests; "
        f"{totals['flaky_tests_dropped']} flaky tests dropped)"
        + (f"; not valid: {reasons}" if reasons else "")
    )
    console.print(f"wrote {output} (report: {report_path}, logs: {work_dir})")
    if totals["error"]:
        raise typer.Exit(1)
