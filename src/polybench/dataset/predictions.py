"""Read predictions files item by item: bad items are reported and skipped, good ones kept.

A predictions file is JSONL (one object a line), a JSON list of objects, or a JSON object
keyed by instance id. ``gold`` and ``empty`` name synthetic predictions built from the
dataset itself.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from polybench.dataset.models import Instance, Prediction

DEFAULT_MAX_PATCH_BYTES = 20 * 1024 * 1024
GOLD = "gold"
EMPTY = "empty"


@dataclass(frozen=True)
class InputProblem:
    """One item of the input that cannot be used, and why."""

    where: str
    instance_id: str | None
    message: str

    def __str__(self) -> str:
        ident = f" ({self.instance_id})" if self.instance_id else ""
        return f"{self.where}{ident}: {self.message}"


@dataclass
class PredictionSet:
    """The usable predictions by instance id, and every problem met while reading."""

    predictions: dict[str, Prediction] = field(default_factory=dict)
    problems: list[InputProblem] = field(default_factory=list)
    source: str = ""


class PredictionsFileError(ValueError):
    """The predictions file as a whole cannot be read (missing, not JSON at all, ...)."""


def _iter_jsonl(raw: bytes) -> Iterator[tuple[str, Any | InputProblem]]:
    for number, line in enumerate(raw.split(b"\n"), start=1):
        where = f"line {number}"
        if not line.strip():
            continue
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError as exc:
            yield where, InputProblem(where, None, f"not UTF-8 (byte {exc.start}): {exc.reason}")
            continue
        try:
            yield where, json.loads(text)
        except json.JSONDecodeError as exc:
            yield (
                where,
                InputProblem(where, None, f"malformed JSON: {exc.msg} at column {exc.colno}"),
            )


def _iter_json_document(raw: bytes, path: Path) -> Iterator[tuple[str, Any | InputProblem]]:
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise PredictionsFileError(f"{path}: not UTF-8 at byte {exc.start}") from exc
    except json.JSONDecodeError as exc:
        raise PredictionsFileError(
            f"{path}: malformed JSON: {exc.msg} (line {exc.lineno})"
        ) from exc
    if isinstance(data, dict):
        if "instance_id" in data:
            yield "item 1", data
            return
        for key, value in data.items():
            if isinstance(value, dict):
                value = {"instance_id": key, **value}
            yield f"key {key!r}", value
        return
    if not isinstance(data, list):
        raise PredictionsFileError(f"{path}: expected a list or object, got {type(data).__name__}")
    for index, item in enumerate(data, start=1):
        yield f"item {index}", item


def _validate(
    items: Iterable[tuple[str, Any | InputProblem]],
    known_ids: set[str] | None,
    max_patch_bytes: int,
    result: PredictionSet,
) -> None:
    first_seen: dict[str, str] = {}
    for where, item in items:
        if isinstance(item, InputProblem):
            result.problems.append(item)
            continue
        if not isinstance(item, dict):
            result.problems.append(
                InputProblem(where, None, f"expected a JSON object, got {type(item).__name__}")
            )
            continue
        raw_id = item.get("instance_id")
        ident = raw_id if isinstance(raw_id, str) else None
        try:
            prediction = Prediction.model_validate(item)
        except ValidationError as exc:
            first = exc.errors()[0]
            field_name = ".".join(str(part) for part in first["loc"]) or "item"
            result.problems.append(InputProblem(where, ident, f"{field_name}: {first['msg']}"))
            continue
        ident = prediction.instance_id
        try:
            size = len(prediction.model_patch.encode("utf-8"))
        except UnicodeEncodeError:
            result.problems.append(
                InputProblem(where, ident, "model_patch holds text that is not valid UTF-8")
            )
            continue
        if size > max_patch_bytes:
            result.problems.append(
                InputProblem(
                    where,
                    ident,
                    f"model_patch is {size / 1e6:.1f} MB, over the limit of "
                    f"{max_patch_bytes / 1e6:.1f} MB (--max-patch-bytes)",
                )
            )
            continue
        if "\x00" in prediction.model_patch:
            result.problems.append(InputProblem(where, ident, "model_patch contains NUL bytes"))
            continue
        if ident in first_seen:
            result.problems.append(
                InputProblem(
                    where, ident, f"duplicate instance_id (first at {first_seen[ident]}, kept)"
                )
            )
            continue
        if known_ids is not None and ident not in known_ids:
            result.problems.append(
                InputProblem(where, ident, "unknown instance_id for this dataset")
            )
            continue
        first_seen[ident] = where
        result.predictions[ident] = prediction


def read_predictions_file(
    path: Path,
    known_ids: set[str] | None = None,
    max_patch_bytes: int = DEFAULT_MAX_PATCH_BYTES,
) -> PredictionSet:
    """Read a predictions file; items that cannot be used become ``problems``."""
    if not path.is_file():
        raise PredictionsFileError(f"predictions file {path} does not exist")
    raw = path.read_bytes()
    result = PredictionSet(source=str(path.resolve()))
    stripped = raw.lstrip()
    is_document = path.suffix.lower() == ".json" or stripped.startswith(b"[")
    items = _iter_json_document(raw, path) if is_document else _iter_jsonl(raw)
    _validate(items, known_ids, max_patch_bytes, result)
    return result


def synthetic_predictions(kind: str, instances: Iterable[Instance]) -> PredictionSet:
    """``gold`` (each instance's own patch) or ``empty`` (no patch) predictions."""
    if kind not in (GOLD, EMPTY):
        raise ValueError(f"unknown synthetic predictions {kind!r}")
    result = PredictionSet(source=kind)
    for instance in instances:
        patch = instance.patch if kind == GOLD else ""
        result.predictions[instance.instance_id] = Prediction(
            instance_id=instance.instance_id, model_patch=patch, model_name_or_path=kind
        )
    return result


def load_predictions(
    spec: str,
    instances: list[Instance],
    max_patch_bytes: int = DEFAULT_MAX_PATCH_BYTES,
) -> PredictionSet:
    """Predictions for ``instances`` from ``gold``, ``empty`` or a file path."""
    if spec in (GOLD, EMPTY):
        return synthetic_predictions(spec, instances)
    known = {instance.instance_id for instance in instances}
    return read_predictions_file(Path(spec), known, max_patch_bytes)
