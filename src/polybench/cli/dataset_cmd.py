"""``polybench dataset``: statistics of a dataset and a check of its complexity columns."""

from __future__ import annotations

import json
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from polybench.atomic import atomic_write_text
from polybench.cli.command_group import command_group
from polybench.cli.consoles import console, err_console, escape
from polybench.cli.inputs import (
    DatasetOption,
    RepoDirOption,
    SplitOption,
    load_instances_or_exit,
)

if TYPE_CHECKING:
    from polybench.dataset.models import Instance
    from polybench.metrics.column_check import ColumnCheck
    from polybench.metrics.complexity import ComplexityColumns

dataset_app = command_group("Inspect a dataset: Tables 1/2 statistics and its complexity columns.")

WorkersOption = Annotated[int, typer.Option(min=1, help="Gold patches analysed in parallel.")]


class Convention(str, Enum):
    """Whose node id convention the recomputed columns follow."""

    AUTO = "auto"
    OFFICIAL = "official"
    POLYBENCH = "polybench"


def _official(convention: Convention, dataset: str) -> bool:
    """``auto``: polybench's convention for the built-in datasets (polybench wrote their
    columns), the official one for every other dataset."""
    from polybench.dataset.builtin import BUILTIN_DATASETS

    if convention is Convention.AUTO:
        return dataset not in BUILTIN_DATASETS
    return convention is Convention.OFFICIAL


def _recompute_all(
    dataset: str,
    instances: list[Instance],
    repo_dir: Path | None,
    workers: int,
    official: bool = False,
) -> dict[str, ComplexityColumns | str]:
    from polybench.dataset.builtin import repo_dir_for
    from polybench.environments.repos import RepoStore
    from polybench.metrics.complexity import gold_columns
    from polybench.metrics.nodes import NodeAnalyzer

    analyzer = NodeAnalyzer(RepoStore(repo_dir=repo_dir_for(dataset, repo_dir)), official=official)
    try:
        found = gold_columns(instances, analyzer, workers)
    finally:
        analyzer.close()
    for instance_id, message in found.items():
        if isinstance(message, str):
            err_console.print(f"[yellow]warning:[/yellow] {escape(instance_id)}: {escape(message)}")
    return found


def _recompute(
    dataset: str, instances: list[Instance], repo_dir: Path | None, workers: int
) -> dict[str, ComplexityColumns]:
    from polybench.metrics.complexity import ComplexityColumns

    found = _recompute_all(dataset, instances, repo_dir, workers)
    return {i: c for i, c in found.items() if isinstance(c, ComplexityColumns)}


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
    from polybench.metrics.dataset_stats import dataset_statistics, files_table, nodes_table

    instances = load_instances_or_exit(dataset, split)
    columns = _recompute(dataset, instances, repo_dir, workers) if recompute else None
    stats = dataset_statistics(instances, columns)
    console.print(files_table(stats))
    console.print(nodes_table(stats))
    if json_output is not None:
        atomic_write_text(json_output, stats.model_dump_json(indent=2) + "\n")
        console.print(f"statistics: {escape(str(json_output))}")


def _print_mismatch(check: ColumnCheck) -> None:
    """One instance's differences, diff-like: ``-`` only in the dataset, ``+`` only ours."""
    what = "modified_nodes differ" if not check.nodes_match else "modified_nodes match"
    console.print(f"[bold]{escape(check.instance_id)}[/bold]: {what}", highlight=False)
    for node in check.only_in_dataset:
        console.print(f"  [red]- {escape(node)}[/red]", highlight=False)
    for node in check.only_recomputed:
        console.print(f"  [green]+ {escape(node)}[/green]", highlight=False)
    for column, (theirs, ours) in check.other_columns.items():
        console.print(f"  {column}: dataset {escape(str(theirs))}, recomputed {escape(str(ours))}")


@dataset_app.command("complexity")
def complexity_command(
    dataset: DatasetOption = "mini",
    repo_dir: RepoDirOption = None,
    workers: WorkersOption = 2,
    convention: Annotated[
        Convention,
        typer.Option(
            help="Node ids as the official harness writes them, as polybench does (also "
            "functions bound to a name, and new/deleted files), or auto: polybench's for "
            "built-in datasets, official for the others."
        ),
    ] = Convention.AUTO,
    output: Annotated[
        Path | None, typer.Option(help="Write the recomputed columns as JSON {id: columns}.")
    ] = None,
    report: Annotated[
        Path | None,
        typer.Option(help="Write the check of every instance as JSON (matches, differing ids)."),
    ] = None,
    check: Annotated[
        bool, typer.Option(help="Exit with status 1 when a column differs or a patch fails.")
    ] = False,
    split: SplitOption = "test",
) -> None:
    """Recompute the complexity columns from the gold patches and compare with the dataset.

    Each gold patch's node ids are compared as a set with the dataset's modified_nodes.
    """
    from polybench.metrics.column_check import check_columns, summarise_checks
    from polybench.metrics.complexity import ComplexityColumns

    instances = load_instances_or_exit(dataset, split)
    official = _official(convention, dataset)
    found = _recompute_all(dataset, instances, repo_dir, workers, official)
    checks = check_columns(instances, found)
    summary = summarise_checks(checks)
    differing = [c for c in checks if c.error is None and not c.matches]
    if differing:
        console.print("lines -: ids only in the dataset; +: ids only recomputed", style="dim")
    for mismatch in differing:
        _print_mismatch(mismatch)
    name = "official" if official else "polybench"
    console.print(
        f"{summary.instances} instances ({name} node ids): modified_nodes match on "
        f"{summary.nodes_match}, differ on {summary.nodes_differ}; other columns differ on "
        f"{summary.other_columns_differ}; {summary.errors} could not be recomputed"
    )
    if output is not None:
        data = {
            i: c.model_dump() for i, c in sorted(found.items()) if isinstance(c, ComplexityColumns)
        }
        atomic_write_text(output, json.dumps(data, indent=2) + "\n")
        console.print(f"recomputed columns: {escape(str(output))}")
    if report is not None:
        document = {
            "convention": name,
            "summary": summary.model_dump(),
            "instances": [c.model_dump() for c in checks],
        }
        atomic_write_text(report, json.dumps(document, indent=2) + "\n")
        console.print(f"check report: {escape(str(report))}")
    if check and not summary.all_match:
        raise typer.Exit(1)
