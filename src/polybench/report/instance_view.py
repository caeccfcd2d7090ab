"""What happened to each instance of a run, gathered from the run folder for a person to
read: the verdict and its reason, the defences that fired, the tokens and their cost, the
end of the test log, and the agent's trajectory when an agent made the prediction.

Two kinds of folders are read: an evaluation run (``polybench eval``: ``run.json``,
``report.json``, ``instances/<id>/``) and an agent run (``polybench agent run``:
``predictions.jsonl`` and ``trajectories/``). An evaluation of an agent's predictions
finds the agent run beside its predictions file (``run.json`` records it), so its pages
show the trajectory too. Nothing here trusts the folder: unreadable files are noted, and
every text is shown as text.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from polybench.agent.trajectory import Trajectory
from polybench.grading.result import InstanceResult
from polybench.report.defences import defences_of
from polybench.report.model import TokenPrices
from polybench.report.usage import Usage, usage_of

LOG_TAIL_LINES = 80
LOG_TAIL_CHARS = 12_000
TEST_LOG = "test_output.txt"
PREDICTIONS = "predictions.jsonl"
TRAJECTORIES = "trajectories"
NO_PREDICTION = "no_prediction"


class RunViewError(ValueError):
    """A folder is neither an evaluation run nor an agent run."""


@dataclass
class LogExcerpt:
    """The end of a log file, and how much of it that is."""

    path: Path
    text: str
    total_lines: int
    shown_lines: int


@dataclass
class InstanceView:
    """One instance of a run, as its page shows it."""

    instance_id: str
    status: str
    reason: str = ""
    language: str = ""
    error_kind: str | None = None
    strict_resolved: bool | None = None
    official_resolved: bool | None = None
    defences: list[str] = field(default_factory=list)
    defence_details: list[str] = field(default_factory=list)
    """What each defence did: the paths put back or refused, with why, and the like."""
    tests: dict[str, dict[str, str]] = field(default_factory=dict)
    """``F2P`` and ``P2P``: each listed test's outcome."""
    agent_status: str | None = None
    agent_reason: str = ""
    api_calls: int | None = None
    usage: Usage | None = None
    cost: float | None = None
    log: LogExcerpt | None = None
    agent_log: LogExcerpt | None = None
    trajectory: Trajectory | None = None
    files: dict[str, Path] = field(default_factory=dict)
    """Files worth opening (result, full log, patch, trajectory), by what they are."""
    notes: list[str] = field(default_factory=list)


@dataclass
class RunView:
    """A run folder's instances, in order, with where the agent's records were found."""

    run_dir: Path
    run_id: str
    kind: str
    """``eval`` or ``agent``."""
    instances: list[InstanceView]
    agent_dir: Path | None = None
    notes: list[str] = field(default_factory=list)


def _json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def log_excerpt(path: Path) -> LogExcerpt | None:
    """The last lines of ``path`` (at most :data:`LOG_TAIL_LINES` lines and
    :data:`LOG_TAIL_CHARS` characters), or None when it cannot be read."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    lines = text.splitlines()
    tail = lines[-LOG_TAIL_LINES:]
    shown = "\n".join(tail)
    if len(shown) > LOG_TAIL_CHARS:
        shown = shown[-LOG_TAIL_CHARS:]
        tail = shown.splitlines()
    return LogExcerpt(path=path, text=shown, total_lines=len(lines), shown_lines=len(tail))


def agent_records(path: Path) -> dict[str, dict[str, Any]]:
    """The lines of an agent's (or any) predictions file that are JSON objects, by id."""
    records: dict[str, dict[str, Any]] = {}
    try:
        raw = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return records
    for line in raw.splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict) and isinstance(record.get("instance_id"), str):
            records[record["instance_id"]] = record
    return records


def _read_trajectory(path: Path, view: InstanceView) -> None:
    if not path.is_file():
        return
    view.files["trajectory (JSON)"] = path
    try:
        view.trajectory = Trajectory.model_validate_json(path.read_bytes())
    except (OSError, ValidationError, ValueError) as exc:
        view.notes.append(f"{path.name} could not be read as a trajectory: {exc}")


def _add_agent(
    view: InstanceView,
    record: dict[str, Any] | None,
    agent_dir: Path | None,
    prices: TokenPrices | None,
) -> None:
    """What the agent (or the predictions file) says about the instance."""
    if record is not None:
        status = record.get("exit_status")
        view.agent_status = str(status) if status is not None else None
        view.agent_reason = str(record.get("reason") or "")
        calls = record.get("api_calls")
        view.api_calls = calls if isinstance(calls, int) else None
        view.usage = usage_of(record)
        if view.usage is not None and prices is not None:
            cached = view.usage.cached or 0.0
            view.cost = prices.cost(view.usage.input, view.usage.output, cached)
    if agent_dir is None:
        return
    folder = agent_dir / TRAJECTORIES
    _read_trajectory(folder / f"{view.instance_id}.traj.json", view)
    command_log = folder / f"{view.instance_id}.agent.log"
    if command_log.is_file():
        view.agent_log = log_excerpt(command_log)
        view.files["agent command output"] = command_log


def defence_details(result: InstanceResult) -> list[str]:
    """What the defences did to ``result``, one line each."""
    tampering = result.tampering
    lines = [f"reverted {r.path}: {r.reason}" for r in tampering.reverted]
    lines += [f"refused {r.path}: {r.reason}" for r in tampering.refused]
    lines += [f"canary {c.file}: {c.outcome.value}" for c in tampering.canaries.records
              if tampering.canaries.tampered]  # fmt: skip
    lines += [f"distrusted report: {text}" for text in tampering.distrusted_reports]
    if tampering.truncated_bytes:
        lines.append(f"output truncated by {tampering.truncated_bytes:,} bytes")
    lines += [f"flagged {f.path} ({f.rule}): {f.line}" for f in tampering.flags]
    lines += [f"detected: {text}" for text in tampering.detected]
    return lines


def _eval_view(folder: Path, result: InstanceResult) -> InstanceView:
    view = InstanceView(
        instance_id=result.instance_id,
        status=result.status.value,
        reason=result.reason,
        language=result.language,
        error_kind=result.error_kind.value if result.error_kind is not None else None,
        strict_resolved=result.strict_resolved,
        official_resolved=result.official_resolved,
        defences=defences_of(result),
        defence_details=defence_details(result),
        tests={
            "F2P": {test: outcome.value for test, outcome in result.f2p.items()},
            "P2P": {test: outcome.value for test, outcome in result.p2p.items()},
        },
    )
    view.files["result"] = folder / "result.json"
    log = folder / TEST_LOG
    if log.is_file():
        view.log = log_excerpt(log)
        view.files["full test log"] = log
    for name, what in (("patch.diff", "patch"), ("apply.log", "patch application log")):
        if (folder / name).is_file():
            view.files[what] = folder / name
    return view


def agent_run_dir(predictions_source: object) -> Path | None:
    """The agent run folder beside a predictions file (an agent run writes its
    ``predictions.jsonl`` next to ``trajectories/``), when there is one."""
    if not isinstance(predictions_source, str) or predictions_source in ("gold", "empty"):
        return None
    folder = Path(predictions_source).parent
    return folder if (folder / TRAJECTORIES).is_dir() else None


def trajectory_files(agent_dir: Path, instance_id: str) -> list[Path]:
    """An instance's trajectory (built-in agent) and command output (agent command)."""
    folder = agent_dir / TRAJECTORIES
    found = [folder / f"{instance_id}{suffix}" for suffix in (".traj.json", ".agent.log")]
    return [path for path in found if path.is_file()]


def load_run_view(run_dir: Path, prices: TokenPrices | None = None) -> RunView:
    """Every instance of the run folder ``run_dir`` (see the module docstring).

    Raises :class:`RunViewError` when the folder is not a run.
    """
    if not run_dir.is_dir():
        raise RunViewError(f"{run_dir} is not a folder")
    metadata = _json(run_dir / "run.json")
    metadata = metadata if isinstance(metadata, dict) else {}
    run_id = str(metadata.get("run_id") or run_dir.name)
    if (run_dir / "instances").is_dir():
        return _load_eval(run_dir, run_id, metadata, prices)
    if (run_dir / PREDICTIONS).is_file() or (run_dir / TRAJECTORIES).is_dir():
        return _load_agent(run_dir, run_id, prices)
    raise RunViewError(
        f"{run_dir} is not a polybench run (no instances/ of an evaluation, no "
        f"{PREDICTIONS} or {TRAJECTORIES}/ of an agent run)"
    )


def _load_eval(
    run_dir: Path, run_id: str, metadata: dict[str, Any], prices: TokenPrices | None
) -> RunView:
    agent_dir = agent_run_dir(metadata.get("predictions_source") or metadata.get("predictions"))
    source = metadata.get("predictions_source")
    records: dict[str, dict[str, Any]] = {}
    if isinstance(source, str) and source not in ("gold", "empty"):
        records = agent_records(Path(source))
    view = RunView(run_dir=run_dir, run_id=run_id, kind="eval", instances=[], agent_dir=agent_dir)
    seen: set[str] = set()
    for folder in sorted((run_dir / "instances").iterdir()):
        path = folder / "result.json"
        if not path.is_file():
            continue
        try:
            result = InstanceResult.model_validate_json(path.read_bytes())
        except (OSError, ValidationError, ValueError):
            view.notes.append(f"{path}: unreadable result, left out")
            continue
        instance = _eval_view(folder, result)
        _add_agent(instance, records.get(result.instance_id), agent_dir, prices)
        view.instances.append(instance)
        seen.add(result.instance_id)
    summary = _json(run_dir / "report.json")
    if isinstance(summary, dict):
        for key, status in (("no_prediction_ids", NO_PREDICTION), ("not_run_ids", "not_run")):
            for instance_id in summary.get(key) or []:
                if isinstance(instance_id, str) and instance_id not in seen:
                    instance = InstanceView(instance_id=instance_id, status=status)
                    _add_agent(instance, records.get(instance_id), agent_dir, prices)
                    view.instances.append(instance)
    view.instances.sort(key=lambda item: item.instance_id)
    return view


def _load_agent(run_dir: Path, run_id: str, prices: TokenPrices | None) -> RunView:
    records = agent_records(run_dir / PREDICTIONS)
    ids = set(records)
    folder = run_dir / TRAJECTORIES
    if folder.is_dir():
        for path in folder.iterdir():
            for suffix in (".traj.json", ".agent.log"):
                if path.name.endswith(suffix):
                    ids.add(path.name.removesuffix(suffix))
    view = RunView(run_dir=run_dir, run_id=run_id, kind="agent", instances=[], agent_dir=run_dir)
    for instance_id in sorted(ids):
        record = records.get(instance_id)
        status = str(record.get("exit_status") or "unknown") if record else "no record"
        instance = InstanceView(instance_id=instance_id, status=status)
        _add_agent(instance, record, run_dir, prices)
        instance.reason = instance.agent_reason
        if record is not None:
            patch = record.get("model_patch")
            if isinstance(patch, str):
                instance.notes.append(f"patch: {len(patch.splitlines())} lines")
        view.instances.append(instance)
    return view
