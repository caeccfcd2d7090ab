"""What several commands read from their options: a dataset, instance ids, predictions.

Each loader prints one clear error and exits with status 2 when the input cannot be used,
so that no command starts work on a bad dataset, an unknown id or an unreadable file.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from polybench.cli.consoles import err_console, escape
from polybench.cli.defaults import ISOLATION_MODES

if TYPE_CHECKING:
    from polybench.dataset.models import Instance
    from polybench.dataset.predictions import PredictionSet

DatasetOption = Annotated[
    str, typer.Option(help="Built-in name (mini), a CSV/JSONL/JSON/parquet file, or a hub name.")
]
PredictionsOption = Annotated[
    str,
    typer.Option(
        help="A predictions file (JSONL or JSON), or 'gold' / 'empty' for the dataset's own."
    ),
]
OutputDirOption = Annotated[Path, typer.Option("--output-dir", "-o", help="Where results go.")]
InstanceIdsOption = Annotated[
    list[str] | None,
    typer.Option(
        "--instance-ids",
        metavar="ID[,ID...]",
        help="Only these instances (repeat or comma-separate).",
    ),
]
RepoDirOption = Annotated[
    Path | None,
    typer.Option(help="Folder of local clones named <owner>__<name> (env POLYBENCH_REPO_DIR)."),
]
SplitOption = Annotated[str, typer.Option(help="Dataset split when loading from the hub.")]
IsolationOption = Annotated[
    str | None,
    typer.Option(
        help=f"Local backend isolation: {', '.join(ISOLATION_MODES)}"
        " (default auto: bubblewrap if it works)."
    ),
]
ExecutorOption = Annotated[
    str, typer.Option(help="Where instances run: local (threads here) or ray.")
]
RayAddressOption = Annotated[
    str | None,
    typer.Option(help="Ray: 'auto' or HOST:PORT of a cluster (default: start Ray here)."),
]
RayCpusPerTaskOption = Annotated[
    float, typer.Option(min=0.01, help="Ray: CPUs each instance's task asks for.")
]
RayMaxRetriesOption = Annotated[
    int, typer.Option(min=0, help="Ray: retries of a task whose worker or node is lost.")
]


def split_ids(values: list[str] | None) -> list[str] | None:
    """Instance ids from repeated and/or comma-separated option values; None when none."""
    if not values:
        return None
    ids = [part.strip() for value in values for part in value.split(",")]
    return [i for i in ids if i]


def load_dataset_file_or_exit(path: Path) -> list[Instance]:
    """The instances of a dataset file (what the construction stages read and write)."""
    from polybench.dataset.loaders import DatasetError, load_instances_from_file

    try:
        return load_instances_from_file(path)
    except DatasetError as exc:
        err_console.print(f"[red]error:[/red] {escape(str(exc))}")
        raise typer.Exit(2) from exc


def load_instances_or_exit(
    dataset: str, split: str, instance_ids: list[str] | None = None
) -> list[Instance]:
    """The dataset's instances, only the ``instance_ids`` when given (all must exist)."""
    return select_instances_or_exit(load_all_instances_or_exit(dataset, split), instance_ids)


def load_all_instances_or_exit(dataset: str, split: str) -> list[Instance]:
    """Every instance of the dataset."""
    from polybench.dataset.loaders import DatasetError, load_dataset

    try:
        return load_dataset(dataset, split=split)
    except DatasetError as exc:
        err_console.print(f"[red]error:[/red] {escape(str(exc))}")
        raise typer.Exit(2) from exc


def select_instances_or_exit(
    instances: list[Instance], instance_ids: list[str] | None
) -> list[Instance]:
    """The ``instance_ids`` of ``instances`` (all of them when None; all must exist)."""
    wanted = split_ids(instance_ids)
    if wanted is None:
        return instances
    known = {instance.instance_id for instance in instances}
    unknown = [i for i in wanted if i not in known]
    if unknown:
        err_console.print(f"[red]error:[/red] unknown instance ids: {escape(', '.join(unknown))}")
        raise typer.Exit(2)
    chosen = set(wanted)
    return [instance for instance in instances if instance.instance_id in chosen]


def load_predictions_or_exit(
    predictions: str,
    instances: list[Instance],
    max_patch_bytes: int,
    dataset_ids: list[str] | None = None,
) -> PredictionSet:
    """The predictions for ``instances`` (a selection of the dataset of ``dataset_ids``);
    each skipped item is printed as a warning; no usable prediction is bad input."""
    from polybench.dataset.predictions import PredictionsFileError, load_predictions

    try:
        prediction_set = load_predictions(
            predictions, instances, max_patch_bytes, dataset_ids=dataset_ids
        )
    except PredictionsFileError as exc:
        err_console.print(f"[red]error:[/red] {escape(str(exc))}")
        raise typer.Exit(2) from exc
    for problem in prediction_set.problems:
        err_console.print(f"[yellow]warning:[/yellow] {escape(f'predictions {problem} (skipped)')}")
    return prediction_set
