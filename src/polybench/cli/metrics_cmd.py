"""``polybench metrics``: file and CST-node retrieval metrics, without running any test."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from polybench.atomic import atomic_write_text
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
from polybench.dataset.models import Instance
from polybench.dataset.predictions import (
    DEFAULT_MAX_PATCH_BYTES,
)
from polybench.environments.repos import RepoStore
from polybench.metrics.dataset_stats import LANGUAGE_ORDER
from polybench.metrics.retrieval import (
    InstanceRetrieval,
    RetrievalScorer,
    official_metrics_json,
    summarise,
)

SUMMARY_FILE = "metrics_summary.json"


def _percent(metrics: dict[str, float] | None, key: str) -> str:
    return "-" if metrics is None else f"{100 * metrics[key]:.1f}"


def summary_table(summary: dict[str, Any]) -> Table:
    """Mean file and node retrieval per language and overall, in percent."""
    table = Table(title="retrieval metrics (%)")
    table.add_column("language", no_wrap=True, min_width=10)
    for column in ("n", "file P", "file R", "file F1", "node n", "node P", "node R", "node F1"):
        table.add_column(column, justify="right")
    rows = [*summary["per_language"].items(), ("all", summary["overall"])]
    for name, group in rows:
        files, nodes = group["file_retrieval_metrics"], group["node_retrieval_metrics"]
        table.add_row(
            name,
            str(group["instances"]),
            *(_percent(files, key) for key in ("precision", "recall", "f1")),
            str(group["node_instances"]),
            *(_percent(nodes, key) for key in ("precision", "recall", "f1")),
            style="bold" if name == "all" else None,
        )
    return table


def build_metrics_summary(
    instances: list[Instance], results: dict[str, InstanceRetrieval], extra: dict[str, Any]
) -> dict[str, Any]:
    """``metrics_summary.json``: overall and per-language means, plus ``extra`` fields."""
    by_id = {instance.instance_id: instance for instance in instances}
    per_language = {
        language.value: summarise([r for i, r in results.items() if by_id[i].language is language])
        for language in LANGUAGE_ORDER
        if any(by_id[i].language is language for i in results)
    }
    return {
        **extra,
        "overall": summarise(list(results.values())),
        "per_language": per_language,
        "notes": {i: r.note for i, r in sorted(results.items()) if r.note},
    }


def metrics_command(
    output_dir: Annotated[
        Path, typer.Option(help="Where <instance_id>_metrics.json files are written.")
    ],
    dataset: DatasetOption = "mini",
    predictions: PredictionsOption = "gold",
    repo_dir: RepoDirOption = None,
    workers: Annotated[int, typer.Option(min=1, help="Instances scored in parallel.")] = 2,
    instance_ids: InstanceIdsOption = None,
    max_patch_bytes: Annotated[
        int, typer.Option(help="Predictions with a larger patch are rejected.")
    ] = DEFAULT_MAX_PATCH_BYTES,
    split: SplitOption = "test",
) -> None:
    """Compute file and CST-node retrieval metrics of predictions (no test is run)."""
    instances = load_instances_or_exit(dataset, split, instance_ids)
    prediction_set = load_predictions_or_exit(predictions, instances, max_patch_bytes)

    todo = [i for i in instances if i.instance_id in prediction_set.predictions]
    results: dict[str, InstanceRetrieval] = {}
    errors: dict[str, str] = {}
    output_dir.mkdir(parents=True, exist_ok=True)
    store = RepoStore(repo_dir=repo_dir_for(dataset, repo_dir))
    progress = Progress(
        TextColumn("[bold]scoring"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        disable=not console.is_terminal,
    )
    with RetrievalScorer(store) as scorer, progress, ThreadPoolExecutor(workers) as pool:
        task = progress.add_task("", total=len(todo))
        futures = {
            pool.submit(
                scorer.score, i, prediction_set.predictions[i.instance_id].model_patch
            ): i.instance_id
            for i in todo
        }
        for future in as_completed(futures):
            instance_id = futures[future]
            progress.advance(task)
            try:
                result = future.result()
            except Exception as exc:  # one instance's failure never stops the run
                errors[instance_id] = f"{type(exc).__name__}: {exc}"
                err_console.print(f"[red]error:[/red] {instance_id}: {errors[instance_id]}")
                continue
            results[instance_id] = result
            atomic_write_text(
                output_dir / f"{instance_id}_metrics.json",
                json.dumps(official_metrics_json(result), indent=2) + "\n",
            )

    summary = build_metrics_summary(
        instances,
        results,
        {
            "dataset": dataset,
            "predictions": predictions,
            "scored_instances": len(results),
            "instances_without_prediction": len(instances) - len(todo),
            "errors": dict(sorted(errors.items())),
            "input_problems": [str(problem) for problem in prediction_set.problems],
        },
    )
    summary_path = output_dir / SUMMARY_FILE
    atomic_write_text(summary_path, json.dumps(summary, indent=2) + "\n")
    console.print(summary_table(summary))
    console.print(f"scored {len(results)} instances, {len(errors)} errors; summary: {summary_path}")
    if errors:
        raise typer.Exit(1)
