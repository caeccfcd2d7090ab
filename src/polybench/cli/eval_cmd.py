"""``polybench eval``: a thin shell over :func:`polybench.runner.api.evaluate`."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from polybench.cli.backends import (
    BackendChoice,
    BackendChoiceError,
    BackendOption,
    BackendOptionsOption,
)
from polybench.cli.consoles import console, err_console, escape
from polybench.cli.defaults import DEFAULT_MAX_PATCH_BYTES, DEFAULT_TIMEOUT_SECONDS
from polybench.cli.inputs import (
    DatasetOption,
    ExecutorOption,
    InstanceIdsOption,
    IsolationOption,
    OutputDirOption,
    PredictionsOption,
    RayAddressOption,
    RayCpusPerTaskOption,
    RayMaxRetriesOption,
    RepoDirOption,
    SplitOption,
)

if TYPE_CHECKING:
    from rich.table import Table

    from polybench.runner.api import EvalConfig, RunReport
    from polybench.runner.records import RunSummary
    from polybench.runner.run import RunPlan


def results_table(summary: RunSummary) -> Table:
    """Resolved / total per language (in the one language order) and overall; an
    interrupted run's table has a ``not run`` column and its pass rates say ``partial``."""
    from rich.table import Table

    from polybench.dataset.models import ALL_LANGUAGES, language_rank

    partial = summary.partial
    table = Table(title=f"run {escape(summary.run_id)}" + (" (interrupted)" if partial else ""))
    columns = ["language", "resolved", "total", "pass rate (partial)" if partial else "pass rate",
               "unresolved", "error", "empty", "no pred"]  # fmt: skip
    if partial:
        columns.append("not run")
    for column in columns:
        table.add_column(column, justify="left" if column == "language" else "right")
    for language in sorted(summary.per_language, key=language_rank):
        counts = summary.per_language[language]
        cells = [
            escape(language),
            str(counts.resolved),
            str(counts.total),
            _rate_cell(counts.resolved, counts.decided, partial),
            str(counts.unresolved),
            str(counts.error),
            str(counts.empty_patch),
            str(counts.no_prediction),
        ]
        table.add_row(*cells, *([str(counts.not_run)] if partial else []))
    total, resolved = summary.total_instances, summary.resolved_instances
    cells = [
        f"[bold]{ALL_LANGUAGES}[/bold]",
        f"[bold]{resolved}[/bold]",
        f"[bold]{total}[/bold]",
        f"[bold]{_rate_cell(resolved, summary.decided_instances, partial)}[/bold]",
        str(summary.unresolved_instances),
        str(summary.error_instances),
        str(summary.empty_patch_instances),
        str(summary.no_prediction_instances),
    ]
    table.add_row(*cells, *([str(summary.not_run_instances)] if partial else []))
    return table


def _rate_cell(resolved: int, decided: int, partial: bool) -> str:
    """A pass rate; over the instances that ran (``of N``) when the run was cut short."""
    if not partial:
        return f"{100 * resolved / decided if decided else 0:.1f}%"
    if not decided:
        return "- (none ran)"
    return f"{100 * resolved / decided:.1f}% of {decided}"


def print_report(report: RunReport) -> None:
    """The results table and the lines under it (rules, defences, where things are)."""
    from polybench.report.run_report import summary_lines

    summary = report.summary
    for instance_id, why in summary.untrusted_results.items():
        said = f"the saved result of {instance_id} was redone: {why}"
        err_console.print(f"[yellow]warning:[/yellow] {escape(said)}")
    console.print(results_table(summary))
    for line in summary_lines(summary):
        console.print(line, markup=False, highlight=False)
    console.print(f"isolation: {escape(', '.join(summary.isolation) or 'n/a')}")
    console.print(f"per-instance artifacts: {escape(str(report.run_dir / 'instances'))}")
    console.print(f"report: {escape(str(report.run_dir / 'report.json'))}")
    console.print(
        f"evaluated {len(report.evaluated)}, reused {len(report.reused)} finished results, "
        f"in {summary.wall_seconds:.1f}s"
    )


def resume_command(run_id: str) -> str:
    """The command that resumes this run: the same command line, with its run id."""
    words = ["polybench", *sys.argv[1:]]
    if not any(w == "--run-id" or w.startswith("--run-id=") for w in words):
        words += ["--run-id", run_id]
    return shlex.join(words)


def eval_command(
    predictions: PredictionsOption,
    dataset: DatasetOption = "mini",
    run_id: Annotated[
        str | None, typer.Option(help="Name of the run (default: a timestamp); reusing it resumes.")
    ] = None,
    output_dir: OutputDirOption = Path("polybench_runs"),
    workers: Annotated[int, typer.Option(min=1, help="Instances evaluated in parallel.")] = 2,
    prepare_ahead: Annotated[
        int,
        typer.Option(
            min=0,
            help="Instances prepared (sandbox, patch) while others' tests run; 0: none.",
        ),
    ] = 1,
    instance_ids: InstanceIdsOption = None,
    timeout: Annotated[
        float, typer.Option(help="Wall-clock seconds for one instance's test command.")
    ] = DEFAULT_TIMEOUT_SECONDS,
    backend: BackendOption = "local",
    backend_option: BackendOptionsOption = None,
    isolation: IsolationOption = None,
    executor: ExecutorOption = "local",
    ray_address: RayAddressOption = None,
    ray_cpus_per_task: RayCpusPerTaskOption = 1.0,
    ray_max_retries: RayMaxRetriesOption = 2,
    memory: Annotated[
        str | None, typer.Option(help="Docker: memory of a container (default 8g; 'none').")
    ] = None,
    cpus: Annotated[
        float | None, typer.Option(help="Docker: CPUs (default 2; 0: no limit).")
    ] = None,
    pids_limit: Annotated[
        int | None, typer.Option(help="Docker: processes (default 8192; 0: no limit).")
    ] = None,
    image_source: Annotated[
        str | None, typer.Option(help="Docker: build images, pull the official ones, or auto.")
    ] = None,
    image_registry: Annotated[
        str | None, typer.Option(help="Docker: registry of the prebuilt images to pull.")
    ] = None,
    image_tag: Annotated[
        str | None, typer.Option(help="Docker: tag of the prebuilt images to pull.")
    ] = None,
    base_source: Annotated[
        str | None, typer.Option(help="Docker: base images from 'registry' or a local 'rootfs'.")
    ] = None,
    trust_host_ca: Annotated[
        bool | None,
        typer.Option("--trust-host-ca", help="Docker: trust this machine's extra CA certificates."),
    ] = None,
    repo_dir: RepoDirOption = None,
    force: Annotated[
        bool,
        typer.Option("--force", help="Redo finished instances too (errors are always redone)."),
    ] = False,
    output_format: Annotated[
        str, typer.Option("--format", help="'native', or 'official' to also write official files.")
    ] = "native",
    rule: Annotated[
        str, typer.Option(help="'strict' (default) or 'official': the rule that sets statuses.")
    ] = "strict",
    canaries: Annotated[
        str,
        typer.Option(
            help="'on' (default): confirm each resolved verdict with a canary run; 'off': "
            "one run per instance, as the official harness."
        ),
    ] = "on",
    max_patch_bytes: Annotated[
        int, typer.Option(help="Predictions with a larger patch are rejected.")
    ] = DEFAULT_MAX_PATCH_BYTES,
    allow_network: Annotated[
        bool, typer.Option("--allow-network", help="Let test commands reach the network.")
    ] = False,
    split: SplitOption = "test",
) -> None:
    """Evaluate predictions on a dataset and write a report.

    Exit status: 0 every instance got a verdict; 1 some ended in an infrastructure error;
    2 bad input (nothing ran); 3 the output folder failed; 130 interrupted (resume with
    the same --run-id).
    """
    from polybench.runner.api import EvalConfig, ExitCode

    if (
        output_format not in ("native", "official")
        or rule not in ("strict", "official")
        or canaries not in ("on", "off")
    ):
        err_console.print(
            "[red]error:[/red] --format is native|official, --rule strict|official, "
            "--canaries on|off"
        )
        raise typer.Exit(ExitCode.BAD_INPUT)
    flags = {
        "isolation": isolation, "memory": memory, "cpus": cpus, "pids": pids_limit,
        "image_source": image_source, "base_source": base_source,
        "trust_host_ca": trust_host_ca, "image_registry": image_registry, "image_tag": image_tag,
    }  # fmt: skip
    try:
        choice = BackendChoice.from_flags(backend, allow_network, flags, backend_option)
        config = EvalConfig(
            dataset=dataset,
            predictions=predictions,
            run_id=run_id,
            output_dir=output_dir,
            workers=workers,
            prepare_ahead=prepare_ahead,
            instance_ids=instance_ids,
            timeout=timeout,
            backend=choice.backend,
            backend_options=choice.options,
            allow_network=allow_network,
            executor=executor,
            ray_address=ray_address,
            ray_cpus_per_task=ray_cpus_per_task,
            ray_max_retries=ray_max_retries,
            repo_dir=repo_dir,
            force=force,
            official_format=output_format == "official",
            max_patch_bytes=max_patch_bytes,
            split=split,
            rule=rule,  # type: ignore[arg-type]
            canaries=canaries == "on",
            command=["polybench", *sys.argv[1:]],
        )
    except (BackendChoiceError, ValueError) as exc:
        err_console.print(f"[red]error:[/red] {escape(str(exc))}")
        raise typer.Exit(ExitCode.BAD_INPUT) from exc
    run(config)


def run(config: EvalConfig) -> None:
    """Evaluate ``config`` with a progress display; exit with the run's exit status."""
    from polybench.cli.progress import RunProgress
    from polybench.logs import emit
    from polybench.runner.api import ExitCode, InputError, evaluate
    from polybench.runner.run import OutputDirectoryError

    progress = RunProgress(console)

    def on_plan(plan: RunPlan) -> None:
        progress.log_path = plan.run_dir / "run.log"
        emit("run_planned", run_id=plan.run_id, run_dir=str(plan.run_dir),
             instances=len(plan.instances), predictions=str(config.predictions))  # fmt: skip
        for problem in plan.predictions.problems:
            err_console.print(
                f"[yellow]warning:[/yellow] {escape(f'predictions {problem} (skipped)')}"
            )
            progress.log(f"warning: predictions {problem} (skipped)")
            emit("warning", message=f"predictions {problem} (skipped)")
        for warning in plan.warnings:
            err_console.print(f"[yellow]warning:[/yellow] {escape(warning)}")
            progress.log(f"warning: {warning}")
            emit("warning", message=warning)
        if config.predictions in ("gold", "empty"):
            err_console.print(
                f"[yellow]note:[/yellow] evaluating the dataset's {config.predictions} "
                "predictions, not an agent's"
            )

    try:
        with progress:
            report = evaluate(config, progress, on_plan=on_plan)
    except InputError as exc:
        err_console.print(f"[red]error:[/red] {escape(str(exc))}")
        emit("run_refused", message=str(exc), exit_code=int(ExitCode.BAD_INPUT))
        raise typer.Exit(ExitCode.BAD_INPUT) from exc
    except OutputDirectoryError as exc:
        err_console.print(f"[red]error:[/red] {escape(str(exc))}")
        raise typer.Exit(ExitCode.OUTPUT_FAILED) from exc
    print_report(report)
    summary = report.summary
    emit(
        "run_finished",
        run_id=summary.run_id,
        run_dir=str(report.run_dir),
        exit_code=int(report.exit_code),
        interrupted=report.interrupted,
        total=summary.total_instances,
        resolved=summary.resolved_instances,
        unresolved=summary.unresolved_instances,
        error=summary.error_instances,
        empty_patch=summary.empty_patch_instances,
        no_prediction=summary.no_prediction_instances,
        not_run=summary.not_run_instances,
        pass_rate=summary.pass_rate,
        partial=summary.partial,
        wall_seconds=summary.wall_seconds,
    )
    if report.interrupted:
        resume = resume_command(report.summary.run_id)
        err_console.print(
            f"[yellow]interrupted:[/yellow] {len(report.results)} results saved, "
            f"{len(report.summary.not_run_ids)} instances not run. Resume with:"
        )
        err_console.print(escape(resume), markup=True, highlight=False)
        progress.log(f"interrupted; resume with: {resume}")
    raise typer.Exit(report.exit_code)
