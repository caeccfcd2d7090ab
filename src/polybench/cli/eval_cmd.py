"""``polybench eval``: run predictions against a dataset and grade them."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from polybench.cli.backends import BACKENDS, BackendOptions, make_provider
from polybench.cli.consoles import console, err_console
from polybench.cli.inputs import (
    DatasetOption,
    InstanceIdsOption,
    PredictionsOption,
    RepoDirOption,
    SplitOption,
    load_instances_or_exit,
    load_predictions_or_exit,
    repo_dir_for,
)
from polybench.dataset.predictions import (
    DEFAULT_MAX_PATCH_BYTES,
)
from polybench.environments.provider import SandboxProvider
from polybench.grading.result import InstanceResult, Status
from polybench.report.run_report import build_summary, write_official, write_summary
from polybench.runner.executors import EXECUTORS, ExecutorUnavailable, make_runner
from polybench.runner.instance import DEFAULT_TIMEOUT_SECONDS, RunSettings
from polybench.runner.run import RunPlan, write_run_metadata
from polybench.sandbox.base import SandboxError
from polybench.sandbox.local import ISOLATION_MODES

_STATUS_STYLE = {
    Status.RESOLVED: "green",
    Status.UNRESOLVED: "yellow",
    Status.EMPTY_PATCH: "dim",
    Status.ERROR: "red",
}


def _results_table(summary: dict[str, object]) -> Table:
    table = Table(title=f"run {summary['run_id']}")
    columns = (
        "language",
        "resolved",
        "total",
        "pass rate",
        "unresolved",
        "error",
        "empty",
        "no pred",
    )
    for column in columns:
        table.add_column(column, justify="left" if column == "language" else "right")
    per_language = summary["per_language"]
    assert isinstance(per_language, dict)
    for language, counts in per_language.items():
        table.add_row(
            language,
            str(counts["resolved"]),
            str(counts["total"]),
            f"{100 * counts['pass_rate']:.1f}%",
            str(counts["unresolved"]),
            str(counts["error"]),
            str(counts["empty_patch"]),
            str(counts["no_prediction"]),
        )
    total = summary["total_instances"]
    resolved = summary["resolved_instances"]
    assert isinstance(total, int) and isinstance(resolved, int)
    table.add_row(
        "[bold]all[/bold]",
        f"[bold]{resolved}[/bold]",
        f"[bold]{total}[/bold]",
        f"[bold]{100 * resolved / total if total else 0:.1f}%[/bold]",
        str(summary["unresolved_instances"]),
        str(summary["error_instances"]),
        str(summary["empty_patch_instances"]),
        str(summary["no_prediction_instances"]),
    )
    return table


def _describe(result: InstanceResult) -> str:
    style = _STATUS_STYLE[result.status]
    reason = f" - {result.reason}" if result.reason and result.status is not Status.RESOLVED else ""
    return f"[{style}]{result.status.value:<11}[/{style}] {result.instance_id}{reason}"


def eval_command(
    dataset: DatasetOption = "mini",
    predictions: PredictionsOption = "gold",
    run_id: Annotated[
        str | None, typer.Option(help="Name of the run (default: a timestamp).")
    ] = None,
    output_dir: Annotated[Path, typer.Option(help="Where runs are written.")] = Path(
        "polybench_runs"
    ),
    workers: Annotated[int, typer.Option(min=1, help="Instances evaluated in parallel.")] = 2,
    instance_ids: InstanceIdsOption = None,
    timeout: Annotated[
        float, typer.Option(help="Wall-clock seconds for one instance's test command.")
    ] = DEFAULT_TIMEOUT_SECONDS,
    backend: Annotated[
        str, typer.Option(help=f"Sandbox backend: {', '.join(BACKENDS)}.")
    ] = "local",
    isolation: Annotated[
        str, typer.Option(help=f"Local backend isolation: {', '.join(ISOLATION_MODES)}.")
    ] = "auto",
    executor: Annotated[
        str,
        typer.Option(help=f"Where instances run: {', '.join(EXECUTORS)} (threads here, or Ray)."),
    ] = "local",
    ray_address: Annotated[
        str | None,
        typer.Option(help="Ray: 'auto' or HOST:PORT of a cluster (default: start Ray here)."),
    ] = None,
    ray_cpus_per_task: Annotated[
        float, typer.Option(min=0.01, help="Ray: CPUs each instance's task asks for.")
    ] = 1.0,
    ray_max_retries: Annotated[
        int, typer.Option(min=0, help="Ray: retries of a task whose worker or node is lost.")
    ] = 2,
    memory: Annotated[
        str, typer.Option(help="Docker: memory limit of a container (e.g. 4g; 'none').")
    ] = "8g",
    cpus: Annotated[float, typer.Option(help="Docker: CPUs of a container (0: no limit).")] = 2.0,
    pids_limit: Annotated[
        int, typer.Option(help="Docker: processes of a container (0: no limit).")
    ] = 8192,
    image_source: Annotated[
        str, typer.Option(help="Docker: 'build' images, 'pull' the official ones, or 'auto'.")
    ] = "build",
    base_source: Annotated[
        str,
        typer.Option(help="Docker: base images from 'registry' images or a local 'rootfs' image."),
    ] = "registry",
    trust_host_ca: Annotated[
        bool, typer.Option(help="Docker: trust this machine's extra CA certificates in images.")
    ] = False,
    repo_dir: RepoDirOption = None,
    force: Annotated[bool, typer.Option(help="Redo instances that already have results.")] = False,
    output_format: Annotated[
        str, typer.Option("--format", help="'native', or 'official' to also write official files.")
    ] = "native",
    max_patch_bytes: Annotated[
        int, typer.Option(help="Predictions with a larger patch are rejected.")
    ] = DEFAULT_MAX_PATCH_BYTES,
    allow_network: Annotated[
        bool, typer.Option(help="Let test commands reach the network.")
    ] = False,
    split: SplitOption = "test",
) -> None:
    """Evaluate predictions on a dataset and write a report."""
    backend_options = BackendOptions(
        backend=backend,
        isolation=isolation,
        allow_network=allow_network,
        memory=memory,
        cpus=cpus,
        pids_limit=pids_limit,
        image_source=image_source,
        base_source=base_source,
        trust_host_ca=trust_host_ca,
    )
    backend_problem = backend_options.problem()
    if backend_problem is not None:
        err_console.print(f"[red]error:[/red] {backend_problem}")
        raise typer.Exit(2)
    if output_format not in ("native", "official"):
        err_console.print("[red]error:[/red] --format must be 'native' or 'official'")
        raise typer.Exit(2)
    instances = load_instances_or_exit(dataset, split, instance_ids)
    prediction_set = load_predictions_or_exit(predictions, instances, max_patch_bytes)

    run_id = run_id or datetime.now().strftime("%Y%m%d-%H%M%S")
    run_dir = (output_dir / run_id).resolve()
    clones = repo_dir_for(dataset, repo_dir)
    plan = RunPlan(
        run_id=run_id,
        run_dir=run_dir,
        instances=instances,
        predictions=prediction_set,
        force=force,
        workers=workers,
    )
    provider: SandboxProvider | None = None
    try:
        if executor == "local":
            # Ray tasks build their provider on their own node; here it is built once,
            # so that a missing Docker daemon stops the run before it starts.
            provider = make_provider(backend_options, clones, work_dir=plan.sandboxes_dir)
    except SandboxError as exc:
        err_console.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from exc

    progress, on_start, on_result = _progress()
    try:
        runner = make_runner(
            executor,
            backend_options.provider_settings(clones, plan.sandboxes_dir),
            RunSettings(timeout=timeout),
            provider=provider,
            ray_address=ray_address,
            ray_cpus_per_task=ray_cpus_per_task,
            ray_max_retries=ray_max_retries,
            on_start=on_start,
            on_result=on_result,
        )
    except (ExecutorUnavailable, ValueError) as exc:
        err_console.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from exc
    run_dir.mkdir(parents=True, exist_ok=True)
    executor_metadata: dict[str, object] = {"executor": executor}
    if executor == "ray":
        executor_metadata["ray_address"] = ray_address
    write_run_metadata(
        plan,
        {"dataset": dataset, "workers": workers, **executor_metadata, **backend_options.metadata()},
    )
    with progress:
        outcome = runner.run(plan)

    isolations = sorted({r.isolation for r in outcome.results.values() if r.isolation})
    summary = build_summary(
        run_id,
        instances,
        outcome.results,
        prediction_set.problems,
        extra={
            "dataset": dataset,
            "predictions": predictions,
            "backend": backend,
            "executor": executor,
            "isolation": isolations,
            "wall_seconds": round(outcome.wall_seconds, 2),
            "reused_results": len(outcome.reused),
        },
    )
    report_path = write_summary(run_dir, summary)
    console.print(_results_table(summary))
    if output_format == "official":
        official = write_official(run_dir, outcome.results)
        console.print(f"official results: {official.parent}")
    console.print(f"isolation: {', '.join(isolations) or 'n/a'}")
    console.print(f"per-instance artifacts: {plan.instances_dir}")
    console.print(f"report: {report_path}")
    console.print(
        f"evaluated {len(outcome.evaluated)}, reused {len(outcome.reused)} finished results, "
        f"in {outcome.wall_seconds:.1f}s"
    )


def _progress() -> tuple[Progress, Callable[[int, int], None], Callable[[InstanceResult], None]]:
    """A progress bar (on terminals) and the runner callbacks that drive it."""
    progress = Progress(
        TextColumn("[bold]evaluating"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.description}"),
        console=console,
        disable=not console.is_terminal,
    )
    task = progress.add_task("", total=None)

    def on_start(todo: int, reused: int) -> None:
        progress.update(task, total=todo)
        if reused:
            console.print(f"{reused} instances already finished in this run (use --force to redo)")

    def on_result(result: InstanceResult) -> None:
        progress.advance(task)
        progress.update(task, description=result.instance_id)
        console.print(_describe(result))

    return progress, on_start, on_result
