"""What several commands read from their options: a dataset, instance ids, predictions.

Each loader prints one clear error and exits with status 2 when the input cannot be used,
so that no command starts work on a bad dataset, an unknown id or an unreadable file.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from polybench.cli.consoles import err_console
from polybench.dataset.builtin import BUILTIN_DATASETS, materialise_builtin_repos
from polybench.dataset.loaders import DatasetError, load_dataset, load_instances_from_file
from polybench.dataset.models import Instance
from polybench.dataset.predictions import PredictionSet, PredictionsFileError, load_predictions
from polybench.paths import cache_root

DatasetOption = Annotated[
    str, typer.Option(help="Built-in name (mini), a CSV/JSONL/JSON/parquet file, or a hub name.")
]
PredictionsOption = Annotated[
    str, typer.Option(help="'gold', 'empty', or a predictions file (JSONL or JSON).")
]
InstanceIdsOption = Annotated[
    list[str] | None,
    typer.Option("--instance-ids", help="Only these instances (repeat or comma-separate)."),
]
RepoDirOption = Annotated[
    Path | None,
    typer.Option(help="Folder of local clones named <owner>__<name> (env POLYBENCH_REPO_DIR)."),
]
SplitOption = Annotated[str, typer.Option(help="Dataset split when loading from the hub.")]


def split_ids(values: list[str] | None) -> list[str] | None:
    """Instance ids from repeated and/or comma-separated option values; None when none."""
    if not values:
        return None
    ids = [part.strip() for value in values for part in value.split(",")]
    return [i for i in ids if i]


def repo_dir_for(dataset: str, repo_dir: Path | None) -> Path | None:
    """The folder of clones for ``dataset``: the built-in repositories (materialised on
    first use), ``repo_dir``, or ``$POLYBENCH_REPO_DIR``."""
    if dataset in BUILTIN_DATASETS:
        target = cache_root() / "builtin" / dataset / "repos"
        materialise_builtin_repos(dataset, target)
        return target
    return repo_dir_or_env(repo_dir)


def repo_dir_or_env(repo_dir: Path | None) -> Path | None:
    """``repo_dir``, else ``$POLYBENCH_REPO_DIR`` when it is set, else None."""
    if repo_dir is None and os.environ.get("POLYBENCH_REPO_DIR"):
        return Path(os.environ["POLYBENCH_REPO_DIR"])
    return repo_dir


def load_dataset_file_or_exit(path: Path) -> list[Instance]:
    """The instances of a dataset file (what the construction stages read and write)."""
    try:
        return load_instances_from_file(path)
    except DatasetError as exc:
        err_console.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from exc


def load_instances_or_exit(
    dataset: str, split: str, instance_ids: list[str] | None = None
) -> list[Instance]:
    """The dataset's instances, only the ``instance_ids`` when given (all must exist)."""
    try:
        instances = load_dataset(dataset, split=split)
    except DatasetError as exc:
        err_console.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from exc
    wanted = split_ids(instance_ids)
    if wanted is None:
        return instances
    known = {instance.instance_id for instance in instances}
    unknown = [i for i in wanted if i not in known]
    if unknown:
        err_console.print(f"[red]error:[/red] unknown instance ids: {', '.join(unknown)}")
        raise typer.Exit(2)
    chosen = set(wanted)
    return [instance for instance in instances if instance.instance_id in chosen]


def load_predictions_or_exit(
    predictions: str, instances: list[Instance], max_patch_bytes: int
) -> PredictionSet:
    """The predictions for ``instances``; each skipped item is printed as a warning."""
    try:
        prediction_set = load_predictions(predictions, instances, max_patch_bytes)
    except PredictionsFileError as exc:
        err_console.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from exc
    for problem in prediction_set.problems:
        err_console.print(f"[yellow]warning:[/yellow] predictions {problem} (skipped)")
    return prediction_set
