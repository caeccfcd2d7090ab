"""Predictions from other agents' output folders, with token usage from their trajectories.

Supported kinds and what is read:

``mini-swe-agent``
    ``preds.json`` (``{instance_id: {model_name_or_path, instance_id, model_patch}}``) and
    ``*.traj.json`` files anywhere below the folder, each the trajectory of the instance
    its ``instance_id`` field names (its batch runner writes one), else of the file's
    name. Tokens are summed over the raw API responses kept in the messages
    (``extra.response.usage``, format errors' too); ``api_calls`` and ``exit_status``
    come from ``info`` (a trajectory saved mid-run has no exit status, and says so).
``swe-agent``
    ``preds.json`` (same shape; a list is accepted too) or ``all_preds.jsonl``, and
    ``<instance_id>.traj`` files below the folder, whose ``info.model_stats`` holds
    ``tokens_sent``, ``tokens_received`` and ``api_calls`` (no cached tokens).
``openhands``
    ``output.jsonl``: one object per instance with ``test_result.git_patch`` and
    ``metrics.accumulated_token_usage`` (``prompt_tokens``, ``completion_tokens``,
    ``cache_read_tokens``), else the last ``llm_metrics`` snapshot in ``history``.

A patch found only in a trajectory is used (and said so). Nothing missing stops an
import: each gap becomes an :class:`ImportProblem` naming the item, and fields that
cannot be known are left out of the prediction.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, get_args

ImportKind = Literal["mini-swe-agent", "swe-agent", "openhands"]
IMPORT_KINDS: tuple[str, ...] = get_args(ImportKind)


@dataclass(frozen=True)
class ImportProblem:
    """Something missing or malformed about one item (an instance id, file or line)."""

    item: str
    message: str


@dataclass
class ImportResult:
    """Predictions in polybench's format, and every problem met while reading them."""

    predictions: list[dict[str, Any]] = field(default_factory=list)
    problems: list[ImportProblem] = field(default_factory=list)


def import_runs(kind: str, path: Path, model_name: str | None = None) -> ImportResult:
    """Read another agent's output at ``path`` (its folder, or its predictions file).

    ``model_name`` replaces the ``model_name_or_path`` found in the files. Raises
    ``ValueError`` for an unknown ``kind`` and ``FileNotFoundError`` when ``path`` holds
    nothing of that kind; everything else is reported in ``problems``.
    """
    if kind == "mini-swe-agent":
        result = _import_trajectory_runs(path, _MINI)
    elif kind == "swe-agent":
        result = _import_trajectory_runs(path, _SWE_AGENT)
    elif kind == "openhands":
        result = _import_openhands(path)
    else:
        raise ValueError(f"unknown import kind {kind!r}: choose from {', '.join(IMPORT_KINDS)}")
    if model_name:
        for prediction in result.predictions:
            prediction["model_name_or_path"] = model_name
    return result


# ---- shared helpers ------------------------------------------------------------------------


def _dig(data: Any, *keys: str) -> Any:
    """``data[k1][k2]...``, or None as soon as a level is missing or not a mapping."""
    for key in keys:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _prediction(
    instance_id: str,
    patch: str,
    model: str,
    usage: dict[str, int] | None,
    api_calls: int | None,
    exit_status: str | None,
) -> dict[str, Any]:
    prediction: dict[str, Any] = {
        "instance_id": instance_id,
        "model_patch": patch,
        "model_name_or_path": model,
    }
    if usage is not None:
        prediction["usage"] = usage
    if api_calls is not None:
        prediction["api_calls"] = api_calls
    if exit_status is not None:
        prediction["exit_status"] = exit_status
    return prediction


def _read_json(path: Path, result: ImportResult) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        result.problems.append(ImportProblem(str(path), f"unreadable JSON: {exc}"))
        return None


def _read_jsonl(path: Path, result: ImportResult) -> list[tuple[int, dict[str, Any]]]:
    """(line number, object) of every line that is a JSON object."""
    rows: list[tuple[int, dict[str, Any]]] = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        result.problems.append(ImportProblem(str(path), f"unreadable file: {exc}"))
        return rows
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError as exc:
            result.problems.append(ImportProblem(f"{path.name}:{number}", f"not JSON: {exc}"))
            continue
        if not isinstance(row, dict):
            result.problems.append(ImportProblem(f"{path.name}:{number}", "not a JSON object"))
            continue
        rows.append((number, row))
    return rows


def _cached_tokens(usage: dict[str, Any]) -> int:
    cached = _int(_dig(usage, "prompt_tokens_details", "cached_tokens"))
    if cached is None:  # Anthropic's name, as passed through by litellm
        cached = _int(usage.get("cache_read_input_tokens"))
    return cached or 0


# ---- mini-swe-agent and SWE-agent -------------------------------------------------------------


_UsageReader = Callable[[dict[str, Any], str, "ImportResult"], "dict[str, int] | None"]


@dataclass(frozen=True)
class _TrajectoryFormat:
    name: str
    suffix: str
    preds_files: tuple[str, ...]
    read_usage: _UsageReader
    count_calls: Callable[[dict[str, Any]], int | None]


def _preds_rows(path: Path, result: ImportResult) -> dict[str, dict[str, Any]]:
    """Predictions keyed by instance id from a ``preds.json`` or ``*.jsonl`` file."""
    rows: list[tuple[str, Any]] = []
    if path.suffix == ".jsonl":
        rows = [(f"{path.name}:{number}", row) for number, row in _read_jsonl(path, result)]
    else:
        data = _read_json(path, result)
        if isinstance(data, dict):
            rows = [(str(key), value) for key, value in data.items()]
        elif isinstance(data, list):
            rows = [(f"{path.name}[{index}]", value) for index, value in enumerate(data)]
        elif data is not None:
            result.problems.append(ImportProblem(str(path), "neither an object nor a list"))
    found: dict[str, dict[str, Any]] = {}
    for where, row in rows:
        instance_id = row.get("instance_id") if isinstance(row, dict) else None
        if not isinstance(instance_id, str) or not instance_id:
            result.problems.append(ImportProblem(where, "prediction without an instance_id"))
            continue
        if instance_id in found:
            result.problems.append(ImportProblem(instance_id, "duplicate; the last one is kept"))
        found[instance_id] = row
    return found


def _import_trajectory_runs(path: Path, form: _TrajectoryFormat) -> ImportResult:
    result = ImportResult()
    root = path if path.is_dir() else path.parent
    preds_file = path if path.is_file() else None
    if preds_file is None:
        preds_file = next(
            (root / name for name in form.preds_files if (root / name).is_file()), None
        )
    trajectories: dict[str, tuple[Path, Any]] = {}
    for found in sorted(root.rglob(f"*{form.suffix}")):
        data = _read_json(found, result)
        named = data.get("instance_id") if isinstance(data, dict) else None
        instance_id = named if isinstance(named, str) and named else found.name[: -len(form.suffix)]
        if instance_id in trajectories:
            result.problems.append(
                ImportProblem(instance_id, f"several trajectories; using {found}")
            )
        trajectories[instance_id] = (found, data)
    if preds_file is None and not trajectories:
        raise FileNotFoundError(
            f"no {' or '.join(form.preds_files)} and no *{form.suffix} files under {root}"
        )
    preds = _preds_rows(preds_file, result) if preds_file is not None else {}
    if preds_file is None:
        result.problems.append(
            ImportProblem(str(root), "no predictions file; patches come from the trajectories")
        )
    for instance_id in sorted(set(preds) | set(trajectories)):
        traj_path, traj = trajectories.get(instance_id, (None, None))
        if traj_path is None:
            result.problems.append(ImportProblem(instance_id, "no trajectory: usage unknown"))
        elif traj is not None and not isinstance(traj, dict):
            result.problems.append(ImportProblem(instance_id, "trajectory is not a JSON object"))
            traj = None
        pred = preds.get(instance_id)
        if pred is None and preds_file is not None:
            result.problems.append(
                ImportProblem(instance_id, "not in the predictions file; patch from the trajectory")
            )
        result.predictions.append(_trajectory_prediction(instance_id, pred, traj, form, result))
    return result


def _trajectory_prediction(
    instance_id: str,
    pred: dict[str, Any] | None,
    traj: dict[str, Any] | None,
    form: _TrajectoryFormat,
    result: ImportResult,
) -> dict[str, Any]:
    info = _dig(traj, "info") if traj is not None else None
    patch = pred.get("model_patch") if pred is not None else None
    if not isinstance(patch, str):
        submission = _dig(info, "submission")
        if isinstance(submission, str):
            if pred is not None:
                result.problems.append(
                    ImportProblem(instance_id, "model_patch missing; taken from the trajectory")
                )
            patch = submission
        else:
            result.problems.append(ImportProblem(instance_id, "no patch: empty patch used"))
            patch = ""
    model = pred.get("model_name_or_path") if pred is not None else None
    if not isinstance(model, str) or not model:
        model = _dig(info, "config", "model", "model_name")
    if not isinstance(model, str) or not model:
        model = form.name
    usage = form.read_usage(traj, instance_id, result) if traj is not None else None
    api_calls = _int(_dig(info, "model_stats", "api_calls"))
    if api_calls is None and traj is not None:
        api_calls = form.count_calls(traj)
    exit_status = _dig(info, "exit_status")
    if traj is not None and not exit_status:
        result.problems.append(
            ImportProblem(instance_id, "the trajectory did not end (saved mid-run)")
        )
    return _prediction(
        instance_id,
        patch,
        model,
        usage,
        api_calls,
        exit_status if isinstance(exit_status, str) and exit_status else None,
    )


def _mini_responses(traj: dict[str, Any]) -> list[dict[str, Any]]:
    messages = traj.get("messages")
    if not isinstance(messages, list):
        return []
    responses = [_dig(message, "extra", "response") for message in messages]
    return [response for response in responses if isinstance(response, dict)]


def _mini_response_count(traj: dict[str, Any]) -> int | None:
    return len(_mini_responses(traj)) or None


def _mini_usage(
    traj: dict[str, Any], instance_id: str, result: ImportResult
) -> dict[str, int] | None:
    responses = _mini_responses(traj)
    if not responses:
        result.problems.append(
            ImportProblem(instance_id, "trajectory keeps no API responses: usage unknown")
        )
        return None
    totals = {"input_tokens": 0, "output_tokens": 0, "cached_tokens": 0}
    missing = 0
    for response in responses:
        usage = response.get("usage")
        prompt = _int(_dig(usage, "prompt_tokens"))
        completion = _int(_dig(usage, "completion_tokens"))
        if not isinstance(usage, dict) or prompt is None or completion is None:
            missing += 1
            continue
        totals["input_tokens"] += prompt
        totals["output_tokens"] += completion
        totals["cached_tokens"] += _cached_tokens(usage)
    if missing == len(responses):
        result.problems.append(ImportProblem(instance_id, "no response reports usage"))
        return None
    if missing:
        result.problems.append(
            ImportProblem(
                instance_id,
                f"{missing} of {len(responses)} responses report no usage: tokens undercounted",
            )
        )
    return totals


def _swe_agent_usage(
    traj: dict[str, Any], instance_id: str, result: ImportResult
) -> dict[str, int] | None:
    stats = _dig(traj, "info", "model_stats")
    sent = _int(_dig(stats, "tokens_sent"))
    received = _int(_dig(stats, "tokens_received"))
    if sent is None or received is None:
        result.problems.append(
            ImportProblem(instance_id, "info.model_stats lacks tokens_sent/tokens_received")
        )
        return None
    return {"input_tokens": sent, "output_tokens": received}


_MINI = _TrajectoryFormat(
    "mini-swe-agent", ".traj.json", ("preds.json",), _mini_usage, _mini_response_count
)
_SWE_AGENT = _TrajectoryFormat(
    "swe-agent",
    ".traj",
    ("preds.json", "all_preds.jsonl"),
    _swe_agent_usage,
    lambda traj: None,
)


# ---- OpenHands ------------------------------------------------------------------------------


def _import_openhands(path: Path) -> ImportResult:
    result = ImportResult()
    output = path / "output.jsonl" if path.is_dir() else path
    if not output.is_file():
        raise FileNotFoundError(f"no OpenHands output.jsonl at {output}")
    found: dict[str, dict[str, Any]] = {}
    for number, row in _read_jsonl(output, result):
        instance_id = row.get("instance_id")
        if not isinstance(instance_id, str) or not instance_id:
            result.problems.append(
                ImportProblem(f"{output.name}:{number}", "line without an instance_id")
            )
            continue
        if instance_id in found:
            result.problems.append(ImportProblem(instance_id, "duplicate; the last line is kept"))
        found[instance_id] = _openhands_prediction(instance_id, row, result)
    result.predictions = list(found.values())
    return result


def _openhands_prediction(
    instance_id: str, row: dict[str, Any], result: ImportResult
) -> dict[str, Any]:
    patch = _dig(row, "test_result", "git_patch")
    if not isinstance(patch, str):
        patch = row.get("git_patch")
    if not isinstance(patch, str):
        result.problems.append(ImportProblem(instance_id, "no test_result.git_patch: empty patch"))
        patch = ""
    model = _dig(row, "metadata", "llm_config", "model")
    if not isinstance(model, str) or not model:
        model = "OpenHands"
    metrics = row.get("metrics")
    usage = _openhands_usage(_dig(metrics, "accumulated_token_usage"))
    if usage is None:
        usage = _openhands_usage(_last_history_usage(row.get("history")))
    if usage is None:
        result.problems.append(ImportProblem(instance_id, "no token usage in metrics or history"))
    api_calls = None
    for key in ("token_usages", "response_latencies"):
        entries = _dig(metrics, key)
        if isinstance(entries, list) and entries:
            api_calls = len(entries)
            break
    error = row.get("error")
    exit_status = "error" if isinstance(error, str) and error else _agent_state(row)
    prediction = _prediction(instance_id, patch, model, usage, api_calls, exit_status)
    if exit_status == "error":
        prediction["agent_error"] = error
    return prediction


def _openhands_usage(usage: Any) -> dict[str, int] | None:
    prompt = _int(_dig(usage, "prompt_tokens"))
    completion = _int(_dig(usage, "completion_tokens"))
    if prompt is None or completion is None:
        return None
    return {
        "input_tokens": prompt,
        "output_tokens": completion,
        "cached_tokens": _int(_dig(usage, "cache_read_tokens")) or 0,
    }


def _last_history_usage(history: Any) -> Any:
    """The last cumulative usage snapshot kept on a history event."""
    if not isinstance(history, list):
        return None
    for event in reversed(history):
        usage = _dig(event, "llm_metrics", "accumulated_token_usage")
        if isinstance(usage, dict):
            return usage
    return None


def _agent_state(row: dict[str, Any]) -> str | None:
    """The agent's last recorded state (``finished``, ``error``, ``stopped``, ...)."""
    history = row.get("history")
    if not isinstance(history, list):
        return None
    for event in reversed(history):
        state = _dig(event, "extras", "agent_state")
        if isinstance(state, str) and state:
            return state
    return None
