"""Run many instances: concurrency, resume, retries of infrastructure errors, artifacts."""

from __future__ import annotations

import json
import re
import shutil
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from pydantic import ValidationError

from polybench import __version__
from polybench.atomic import atomic_write_text
from polybench.dataset.models import Instance
from polybench.dataset.predictions import PredictionSet
from polybench.grading.result import ErrorKind, InstanceResult, Status
from polybench.runner.artifacts import InstanceArtifacts
from polybench.runner.instance import InstanceRunner, patch_digest

RETRIED_ERRORS = {
    ErrorKind.SANDBOX_FAILED,
    ErrorKind.HARNESS_ERROR,
    ErrorKind.NO_END_MARKER,
    ErrorKind.IMAGE_BUILD_FAILED,
}
_SAFE_NAME = re.compile(r"^[A-Za-z0-9._+-][A-Za-z0-9._+@-]*$")


def safe_dir_name(instance_id: str) -> str:
    """Check an instance id can be used as a folder name (no ``/``, no ``..``)."""
    if not _SAFE_NAME.match(instance_id) or instance_id in {".", ".."}:
        raise ValueError(f"instance id {instance_id!r} cannot be used as a folder name")
    return instance_id


@dataclass
class RunPlan:
    """What a run will do: the instances, the predictions, and where results go."""

    run_id: str
    run_dir: Path
    instances: list[Instance]
    predictions: PredictionSet
    force: bool = False
    workers: int = 1
    max_attempts: int = 2

    @property
    def sandboxes_dir(self) -> Path:
        """``<run_dir>/.sandboxes``: where this run's checkouts live while it runs."""
        return self.run_dir / ".sandboxes"

    @property
    def instances_dir(self) -> Path:
        """``<run_dir>/instances``."""
        return self.run_dir / "instances"

    def artifacts_for(self, instance_id: str) -> InstanceArtifacts:
        """The artifact folder of one instance."""
        return InstanceArtifacts(self.instances_dir / safe_dir_name(instance_id))


@dataclass
class RunOutcome:
    """Results of a run (finished earlier and now), keyed by instance id."""

    results: dict[str, InstanceResult] = field(default_factory=dict)
    reused: list[str] = field(default_factory=list)
    evaluated: list[str] = field(default_factory=list)
    wall_seconds: float = 0.0


def load_result(path: Path) -> InstanceResult | None:
    """A finished instance's result, or None when missing or unreadable (then redone)."""
    try:
        return InstanceResult.model_validate_json(path.read_bytes())
    except (OSError, ValidationError, ValueError):
        return None


def write_result(artifacts: InstanceArtifacts, result: InstanceResult) -> None:
    """Write ``result.json`` last: its presence marks the instance as finished."""
    atomic_write_text(artifacts.path("result.json"), result.model_dump_json(indent=2))


class Runner:
    """Evaluates a :class:`RunPlan` with an :class:`InstanceRunner`."""

    def __init__(
        self,
        instance_runner: InstanceRunner,
        on_start: Callable[[int, int], None] | None = None,
        on_result: Callable[[InstanceResult], None] | None = None,
    ) -> None:
        self.instance_runner = instance_runner
        self.on_start = on_start
        self.on_result = on_result
        self._lock = threading.Lock()

    def _finished(self, plan: RunPlan, instance: Instance) -> InstanceResult | None:
        if plan.force:
            return None
        prediction = plan.predictions.predictions[instance.instance_id]
        previous = load_result(plan.artifacts_for(instance.instance_id).path("result.json"))
        if previous is None or previous.patch_sha256 != patch_digest(prediction.model_patch):
            return None
        return previous

    def _evaluate(self, plan: RunPlan, instance: Instance) -> InstanceResult:
        prediction = plan.predictions.predictions[instance.instance_id]
        artifacts = plan.artifacts_for(instance.instance_id)
        result: InstanceResult | None = None
        for attempt in range(1, plan.max_attempts + 1):
            artifacts.clear()
            result = self.instance_runner.run(instance, prediction, artifacts)
            result.attempts = attempt
            if result.error_kind not in RETRIED_ERRORS:
                break
        assert result is not None
        write_result(artifacts, result)
        return result

    def _collect(
        self, instance: Instance, future: Future[InstanceResult], outcome: RunOutcome
    ) -> None:
        try:
            result = future.result()
        except Exception as exc:  # writing the result itself failed (disk full, ...)
            result = InstanceResult(
                instance_id=instance.instance_id,
                repo=instance.repo,
                language=instance.language.value,
                status=Status.ERROR,
                error_kind=ErrorKind.HARNESS_ERROR,
                reason=f"could not record the result: {type(exc).__name__}: {exc}",
            )
        with self._lock:
            outcome.results[instance.instance_id] = result
            outcome.evaluated.append(instance.instance_id)
        if self.on_result:
            self.on_result(result)

    def run(self, plan: RunPlan) -> RunOutcome:
        """Evaluate every instance that has a prediction; finished ones are reused."""
        started = time.monotonic()
        plan.instances_dir.mkdir(parents=True, exist_ok=True)
        # Sandboxes left behind by a killed run of this run id.
        shutil.rmtree(plan.sandboxes_dir, ignore_errors=True)
        outcome = RunOutcome()
        todo: list[Instance] = []
        for instance in plan.instances:
            if instance.instance_id not in plan.predictions.predictions:
                continue
            previous = self._finished(plan, instance)
            if previous is not None:
                outcome.results[instance.instance_id] = previous
                outcome.reused.append(instance.instance_id)
            else:
                todo.append(instance)
        if self.on_start:
            self.on_start(len(todo), len(outcome.reused))
        pool = ThreadPoolExecutor(max_workers=max(1, plan.workers))
        try:
            futures = {pool.submit(self._evaluate, plan, instance): instance for instance in todo}
            for future in as_completed(futures):
                self._collect(futures[future], future, outcome)
        except BaseException:
            # Ctrl-C or a fatal error: do not start anything new; finished results are on disk.
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        pool.shutdown()
        shutil.rmtree(plan.sandboxes_dir, ignore_errors=True)
        outcome.wall_seconds = time.monotonic() - started
        return outcome


def write_run_metadata(plan: RunPlan, extra: dict[str, object]) -> None:
    """Record how the run was started, next to its results."""
    metadata = {
        "run_id": plan.run_id,
        "polybench_version": __version__,
        "started_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "instances": len(plan.instances),
        "predictions_source": plan.predictions.source,
        **extra,
    }
    atomic_write_text(plan.run_dir / "run.json", json.dumps(metadata, indent=2, default=str))
