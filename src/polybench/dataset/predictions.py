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
EXPECTED_KEYS = ("instance_id", "model_patch", "model_name_or_path")
"""The keys of a prediction (``model_name_or_path`` may be left out; others are kept)."""
EXPECTED_FORMAT = (
    "expected JSONL, a JSON list or a JSON object keyed by instance id, with the keys "
    + ", ".join(EXPECTED_KEYS)
)

# What made an item unusable, to say why a whole file is.
NOT_JSON = "not_json"
WRONG_KEYS = "wrong_keys"
UNKNOWN_ID = "unknown_id"
OTHER = "other"


@dataclass(frozen=True)
class InputProblem:
    """One item of the input that cannot be used, and why."""

    where: str
    instance_id: str | None
    message: str
    kind: str = OTHER
    """``not_json``, ``wrong_keys``, ``unknown_id`` or ``other``."""
    keys: tuple[str, ...] = ()
    """The item's keys, when they were the problem."""

    def __str__(self) -> str:
        ident = f" ({self.instance_id})" if self.instance_id else ""
        return f"{self.where}{ident}: {self.message}"


@dataclass
class PredictionSet:
    """The usable predictions by instance id, and every problem met while reading."""

    predictions: dict[str, Prediction] = field(default_factory=dict)
    problems: list[InputProblem] = field(default_factory=list)
    source: str = ""
    left_out: int = 0
    """Predictions for instances of the dataset that were not chosen (not problems)."""


class PredictionsFileError(ValueError):
    """The predictions file as a whole cannot be read (missing, not JSON at all, ...)."""


class NoUsablePredictions(PredictionsFileError):
    """The file was read, but not one of its items is a prediction for a chosen instance."""


def _iter_jsonl(raw: bytes) -> Iterator[tuple[str, Any | InputProblem]]:
    for number, line in enumerate(raw.split(b"\n"), start=1):
        where = f"line {number}"
        if not line.strip():
            continue
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError as exc:
            message = f"not UTF-8 (byte {exc.start}): {exc.reason}"
            yield where, InputProblem(where, None, message, NOT_JSON)
            continue
        try:
            yield where, json.loads(text)
        except json.JSONDecodeError as exc:
            message = f"malformed JSON: {exc.msg} at column {exc.colno}"
            yield where, InputProblem(where, None, message, NOT_JSON)


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


def _keys(keys: Iterable[str]) -> str:
    shown = sorted(str(key) for key in keys)
    return ", ".join(shown[:8]) + (" ..." if len(shown) > 8 else "") if shown else "no key"


def _missing_keys(where: str, ident: str | None, item: dict[str, Any]) -> InputProblem | None:
    """The problem with an item whose required keys are absent, or None."""
    missing = [key for key in EXPECTED_KEYS[:2] if key not in item]
    if not missing:
        return None
    message = (
        f"no {' or '.join(missing)} key (expected keys {', '.join(EXPECTED_KEYS)}; "
        f"this item has {_keys(item)})"
    )
    return InputProblem(where, ident, message, WRONG_KEYS, tuple(str(key) for key in item))


def _validate(
    items: Iterable[tuple[str, Any | InputProblem]],
    known_ids: set[str] | None,
    max_patch_bytes: int,
    result: PredictionSet,
    chosen_ids: set[str] | None = None,
) -> None:
    first_seen: dict[str, str] = {}
    for where, item in items:
        if isinstance(item, InputProblem):
            result.problems.append(item)
            continue
        if not isinstance(item, dict):
            message = f"expected a JSON object, got {type(item).__name__}"
            result.problems.append(InputProblem(where, None, message, WRONG_KEYS))
            continue
        raw_id = item.get("instance_id")
        ident = raw_id if isinstance(raw_id, str) else None
        keys = _missing_keys(where, ident, item)
        if keys is not None:
            result.problems.append(keys)
            continue
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
                InputProblem(where, ident, "unknown instance_id for this dataset", UNKNOWN_ID)
            )
            continue
        first_seen[ident] = where
        if chosen_ids is not None and ident not in chosen_ids:
            result.left_out += 1
            continue
        result.predictions[ident] = prediction


def _why_unusable(raw: bytes, result: PredictionSet) -> str:
    """Why a file that was read gave no usable prediction, in a few words."""
    if not raw.strip():
        return "the file is empty"
    problems = result.problems
    if not problems:
        if result.left_out:
            return (
                f"its {result.left_out} predictions are all for instances that were not "
                "chosen (--instance-ids)"
            )
        return "it holds no prediction"
    kinds = {problem.kind for problem in problems}
    first = problems[0]
    example = f"{first.where}: {first.message}"
    if kinds == {NOT_JSON}:
        return f"it is not JSON ({example})"
    if kinds == {WRONG_KEYS}:
        if first.message.startswith("no "):
            return f"no item has the keys of a prediction ({first.where} has {_keys(first.keys)})"
        return f"no item is a prediction ({example})"
    if kinds == {UNKNOWN_ID}:
        ids = sorted({p.instance_id for p in problems if p.instance_id})
        shown = ", ".join(ids[:3]) + (" ..." if len(ids) > 3 else "")
        return (
            f"none of its {len(ids)} instance ids is in the dataset ({shown}): predictions "
            "of another dataset?"
        )
    return f"none of its {len(problems)} items is usable ({example})"


def require_usable(raw: bytes, result: PredictionSet, path: Path) -> PredictionSet:
    """``result``, or :class:`NoUsablePredictions` naming the file, what was wrong and the
    expected keys when not one item can be used."""
    if result.predictions:
        return result
    raise NoUsablePredictions(
        f"{path}: no usable prediction: {_why_unusable(raw, result)}; {EXPECTED_FORMAT}"
    )


def read_predictions_file(
    path: Path,
    known_ids: set[str] | None = None,
    max_patch_bytes: int = DEFAULT_MAX_PATCH_BYTES,
    chosen_ids: set[str] | None = None,
    allow_none: bool = False,
) -> PredictionSet:
    """Read a predictions file; items that cannot be used become ``problems``.

    Predictions for ``known_ids`` outside ``chosen_ids`` are left out quietly (counted in
    ``left_out``). Raises :class:`NoUsablePredictions` when no item is usable, unless
    ``allow_none``.
    """
    if not path.is_file():
        raise PredictionsFileError(f"predictions file {path} does not exist")
    raw = path.read_bytes()
    result = PredictionSet(source=str(path.resolve()))
    stripped = raw.lstrip()
    is_document = path.suffix.lower() == ".json" or stripped.startswith(b"[")
    items = _iter_json_document(raw, path) if is_document and stripped else _iter_jsonl(raw)
    _validate(items, known_ids, max_patch_bytes, result, chosen_ids)
    return result if allow_none else require_usable(raw, result, path)


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
    dataset_ids: Iterable[str] | None = None,
) -> PredictionSet:
    """Predictions for ``instances`` from ``gold``, ``empty`` or a file path.

    ``dataset_ids`` are the ids of the whole dataset when ``instances`` are a selection of
    it: predictions for the others are left out quietly, not reported as unknown. Raises
    :class:`NoUsablePredictions` when the file holds no prediction for ``instances``.
    """
    if spec in (GOLD, EMPTY):
        return synthetic_predictions(spec, instances)
    chosen = {instance.instance_id for instance in instances}
    known = chosen | set(dataset_ids or ())
    return read_predictions_file(Path(spec), known, max_patch_bytes, chosen_ids=chosen)
