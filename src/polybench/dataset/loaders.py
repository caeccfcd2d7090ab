"""Load instances from the official file formats, the Hugging Face hub, or a built-in dataset."""

from __future__ import annotations

import csv
import json
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from polybench.dataset.models import Instance

HUB_ALIASES = {
    "full": "AmazonScience/SWE-PolyBench",
    "pb": "AmazonScience/SWE-PolyBench",
    "500": "AmazonScience/SWE-PolyBench_500",
    "pb500": "AmazonScience/SWE-PolyBench_500",
    "verified": "AmazonScience/SWE-PolyBench_Verified",
    "pbv": "AmazonScience/SWE-PolyBench_Verified",
}
"""Short names for the official datasets on the hub."""


class DatasetError(ValueError):
    """A dataset could not be read; the message says which file/row and why."""


def _rows_to_instances(rows: Iterable[dict[str, Any]], source: str) -> list[Instance]:
    instances: list[Instance] = []
    seen: set[str] = set()
    for index, row in enumerate(rows, start=1):
        try:
            instance = Instance.model_validate(row)
        except ValidationError as exc:
            ident = row.get("instance_id", "?") if isinstance(row, dict) else "?"
            first = exc.errors()[0]
            where = ".".join(str(part) for part in first["loc"])
            raise DatasetError(
                f"{source}: row {index} (instance_id={ident!r}): {where}: {first['msg']}"
            ) from exc
        if instance.instance_id in seen:
            raise DatasetError(f"{source}: duplicate instance_id {instance.instance_id!r}")
        seen.add(instance.instance_id)
        instances.append(instance)
    return instances


def _read_csv(path: Path) -> Iterator[dict[str, Any]]:
    # Official CSV cells hold whole patches and Dockerfiles: lift the field size limit.
    csv.field_size_limit(min(sys.maxsize, 2**31 - 1))
    with path.open(newline="", encoding="utf-8") as handle:
        yield from csv.DictReader(handle)


def _read_jsonl(path: Path) -> Iterator[dict[str, Any]]:
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                item = json.loads(line)
            except json.JSONDecodeError as exc:
                raise DatasetError(f"{path}:{number}: not valid JSON: {exc.msg}") from exc
            if not isinstance(item, dict):
                raise DatasetError(f"{path}:{number}: expected a JSON object")
            yield item


def _read_json(path: Path) -> list[dict[str, Any]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    if isinstance(data, dict):
        # {"instance_id": {...}} or {"data": [...]} or a single instance
        if "instance_id" in data:
            data = [data]
        elif isinstance(data.get("data"), list):
            data = data["data"]
        else:
            data = list(data.values())
    if not isinstance(data, list) or not all(isinstance(item, dict) for item in data):
        raise DatasetError(f"{path}: expected a JSON list of objects")
    return data


def _read_parquet(path: Path) -> list[dict[str, Any]]:
    try:
        import pyarrow.parquet as pq
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise DatasetError("reading parquet needs pyarrow: pip install 'polybench[data]'") from exc
    table = pq.read_table(path)
    rows: list[dict[str, Any]] = table.to_pylist()
    return rows


def load_instances_from_file(path: Path) -> list[Instance]:
    """Read instances from a CSV, JSONL, JSON or parquet file in the official column layout."""
    if not path.exists():
        raise DatasetError(f"dataset file {path} does not exist")
    suffix = path.suffix.lower()
    rows: Iterable[dict[str, Any]]
    if suffix == ".csv":
        rows = _read_csv(path)
    elif suffix in {".jsonl", ".ndjson"}:
        rows = _read_jsonl(path)
    elif suffix == ".json":
        rows = _read_json(path)
    elif suffix in {".parquet", ".pq"}:
        rows = _read_parquet(path)
    else:
        raise DatasetError(f"{path}: unknown dataset format {suffix!r} (csv, jsonl, json, parquet)")
    return _rows_to_instances(rows, str(path))


def load_instances_from_hub(name: str, split: str = "test") -> list[Instance]:
    """Load an official dataset from the Hugging Face hub by name (needs network access)."""
    try:
        import datasets
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise DatasetError(
            "loading from the hub needs the 'datasets' package: pip install 'polybench[data]'"
        ) from exc
    try:
        hub_dataset = datasets.load_dataset(name, split=split)
    except Exception as exc:
        raise DatasetError(f"could not load {name!r} from the Hugging Face hub: {exc}") from exc
    return _rows_to_instances((dict(row) for row in hub_dataset), f"hub:{name}")


def load_dataset(spec: str, split: str = "test") -> list[Instance]:
    """Load a dataset named by ``spec``.

    ``spec`` is a built-in name (``mini``), a path to a local file, an official alias
    (``verified``, ``500``, ``full``) or a hub name (``AmazonScience/SWE-PolyBench_Verified``).
    """
    from polybench.dataset.builtin import BUILTIN_DATASETS, load_builtin

    if spec in BUILTIN_DATASETS:
        return load_builtin(spec)
    path = Path(spec)
    if path.exists():
        return load_instances_from_file(path)
    hub_name = HUB_ALIASES.get(spec.lower(), spec)
    if "/" in hub_name and not path.suffix:
        return load_instances_from_hub(hub_name, split=split)
    raise DatasetError(
        f"no dataset {spec!r}: not a built-in dataset ({', '.join(BUILTIN_DATASETS)}), "
        "not an existing file, and not a hub name like AmazonScience/SWE-PolyBench_Verified"
    )
