"""Token usage carried by predictions, under the spellings agents use for it.

Predictions may report what solving an instance cost, as extra fields. Accepted, at the
top level of a prediction or inside one of ``usage``, ``token_usage``, ``tokens``,
``model_stats``, ``stats``, ``metrics`` or ``info`` (nested up to two levels, e.g.
``info.model_stats``):

- input: ``input_tokens``, ``prompt_tokens``, ``tokens_sent``, ``tokens_in``,
  ``n_input_tokens`` (and ``input`` inside a container); ``cache_creation_input_tokens``
  and ``cache_read_input_tokens`` are added to ``input_tokens`` (they are counted apart
  from it in that spelling);
- output: ``output_tokens``, ``completion_tokens``, ``tokens_received``, ``tokens_out``,
  ``n_output_tokens`` (and ``output`` inside a container).

Numbers may be ints, floats or numeric strings; anything else is ignored.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from polybench.dataset.predictions import PredictionsFileError, read_predictions_file

INPUT_KEYS = ("input_tokens", "prompt_tokens", "tokens_sent", "tokens_in", "n_input_tokens")
OUTPUT_KEYS = (
    "output_tokens",
    "completion_tokens",
    "tokens_received",
    "tokens_out",
    "n_output_tokens",
)
CACHE_INPUT_KEYS = ("cache_creation_input_tokens", "cache_read_input_tokens")
CONTAINERS = ("usage", "token_usage", "tokens", "model_stats", "stats", "metrics", "info")


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        number = float(value)
    elif isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            return None
    else:
        return None
    if number != number or number < 0 or number == float("inf"):
        return None
    return number


def _first(fields: Mapping[str, Any], keys: tuple[str, ...]) -> float | None:
    for key in keys:
        number = _number(fields.get(key))
        if number is not None:
            return number
    return None


def _direct(fields: Mapping[str, Any], nested: bool) -> tuple[float, float] | None:
    in_keys = (*INPUT_KEYS, "input") if nested else INPUT_KEYS
    out_keys = (*OUTPUT_KEYS, "output") if nested else OUTPUT_KEYS
    tokens_in = _first(fields, in_keys)
    tokens_out = _first(fields, out_keys)
    if tokens_in is None or tokens_out is None:
        return None
    if _number(fields.get("input_tokens")) is not None:
        tokens_in += sum(_number(fields.get(key)) or 0.0 for key in CACHE_INPUT_KEYS)
    return tokens_in, tokens_out


def token_usage(fields: Mapping[str, Any], depth: int = 0) -> tuple[float, float] | None:
    """``(input_tokens, output_tokens)`` found in a prediction's fields, or None."""
    found = _direct(fields, nested=depth > 0)
    if found is not None or depth >= 2:
        return found
    for name in CONTAINERS:
        inner = fields.get(name)
        if isinstance(inner, Mapping):
            found = token_usage(inner, depth + 1)
            if found is not None:
                return found
    return None


def usage_from_predictions(path: Path) -> dict[str, tuple[float, float]]:
    """Token usage by instance id from a predictions file (items without usage left out).

    Raises :class:`~polybench.dataset.predictions.PredictionsFileError` when the file
    cannot be read at all.
    """
    predictions = read_predictions_file(path)
    usage = {}
    for instance_id, prediction in predictions.predictions.items():
        found = token_usage(prediction.model_extra or {})
        if found is not None:
            usage[instance_id] = found
    return usage


__all__ = ["PredictionsFileError", "token_usage", "usage_from_predictions"]
