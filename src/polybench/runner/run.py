"""Run many instances: concurrency, resume, retries of infrastructure errors, artifacts."""

from __future__ import annotations

import contextlib
import errno
import os
import re
import shutil
import threading
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, as_completed, wait
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from polybench import __version__
from polybench.dataset.models import Instance, Prediction
from polybench.dataset.predictions import PredictionSet
from polybench.grading.result import ErrorKind, InstanceResult, Status
from polybench.interrupts import ctrl_c_held
from polybench.runner.artifacts import DEAD_DISK_ERRNOS, InstanceArtifacts
from polybench.runner.instance import InstanceRunner, patch_digest
from polybench.runner.records import RunMetadata, write_metadata
from polybench.runner.slots import TestSlots
from polybench.sandbox.cancel import Cancelled, cancel_all
from polybench.seal import read_sealed, write_sealed

RETRIED_ERRORS = {
    ErrorKind.SANDBOX_FAILED,
    ErrorKind.HARNESS_ERROR,
    ErrorKind.NO_END_MARKER,
    ErrorKind.IMAGE_BUILD_FAILED,
    ErrorKind.DEPENDENCY_UNAVAILABLE,
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
    prepare_ahead: int = 1
    """Local executor: instances prepared (sandbox, patch, tests' install) while
    ``workers`` others run their tests; their own tests wait for a free test slot
    (:mod:`polybench.runner.slots`). 0: each worker does one instance at a time."""
    warnings: list[str] = field(default_factory=list)
    """Said before the run starts (say, that its sandboxes are not isolated)."""

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
    untrusted: dict[str, str] = field(default_factory=dict)
    """Saved results not reused because their seal failed: instance id -> why."""


def load_result(path: Path) -> InstanceResult | None:
    """A finished instance's result, or None when missing or unreadable (then redone)."""
    try:
        return InstanceResult.model_validate_json(path.read_bytes())
    except (OSError, ValidationError, ValueError):
        return None


def write_result(artifacts: InstanceArtifacts, result: InstanceResult) -> None:
    """Write ``result.json`` (sealed: :mod:`polybench.seal`) last: its presence marks the
    instance as finished."""
    write_sealed(artifacts.path("result.json"), result.model_dump_json(indent=2))


class OutputDirectoryError(RuntimeError):
    """The run directory takes no more results (disk full, read-only): the run stops.

    Everything recorded before is complete (atomic writes); running the same run id
    again once the cause is fixed resumes from there.
    """


def output_failure(exc: BaseException) -> OSError | None:
    """The ``OSError`` behind ``exc`` when it says the output directory is unusable."""
    seen: BaseException | None = exc
    for _ in range(16):  # the chain of causes, bounded
        if seen is None:
            break
        if isinstance(seen, OSError) and seen.errno in DEAD_DISK_ERRNOS:
            return seen
        seen = seen.__cause__ or seen.__context__
    return None


_PROBE_BYTES = 64 * 1024


def probe_output(run_dir: Path) -> OSError | None:
    """The error that writing a small file in ``run_dir`` meets when the folder takes no
    more writes (full, read-only, or gone), else None."""
    probe = run_dir / ".write-probe"
    try:
        with probe.open("wb") as handle:
            handle.write(b"\0" * _PROBE_BYTES)
            handle.flush()
            os.fsync(handle.fileno())
    except OSError as exc:
        if exc.errno in DEAD_DISK_ERRNOS or exc.errno == errno.ENOENT:
            return exc
        return None
    finally:
        with contextlib.suppress(OSError):
            probe.unlink()
    return None


def dead_disk_in(reason: str) -> OSError | None:
    """An error for the "no space left" (or read-only, or quota) message a failed tool
    printed into ``reason``: every later instance would fail the same way."""
    for number in sorted(DEAD_DISK_ERRNOS):
        if os.strerror(number) in reason:
            return OSError(number, os.strerror(number))
    return None


def finished_result(plan: RunPlan, instance: Instance) -> tuple[InstanceResult | None, str | None]:
    """The recorded result of ``instance`` when it can be reused (a verdict for the same
    patch, sealed by this harness), and why a saved result was not trusted. Infrastructure
    errors are always redone (they say nothing about the patch); ``force`` redoes
    everything."""
    if plan.force:
        return None, None
    prediction = plan.predictions.predictions[instance.instance_id]
    saved = read_sealed(plan.artifacts_for(instance.instance_id).path("result.json"))
    if saved.data is None:
        return None, None
    if saved.problem is not None:
        return None, saved.problem
    try:
        previous = InstanceResult.model_validate_json(saved.data)
    except (ValidationError, ValueError):
        return None, None
    if previous.patch_sha256 != patch_digest(prediction.model_patch):
        return None, None
    if previous.status is Status.ERROR:
        return None, None
    return previous, None


def prepare_run(plan: RunPlan) -> tuple[RunOutcome, list[Instance]]:
    """Make the run folders and split instances into finished ones (reused) and the rest.

    Sandboxes left behind by a killed run of the same run id are removed. Instances
    without a prediction are neither.
    """
    plan.instances_dir.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(plan.sandboxes_dir, ignore_errors=True)
    outcome = RunOutcome()
    todo: list[Instance] = []
    for instance in plan.instances:
        if instance.instance_id not in plan.predictions.predictions:
            continue
        previous, untrusted = finished_result(plan, instance)
        if untrusted is not None:
            outcome.untrusted[instance.instance_id] = untrusted
        if previous is not None:
            outcome.results[instance.instance_id] = previous
            outcome.reused.append(instance.instance_id)
        else:
            todo.append(instance)
    return outcome, todo


def finish_run(plan: RunPlan, outcome: RunOutcome, started: float) -> None:
    """Remove the run's sandboxes and record its wall time."""
    shutil.rmtree(plan.sandboxes_dir, ignore_errors=True)
    outcome.wall_seconds = time.monotonic() - started


def evaluate_instance(
    instance_runner: InstanceRunner,
    instance: Instance,
    prediction: Prediction,
    artifacts: InstanceArtifacts,
    max_attempts: int,
    before_attempt: Callable[[InstanceArtifacts, int], None] | None = None,
) -> InstanceResult:
    """Evaluate one instance, redoing it after a retried infrastructure error.

    Each attempt starts from an empty artifact folder. ``result.json`` is not written
    here: the caller records the result (see :func:`write_result`).
    """
    result: InstanceResult | None = None
    for attempt in range(1, max(1, max_attempts) + 1):
        artifacts.clear()
        if before_attempt is not None:
            before_attempt(artifacts, attempt)
        result = instance_runner.run(instance, prediction, artifacts)
        result.attempts = attempt
        if result.error_kind not in RETRIED_ERRORS:
            break
    assert result is not None
    return result


def failure_result(instance: Instance, kind: ErrorKind, reason: str) -> InstanceResult:
    """An error result for an instance whose evaluation could not produce one."""
    return InstanceResult(
        instance_id=instance.instance_id,
        repo=instance.repo,
        language=instance.language.value,
        status=Status.ERROR,
        error_kind=kind,
        reason=reason,
    )


class RunInterrupted(Exception):
    """Ctrl-C stopped the run; ``outcome`` holds every result recorded before it ended."""

    def __init__(self, outcome: RunOutcome) -> None:
        super().__init__("the run was interrupted")
        self.outcome = outcome


_WAKE = 0.25
"""Seconds the run's thread waits at most before it looks at Ctrl-C again."""


class ResultCollector:
    """Gathers results as they arrive, for any executor; thread-safe."""

    def __init__(
        self,
        plan: RunPlan,
        outcome: RunOutcome,
        on_result: Callable[[InstanceResult], None] | None = None,
    ) -> None:
        self.plan = plan
        self.outcome = outcome
        self.on_result = on_result
        self._lock = threading.Lock()

    def add(self, instance: Instance, result: InstanceResult | BaseException) -> InstanceResult:
        """Record one instance's result, or the exception that stopped it.

        An exception that says the run directory is unusable (disk full, read-only), or
        an infrastructure error while the run directory takes no more writes (sandboxes
        live there, so a full disk shows first as failed checkouts), raises
        :class:`OutputDirectoryError`: nothing more can be recorded, and the run stops
        instead of turning every remaining instance into an error.
        """
        if isinstance(result, BaseException):
            dead = output_failure(result)
            if dead is not None:
                raise self._stopped(instance, dead) from result
            result = failure_result(
                instance,
                ErrorKind.HARNESS_ERROR,
                f"could not record the result: {type(result).__name__}: {result}",
            )
        if result.status is Status.ERROR:
            dead = probe_output(self.plan.run_dir)
            if dead is None and not result.patch_applied:
                # Only before the patch is in: text the code under test prints into an
                # error's reason must not stop everyone's run.
                dead = dead_disk_in(result.reason)
            if dead is not None:
                raise self._stopped(instance, dead)
        with self._lock:
            self.outcome.results[instance.instance_id] = result
            self.outcome.evaluated.append(instance.instance_id)
        if self.on_result:
            self.on_result(result)
        return result

    def _stopped(self, instance: Instance, dead: OSError) -> OutputDirectoryError:
        recorded = len(self.outcome.evaluated) + len(self.outcome.reused)
        return OutputDirectoryError(
            f"cannot write results to {self.plan.run_dir}: {dead.strerror or dead} "
            f"(while recording {instance.instance_id}). The run stopped; {recorded} "
            "finished results are saved. Free space (or fix the directory) and run "
            "the same --run-id again to resume."
        )


class Runner:
    """Evaluates a :class:`RunPlan` with an :class:`InstanceRunner` on a thread pool."""

    def __init__(
        self,
        instance_runner: InstanceRunner,
        on_start: Callable[[int, int], None] | None = None,
        on_result: Callable[[InstanceResult], None] | None = None,
        on_interrupt: Callable[[int], None] | None = None,
    ) -> None:
        self.instance_runner = instance_runner
        self.on_start = on_start
        self.on_result = on_result
        self.on_interrupt = on_interrupt

    def _evaluate(self, plan: RunPlan, instance: Instance) -> InstanceResult:
        prediction = plan.predictions.predictions[instance.instance_id]
        artifacts = plan.artifacts_for(instance.instance_id)
        result = evaluate_instance(
            self.instance_runner, instance, prediction, artifacts, plan.max_attempts
        )
        write_result(artifacts, result)
        return result

    def run(self, plan: RunPlan) -> RunOutcome:
        """Evaluate every instance that has a prediction; finished ones are reused.

        Ctrl-C stops starting instances and waits for the running ones (their results are
        recorded); a second Ctrl-C stops those too (they are not recorded, so a resumed
        run does them again). Either way :class:`RunInterrupted` carries what finished.
        """
        started = time.monotonic()
        outcome, todo = prepare_run(plan)
        if self.on_start:
            self.on_start(len(todo), len(outcome.reused))
        collector = ResultCollector(plan, outcome, self.on_result)
        testing = max(1, plan.workers)
        workers = testing + max(0, plan.prepare_ahead)
        slots = TestSlots(testing) if workers > testing else None
        self.instance_runner.test_slots = slots
        pool = ThreadPoolExecutor(max_workers=workers)
        waiting = iter(todo)
        running: dict[Future[InstanceResult], Instance] = {}
        try:
            # This thread starts each instance when a worker is free, and wakes at least
            # every ``_WAKE`` seconds: Ctrl-C (which may land on a worker thread, and is
            # then seen here only when this thread runs) is taken within that time, and
            # no instance starts after it was taken.
            while True:
                while len(running) < workers and (instance := next(waiting, None)) is not None:
                    with ctrl_c_held():
                        running[pool.submit(self._evaluate, plan, instance)] = instance
                if not running:
                    break
                done, _ = wait(running, timeout=_WAKE, return_when=FIRST_COMPLETED)
                for future in done:
                    self._collect(collector, running[future], future)
                    del running[future]
        except OutputDirectoryError:
            # Nothing more can be recorded: let what runs fail and clean up, so that no
            # writer is left in the run folder when the caller hears.
            if slots is not None:
                slots.close()  # nothing more can be recorded: nothing more starts its tests
            pool.shutdown(wait=True, cancel_futures=True)
            raise
        except KeyboardInterrupt:
            # What is prepared ahead and never started its tests stops, unrecorded.
            unfinished = [instance.instance_id for future, instance in running.items()
                          if not future.done()]  # fmt: skip
            admitted = slots.close(unfinished) if slots is not None else None
            self._wind_down(pool, running, collector, admitted)
            finish_run(plan, outcome, started)
            raise RunInterrupted(outcome) from None
        finally:
            self.instance_runner.test_slots = None
        pool.shutdown()
        finish_run(plan, outcome, started)
        return outcome

    @staticmethod
    def _collect(
        collector: ResultCollector, instance: Instance, future: Future[InstanceResult]
    ) -> None:
        error = future.exception()
        if isinstance(error, Cancelled):
            return  # stopped by a second Ctrl-C: not recorded, a resumed run redoes it
        collector.add(instance, error if error is not None else future.result())

    def _wind_down(
        self,
        pool: ThreadPoolExecutor,
        futures: dict[Future[InstanceResult], Instance],
        collector: ResultCollector,
        admitted: frozenset[str] | None = None,
    ) -> None:
        """After Ctrl-C: start nothing new, wait for what runs (a second Ctrl-C stops it).
        With test slots, only the ``admitted`` instances are said to be waited for: the
        others stop before their tests (:mod:`polybench.runner.slots`)."""
        for future in futures:
            future.cancel()
        for future, instance in futures.items():
            # Finished while Ctrl-C arrived, before the loop took it: it is a result too.
            done = future.done() and not future.cancelled()
            if done and instance.instance_id not in collector.outcome.results:
                self._collect(collector, instance, future)
        running = [f for f in futures if not f.done() and not f.cancelled()]
        if self.on_interrupt:
            waited = [f for f in running if admitted is None or futures[f].instance_id in admitted]
            self.on_interrupt(len(waited))
        left = set(running)
        try:
            while left:  # waking as the run's loop does, so a second Ctrl-C is seen at once
                ended, _ = wait(left, timeout=_WAKE, return_when=FIRST_COMPLETED)
                for future in ended:
                    self._collect(collector, futures[future], future)
                    left.discard(future)
        except KeyboardInterrupt:
            cancel_all()
            for future in as_completed(left):
                if not future.cancelled():
                    self._collect(collector, futures[future], future)
        pool.shutdown(wait=True)


def write_run_metadata(plan: RunPlan, **fields: Any) -> RunMetadata:
    """Record how the run was started (``run.json``), next to its results."""
    metadata = RunMetadata(
        run_id=plan.run_id,
        polybench_version=__version__,
        started_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        instances=len(plan.instances),
        predictions_source=plan.predictions.source,
        **fields,
    )
    write_metadata(plan.run_dir, metadata)
    return metadata
