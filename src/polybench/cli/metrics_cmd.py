"""``polybench metrics``: file and CST-node retrieval metrics, without running any test."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated, Any

import typer

from polybench.atomic import atomic_write_text
from polybench.cli.consoles import console, err_console, escape
from polybench.cli.defaults import DEFAULT_MAX_PATCH_BYTES
from polybench.cli.inputs import (
    DatasetOption,
    InstanceIdsOption,
    OutputDirOption,
    PredictionsOption,
    RepoDirOption,
    SplitOption,
    load_all_instances_or_exit,
    load_predictions_or_exit,
    select_instances_or_exit,
)

if TYPE_CHECKING:
    from rich.table import Table


def _percent(metrics: dict[str, float] | None, key: str) -> str:
    return "-" if metrics is None else f"{100 * metrics[key]:.1f}"


def summary_table(summary: dict[str, Any]) -> Table:
    """Mean file and node retrieval per language (in the one language order) and overall,
    in percent."""
    from rich.table import Table

    from polybench.dataset.models import ALL_LANGUAGES, language_rank

    table = Table(title="retrieval metrics (%)")
    table.add_column("language", no_wrap=True, min_width=10)
    for column in ("n", "file P", "file R", "file F1", "node n", "node P", "node R", "node F1"):
        table.add_column(column, justify="right")
    per_language = summary["per_language"]
    rows = [(name, per_language[name]) for name in sorted(per_language, key=language_rank)]
    rows.append((ALL_LANGUAGES, summary["overall"]))
    for name, group in rows:
        files, nodes = group["file_retrieval_metrics"], group["node_retrieval_metrics"]
        table.add_row(
            escape(name),
            str(group["instances"]),
            *(_percent(files, key) for key in ("precision", "recall", "f1")),
            str(group["node_instances"]),
            *(_percent(nodes, key) for key in ("precision", "recall", "f1")),
            style="bold" if name == ALL_LANGUAGES else None,
        )
    return table


def metrics_command(
    output_dir: OutputDirOption,
    predictions: PredictionsOption,
    dataset: DatasetOption = "mini",
    repo_dir: RepoDirOption = None,
    workers: Annotated[int, typer.Option(min=1, help="Instances scored in parallel.")] = 2,
    instance_ids: InstanceIdsOption = None,
    max_patch_bytes: Annotated[
        int, typer.Option(help="Predictions with a larger patch are rejected.")
    ] = DEFAULT_MAX_PATCH_BYTES,
    split: SplitOption = "test",
) -> None:
    """Compute file and CST-node retrieval metrics of predictions (no test is run)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from polybench.dataset.builtin import repo_dir_for
    from polybench.metrics.api import SUMMARY_FILE, score_predictions

    every = load_all_instances_or_exit(dataset, split)
    instances = select_instances_or_exit(every, instance_ids)
    prediction_set = load_predictions_or_exit(
        predictions, instances, max_patch_bytes, [i.instance_id for i in every]
    )
    todo = len(instances)  # an instance without a prediction is scored as an empty one
    progress = Progress(
        TextColumn("[bold]scoring"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        disable=not console.is_terminal,
    )

    def on_scored(instance_id: str, result: object, error: str | None) -> None:
        progress.advance(task)
        if error is not None:
            err_console.print(f"[red]error:[/red] {escape(f'{instance_id}: {error}')}")

    with progress:
        task = progress.add_task("", total=todo)
        run = score_predictions(
            instances,
            prediction_set,
            output_dir=output_dir,
            repo_dir=repo_dir_for(dataset, repo_dir),
            workers=workers,
            on_scored=on_scored,
        )
    run.summary["dataset"], run.summary["predictions"] = dataset, predictions
    atomic_write_text(output_dir / SUMMARY_FILE, json.dumps(run.summary, indent=2) + "\n")
    console.print(summary_table(run.summary))
    console.print(escape(run.summary["coverage"]), highlight=False)
    console.print(
        f"scored {len(run.results)} instances, {len(run.errors)} errors; "
        f"summary: {escape(str(output_dir / SUMMARY_FILE))}"
    )
    if run.errors:
        raise typer.Exit(1)
