"""``polybench dataset``: statistics of a dataset and a check of its complexity columns."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from polybench.atomic import atomic_write_text
from polybench.cli.consoles import console, err_console
from polybench.cli.inputs import (
    DatasetOption,
    RepoDirOption,
    SplitOption,
    load_instances_or_exit,
    repo_dir_for,
)
from polybench.dataset.models import Instance
from polybench.environments.repos import RepoStore
from polybench.metrics.complexity import ComplexityColumns, column_mismatches, gold_columns
from polybench.metrics.dataset_stats import dataset_statistics, files_table, nodes_table
from polybench.metrics.nodes import NodeAnalyzer

dataset_app = typer.Typer(
    help="Inspect a dataset: Tables 1/2 statistics and its complexity columns.",
    no_args_is_help=True,
)

WorkersOption = Annotated[int, typer.Option(min=1, help="Gold patches analysed in parallel.")]


def _recompute(
    dataset: str, instances: list[Instance], repo_dir: Path | None, workers: int
) -> tuple[dict[str, ComplexityColumns], dict[str, str]]:
    analyzer = NodeAnalyzer(RepoStore(repo_dir=repo_dir_for(dataset, repo_dir)))
    try:
        found = gold_columns(instances, analyzer, workers)
    finally:
        analyzer.close()
    columns = {i: c for i, c in found.items() if isinstance(c, ComplexityColumns)}
    errors = {i: c for i, c in found.items() if isinstance(c, str)}
    for instance_id, message in errors.items():
        err_console.print(f"[yellow]warning:[/yellow] {instance_id}: {message}")
    return columns, errors


@dataset_app.command("stats")
def stats_command(
    dataset: DatasetOption = "mini",
    repo_dir: RepoDirOption = None,
    recompute: Annotated[
        bool, typer.Option(help="Recompute the node columns from the gold patches.")
    ] = False,
    workers: WorkersOption = 2,
    json_output: Annotated[
        Path | None, typer.Option("--json", help="Also write the statistics as JSON here.")
    ] = None,
    split: SplitOption = "test",
) -> None:
    """Print the paper's Tables 1 and 2 statistics of a dataset."""
    instances = load_instances_or_exit(dataset, split)
    columns = _recompute(dataset, instances, repo_dir, workers)[0] if recompute else None
    stats = dataset_statistics(instances, columns)
    console.print(files_table(stats))
    console.print(nodes_table(stats))
    if json_output is not None:
        atomic_write_text(json_output, stats.model_dump_json(indent=2) + "\n")
        console.print(f"statistics: {json_output}")


def _value(value: object) -> str:
    if isinstance(value, list):
        return "\n".join(str(item) for item in value) or "[]"
    return str(value)


@dataset_app.command("complexity")
def complexity_command(
    dataset: DatasetOption = "mini",
    repo_dir: RepoDirOption = None,
    workers: WorkersOption = 2,
    output: Annotated[
        Path | None, typer.Option(help="Write the recomputed columns as JSON {id: columns}.")
    ] = None,
    check: Annotated[
        bool, typer.Option(help="Exit with status 1 when a column differs or a patch fails.")
    ] = False,
    split: SplitOption = "test",
) -> None:
    """Recompute the complexity columns from the gold patches and compare with the dataset."""
    instances = load_instances_or_exit(dataset, split)
    columns, errors = _recompute(dataset, instances, repo_dir, workers)
    table = Table(title="complexity columns that differ from the dataset")
    for name in ("instance", "column", "dataset", "recomputed"):
        table.add_column(name)
    differing = 0
    for instance in instances:
        computed = columns.get(instance.instance_id)
        if computed is None:
            continue
        mismatches = column_mismatches(instance, computed)
        differing += bool(mismatches)
        for column, theirs in mismatches.items():
            table.add_row(
                instance.instance_id, column, _value(theirs), _value(getattr(computed, column))
            )
    if differing:
        console.print(table)
    console.print(
        f"{len(instances)} instances: {len(columns) - differing} match, {differing} differ, "
        f"{len(errors)} could not be recomputed"
    )
    if output is not None:
        data = {i: c.model_dump() for i, c in sorted(columns.items())}
        atomic_write_text(output, json.dumps(data, indent=2) + "\n")
        console.print(f"recomputed columns: {output}")
    if check and (differing or errors):
        raise typer.Exit(1)
