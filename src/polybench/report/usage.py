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
  ``n_output_tokens`` (and ``output`` inside a container);
- cached (optional, next to the input and output): ``cached_tokens``,
  ``cache_read_input_tokens``, ``cache_read_tokens``, ``cached_input_tokens``, or
  ``cached_tokens`` inside ``prompt_tokens_details`` / ``input_tokens_details``. Cached
  tokens are a part of the input tokens (read from a cache, often at a lower price).

Agent runs write ``usage: {input_tokens, output_tokens, cached_tokens}`` (cached as a
part of the input, as the Chat Completions API counts them).

Numbers may be ints, floats or numeric strings; anything else is ignored.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
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
CACHED_KEYS = (
    "cached_tokens",
    "cache_read_input_tokens",
    "cache_read_tokens",
    "cached_input_tokens",
)
CACHED_DETAILS = ("prompt_tokens_details", "input_tokens_details")
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


@dataclass(frozen=True)
class Usage:
    """What solving one instance cost in tokens; ``cached`` is a part of ``input``."""

    input: float
    output: float
    cached: float | None = None

    @property
    def pair(self) -> tuple[float, float]:
        """``(input, output)``."""
        return self.input, self.output


def _cached(fields: Mapping[str, Any]) -> float | None:
    found = _first(fields, CACHED_KEYS)
    if found is not None:
        return found
    for name in CACHED_DETAILS:
        details = fields.get(name)
        if isinstance(details, Mapping):
            found = _number(details.get("cached_tokens"))
            if found is not None:
                return found
    return None


def _direct(fields: Mapping[str, Any], nested: bool) -> Usage | None:
    in_keys = (*INPUT_KEYS, "input") if nested else INPUT_KEYS
    out_keys = (*OUTPUT_KEYS, "output") if nested else OUTPUT_KEYS
    tokens_in = _first(fields, in_keys)
    tokens_out = _first(fields, out_keys)
    if tokens_in is None or tokens_out is None:
        return None
    if _number(fields.get("input_tokens")) is not None:
        tokens_in += sum(_number(fields.get(key)) or 0.0 for key in CACHE_INPUT_KEYS)
    cached = _cached(fields)
    return Usage(tokens_in, tokens_out, None if cached is None else min(cached, tokens_in))


def usage_of(fields: Mapping[str, Any], depth: int = 0) -> Usage | None:
    """The token usage found in a prediction's fields (see the module docstring), or None."""
    found = _direct(fields, nested=depth > 0)
    if found is not None or depth >= 2:
        return found
    for name in CONTAINERS:
        inner = fields.get(name)
        if isinstance(inner, Mapping):
            found = usage_of(inner, depth + 1)
            if found is not None:
                return found
    return None


def token_usage(fields: Mapping[str, Any], depth: int = 0) -> tuple[float, float] | None:
    """``(input_tokens, output_tokens)`` found in a prediction's fields, or None."""
    found = usage_of(fields, depth)
    return None if found is None else found.pair


def usage_records(path: Path) -> dict[str, Usage]:
    """Token usage by instance id from a predictions file (items without usage left out).

    Raises :class:`~polybench.dataset.predictions.PredictionsFileError` when the file
    cannot be read at all.
    """
    predictions = read_predictions_file(path, allow_none=True)
    usage = {}
    for instance_id, prediction in predictions.predictions.items():
        found = usage_of(prediction.model_extra or {})
        if found is not None:
            usage[instance_id] = found
    return usage


def usage_from_predictions(path: Path) -> dict[str, tuple[float, float]]:
    """``(input_tokens, output_tokens)`` by instance id (see :func:`usage_records`)."""
    return {instance_id: found.pair for instance_id, found in usage_records(path).items()}


__all__ = [
    "PredictionsFileError",
    "Usage",
    "token_usage",
    "usage_from_predictions",
    "usage_of",
    "usage_records",
]
