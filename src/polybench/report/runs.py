"""Reading runs back from their folders: results, patches, metadata, token usage, coverage.

This is the one module that reads a run's ``run.json`` and ``report.json``.

What a run covers (see ``docs/report.md``): ``polybench eval`` writes an instance's
``result.json`` last, when the instance is finished, and the run's ``report.json`` once,
after every instance is done; that file lists every instance the run was asked to do,
those without a prediction included (``no_prediction_ids``). So:

- a run with a ``report.json`` that lists ids is *finished*: it covers the listed ids plus
  any instance with a result, and an instance without a prediction counts as a miss;
- a run without one was stopped before the end (killed): it covers only the instances
  that have a result. The others were never evaluated, so they are not counted at all,
  neither as failures nor as misses.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from polybench.dataset.models import Instance
from polybench.grading.result import InstanceResult, Status
from polybench.report.strata import RunOutcomes
from polybench.report.usage import PredictionsFileError, usage_records

NO_PREDICTION = "no_prediction"
_ID_LISTS = ("resolved_ids", "unresolved_ids", "error_ids", "empty_patch_ids", "no_prediction_ids")
_SYNTHETIC_PREDICTIONS = ("gold", "empty")
RUN_PREDICTIONS = "predictions.jsonl"
"""An agent run writes its predictions (with token usage) next to its results."""


class RunDirError(ValueError):
    """A folder is not a polybench run."""


@dataclass
class LoadedRun:
    """One run as read from its folder (see :func:`load_run`)."""

    run_dir: Path
    run_id: str
    label: str
    metadata: dict[str, Any]
    results: dict[str, InstanceResult]
    patches: dict[str, str]
    listed_ids: list[str] | None
    planned_instances: int | None = None
    tokens: dict[str, tuple[float, float]] = field(default_factory=dict)
    cached_tokens: dict[str, float] = field(default_factory=dict)
    """Cached input tokens by instance, for the instances whose usage reports them."""
    instance_ids: list[str] = field(default_factory=list)
    dataset_instances: int = 0
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    not_run: int = 0
    """Instances an interrupted run did not reach (its ``report.json`` lists them)."""

    @property
    def finished(self) -> bool:
        """Whether the run wrote its ``report.json`` (with the ids it was asked to do) and
        was not interrupted before its end."""
        return self.listed_ids is not None and not self.not_run

    @property
    def dataset(self) -> str | None:
        """The dataset the run was made on, as recorded in ``run.json``."""
        value = self.metadata.get("dataset")
        return str(value) if value else None

    @property
    def predictions_source(self) -> str | None:
        """Where the predictions came from (``gold``, ``empty`` or a file path)."""
        value = self.metadata.get("predictions_source") or self.metadata.get("predictions")
        return str(value) if value else None

    @property
    def model(self) -> str:
        """The most common ``model_name_or_path`` of the run's results."""
        names = Counter(r.model_name_or_path for r in self.results.values())
        names.pop("unknown", None)
        return names.most_common(1)[0][0] if names else "unknown"

    def status(self, instance_id: str) -> str:
        """The instance's final status, or ``no_prediction`` when it has no result."""
        result = self.results.get(instance_id)
        return result.status.value if result is not None else NO_PREDICTION

    def outcomes(self) -> RunOutcomes:
        """What the stratified tables need of this run."""
        return RunOutcomes(
            label=self.label,
            instance_ids=list(self.instance_ids),
            resolved={i: r.status is Status.RESOLVED for i, r in self.results.items()},
            tokens=self.tokens,
            cached=self.cached_tokens,
        )


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def load_run(run_dir: Path) -> LoadedRun:
    """Read a run folder: ``run.json``, ``report.json`` and every ``instances/*/result.json``.

    Unreadable results are skipped with a note. Raises :class:`RunDirError` when the folder
    has neither ``run.json`` nor ``instances/``.
    """
    if not run_dir.is_dir():
        raise RunDirError(f"{run_dir} is not a folder")
    metadata = _read_json(run_dir / "run.json")
    instances_dir = run_dir / "instances"
    if not isinstance(metadata, dict) and not instances_dir.is_dir():
        raise RunDirError(f"{run_dir} is not a polybench run (no run.json, no instances/)")
    metadata = metadata if isinstance(metadata, dict) else {}
    notes: list[str] = []
    results: dict[str, InstanceResult] = {}
    patches: dict[str, str] = {}
    folders = sorted(instances_dir.iterdir()) if instances_dir.is_dir() else []
    for folder in folders:
        result_path = folder / "result.json"
        if not result_path.is_file():
            continue
        try:
            result = InstanceResult.model_validate_json(result_path.read_bytes())
        except (OSError, ValidationError, ValueError):
            notes.append(f"{result_path}: unreadable result, counted as no prediction")
            continue
        results[result.instance_id] = result
        patch_path = folder / "patch.diff"
        if patch_path.is_file():
            patches[result.instance_id] = patch_path.read_text(encoding="utf-8", errors="replace")
    summary = _read_json(run_dir / "report.json")
    listed: list[str] | None = None
    if isinstance(summary, dict) and any(isinstance(summary.get(k), list) for k in _ID_LISTS):
        listed = [str(i) for key in _ID_LISTS for i in summary.get(key) or []]
    run_id = str(metadata.get("run_id") or run_dir.name)
    planned = metadata.get("instances")
    not_run = summary.get("not_run_ids") if isinstance(summary, dict) else None
    return LoadedRun(
        run_dir=run_dir,
        run_id=run_id,
        label=run_id,
        metadata=metadata,
        results=results,
        patches=patches,
        listed_ids=listed,
        planned_instances=planned if isinstance(planned, int) and planned >= 0 else None,
        notes=notes,
        not_run=len(not_run) if isinstance(not_run, list) else 0,
    )


def unique_labels(runs: list[LoadedRun]) -> None:
    """Give runs that share a run id distinct labels (``id``, ``id#2``, ...)."""
    seen: Counter[str] = Counter()
    for run in runs:
        seen[run.run_id] += 1
        run.label = run.run_id if seen[run.run_id] == 1 else f"{run.run_id}#{seen[run.run_id]}"


def attach_dataset(run: LoadedRun, instances: Mapping[str, Instance]) -> None:
    """Fix the instances the run covers, in dataset order, and note what does not fit.

    A finished run covers the ids its ``report.json`` lists (every instance it was asked
    to do, with or without a prediction) plus every instance with a result; an unfinished
    run (no ``report.json``) covers only the instances with a result, and gets a warning
    saying so.
    """
    wanted = set(run.results)
    if run.listed_ids is not None:
        wanted |= set(run.listed_ids)
    unknown = sorted(i for i in wanted if i not in instances)
    if unknown:
        shown = ", ".join(unknown[:5]) + (" ..." if len(unknown) > 5 else "")
        run.notes.append(f"{len(unknown)} instance ids are not in the dataset, left out: {shown}")
    run.instance_ids = [i for i in instances if i in wanted]
    run.dataset_instances = len(instances)
    if run.listed_ids is not None and run.not_run:
        run.warnings.append(
            f"interrupted run: {run.not_run} instances were not run; partial: scored over "
            f"the {len(run.instance_ids)} of {len(instances)} dataset instances it reached "
            "(resume it with the same --run-id to finish it)"
        )
    elif not run.finished:
        covered = len(run.instance_ids)
        planned = (
            f"; run.json says {run.planned_instances} were planned"
            if run.planned_instances is not None
            else ""
        )
        run.warnings.append(
            f"unfinished run (no report.json): scored over the {covered} of "
            f"{len(instances)} dataset instances that have a result{planned}. The others "
            "were never evaluated and are not counted."
        )


def predictions_file(run: LoadedRun) -> Path | None:
    """The file token usage is read from: the predictions file recorded in ``run.json``
    when it still exists, else ``predictions.jsonl`` in the run folder (where agent runs
    write theirs); None when there is neither (a note says why when one was recorded)."""
    source = run.predictions_source
    recorded = source if source and source not in _SYNTHETIC_PREDICTIONS else None
    if recorded is not None and Path(recorded).is_file():
        return Path(recorded)
    beside = run.run_dir / RUN_PREDICTIONS
    if beside.is_file():
        return beside
    if recorded is not None:
        run.notes.append(f"predictions file {recorded} not found: no token usage")
    return None


def attach_token_usage(run: LoadedRun) -> None:
    """Read token usage (input, output, cached) from the run's predictions file
    (:func:`predictions_file`), for the instances the run covers."""
    path = predictions_file(run)
    if path is None:
        return
    try:
        usage = usage_records(path)
    except PredictionsFileError as exc:
        run.notes.append(f"predictions file unreadable, no token usage: {exc}")
        return
    covered = set(run.instance_ids)
    run.tokens = {i: u.pair for i, u in usage.items() if i in covered}
    run.cached_tokens = {
        i: u.cached for i, u in usage.items() if i in covered and u.cached is not None
    }
