"""Load instances from the official file formats, the Hugging Face hub, or a built-in dataset."""

from __future__ import annotations

import csv
import json
import re
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from polybench import DISTRIBUTION
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
        raise DatasetError(
            f"reading parquet needs pyarrow: pip install '{DISTRIBUTION}[data]'"
        ) from exc
    table = pq.read_table(path)
    rows: list[dict[str, Any]] = table.to_pylist()
    return rows


def _read_rows(path: Path) -> Iterable[dict[str, Any]]:
    suffix = path.suffix.lower()
    if suffix == ".csv":
        return _read_csv(path)
    if suffix in {".jsonl", ".ndjson"}:
        return _read_jsonl(path)
    if suffix == ".json":
        return _read_json(path)
    if suffix in {".parquet", ".pq"}:
        return _read_parquet(path)
    raise DatasetError(f"{path}: unknown dataset format {suffix!r} (csv, jsonl, json, parquet)")


def load_instances_from_file(path: Path) -> list[Instance]:
    """Read instances from a CSV, JSONL, JSON or parquet file in the official column layout."""
    if not path.exists():
        raise DatasetError(f"dataset file {path} does not exist")
    return _rows_to_instances(_read_rows(path), str(path))


def _single_file_candidates(split: str) -> list[str]:
    """Repository paths tried, in order, for a split stored as one file."""
    return [
        candidate
        for suffix in (".csv", ".jsonl", ".json")
        for candidate in (f"{split}{suffix}", f"data/{split}{suffix}")
    ]


def _is_parquet_shard(repo_path: str, split: str) -> bool:
    """Whether ``repo_path`` is a parquet file of ``split`` in the hub's usual layouts.

    Accepted: ``test.parquet``, ``test-00000-of-00002.parquet`` (name starts with the split),
    ``default/test/0000.parquet`` (a folder named after the split) and
    ``data/polybench_test.parquet`` (under ``data/``, split name as a word of the file name).
    """
    if not repo_path.lower().endswith(".parquet"):
        return False
    *folders, base = repo_path.split("/")
    word = re.escape(split)
    if re.match(rf"{word}(?![A-Za-z0-9])", base):
        return True
    if split in folders:
        return True
    return (
        bool(folders)
        and folders[0] == "data"
        and re.search(rf"(?<![A-Za-z0-9]){word}(?![A-Za-z0-9])", base) is not None
    )


def select_split_files(repo_files: Iterable[str], split: str) -> list[str]:
    """Choose the file(s) of a dataset repository that hold ``split``.

    ``<split>.csv`` wins, then ``<split>.jsonl``, then ``<split>.json`` (each at the top level or
    under ``data/``), then every parquet shard of the split (sorted, to be read in order).
    Returns an empty list when nothing matches.
    """
    available = set(repo_files)
    for candidate in _single_file_candidates(split):
        if candidate in available:
            return [candidate]
    return sorted(path for path in available if _is_parquet_shard(path, split))


def _describe(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    if len(text) > 400:
        text = text[:400] + "..."
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _cached_repo_files(name: str, revision: str | None) -> list[str] | None:
    """Files of the cached snapshot of dataset repo ``name``, or None when nothing is cached."""
    from huggingface_hub import snapshot_download

    try:
        folder: Any = snapshot_download(
            repo_id=name, repo_type="dataset", revision=revision, local_files_only=True
        )
    except Exception as exc:
        # Some versions refuse a partial snapshot but still say where it is.
        folder = getattr(exc, "snapshot_path", None)
        if folder is None:
            return None
    root = Path(str(folder))
    if not root.is_dir():
        return None
    return sorted(item.relative_to(root).as_posix() for item in root.rglob("*") if item.is_file())


def load_instances_from_hub(
    name: str, split: str = "test", revision: str | None = None
) -> list[Instance]:
    """Load the ``split`` of the dataset repository ``name`` from the Hugging Face hub.

    The repository's files are listed, the file(s) of the split chosen by
    :func:`select_split_files`, downloaded into the hub cache and parsed like local files.
    The usual hub settings apply: ``HF_ENDPOINT``, ``HF_TOKEN``, ``HF_HOME``/``HF_HUB_CACHE``,
    and ``HF_HUB_OFFLINE=1`` to use the cached copy without any network access (also used
    as a fallback when the hub cannot be reached).
    """
    try:
        from huggingface_hub import HfApi, constants, hf_hub_download
        from huggingface_hub.errors import (
            LocalEntryNotFoundError,
            RepositoryNotFoundError,
            RevisionNotFoundError,
        )
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise DatasetError(
            "loading from the hub needs the 'huggingface_hub' package: "
            f"pip install '{DISTRIBUTION}[data]'"
        ) from exc

    at = f" at revision {revision!r}" if revision else ""
    where = f"dataset repo {name!r}{at} on {constants.ENDPOINT}"
    offline = False
    try:
        repo_files = HfApi().list_repo_files(name, repo_type="dataset", revision=revision)
    except RepositoryNotFoundError as exc:
        raise DatasetError(
            f"{where} was not found (or is private/gated: set HF_TOKEN): {_describe(exc)}"
        ) from exc
    except RevisionNotFoundError as exc:
        raise DatasetError(f"{where}: no such revision: {_describe(exc)}") from exc
    except Exception as exc:
        cached = _cached_repo_files(name, revision)
        if cached is None:
            raise DatasetError(
                f"could not list the files of {where} ({_describe(exc)}) "
                "and there is no cached copy of it"
            ) from exc
        repo_files, offline = cached, True

    chosen = select_split_files(repo_files, split)
    if not chosen:
        origin = "its cached copy (hub offline or unreachable)" if offline else "the repo"
        tried = ", ".join(_single_file_candidates(split))
        shown = ", ".join(repo_files[:20]) + (" ..." if len(repo_files) > 20 else "")
        raise DatasetError(
            f"{where}: no file for split {split!r} in {origin}; tried {tried} and parquet "
            f"files named after the split; files present: {shown or 'none'}"
        )

    instances: list[Instance] = []
    found_in: dict[str, str] = {}
    for repo_file in chosen:
        try:
            local = hf_hub_download(
                repo_id=name,
                filename=repo_file,
                repo_type="dataset",
                revision=revision,
                local_files_only=offline,
            )
        except RepositoryNotFoundError as exc:
            raise DatasetError(f"{where} was not found: {_describe(exc)}") from exc
        except LocalEntryNotFoundError as exc:
            raise DatasetError(
                f"could not download {repo_file!r} of {where}: the hub is not reachable "
                f"and the file is not in the cache ({_describe(exc)})"
            ) from exc
        except Exception as exc:
            raise DatasetError(
                f"could not download {repo_file!r} of {where}: {_describe(exc)}"
            ) from exc
        part = _rows_to_instances(_read_rows(Path(str(local))), f"hub:{name}/{repo_file}")
        for instance in part:
            earlier = found_in.setdefault(instance.instance_id, repo_file)
            if earlier != repo_file:
                raise DatasetError(
                    f"hub:{name}: duplicate instance_id {instance.instance_id!r} "
                    f"in {earlier} and {repo_file}"
                )
        instances.extend(part)
    return instances


def load_dataset(spec: str, split: str = "test", revision: str | None = None) -> list[Instance]:
    """Load a dataset named by ``spec``.

    ``spec`` is a built-in name (``mini``), a path to a local file, an official alias
    (``verified``, ``500``, ``full``) or a hub name (``AmazonScience/SWE-PolyBench_Verified``).
    ``split`` and ``revision`` (branch, tag or commit) only apply to hub datasets.
    """
    from polybench.dataset.builtin import BUILTIN_DATASETS, load_builtin

    if spec in BUILTIN_DATASETS:
        return load_builtin(spec)
    path = Path(spec)
    if path.exists():
        return load_instances_from_file(path)
    hub_name = HUB_ALIASES.get(spec.lower(), spec)
    if "/" in hub_name and not path.suffix:
        return load_instances_from_hub(hub_name, split=split, revision=revision)
    raise DatasetError(
        f"no dataset {spec!r}: not a built-in dataset ({', '.join(BUILTIN_DATASETS)}), "
        "not an existing file, and not a hub name like AmazonScience/SWE-PolyBench_Verified"
    )
