"""Pieces shared by the executors: retries, result collection, the output directory dying,
and backends by name."""

from __future__ import annotations

import errno
import os
import signal
import threading
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

import polybench.runner.run as run_module
from polybench.dataset.models import Instance, Prediction
from polybench.dataset.predictions import PredictionSet
from polybench.environments.backends import (
    Backend,
    BackendOptionsError,
    ProviderSettings,
    UnknownBackend,
    build_provider,
    get_backend,
)
from polybench.environments.provider import LocalProvider
from polybench.grading.result import ErrorKind, InstanceResult, Status
from polybench.runner.artifacts import InstanceArtifacts
from polybench.runner.executors import make_runner
from polybench.runner.instance import RunSettings
from polybench.runner.run import (
    OutputDirectoryError,
    ResultCollector,
    Runner,
    RunOutcome,
    RunPlan,
    evaluate_instance,
    output_failure,
)
from tests.helpers.ctrl_c import needs_main_thread, run_until_ctrl_c


def _instance(number: int) -> Instance:
    return Instance(
        instance_id=f"o__r-{number}", repo="o/r", base_commit="0" * 40, language="Python"
    )


class _Scripted:
    """An instance runner whose results (or exceptions) follow a script."""

    def __init__(self, script: list[ErrorKind | BaseException | None]) -> None:
        self.script = script
        self.calls = 0

    def run(
        self, instance: Instance, prediction: Prediction, artifacts: InstanceArtifacts
    ) -> InstanceResult:
        step = self.script[min(self.calls, len(self.script) - 1)]
        self.calls += 1
        artifacts.write_text("patch.diff", prediction.model_patch)
        if isinstance(step, BaseException):
            raise step
        status = Status.RESOLVED if step is None else Status.ERROR
        return InstanceResult(
            instance_id=instance.instance_id,
            repo=instance.repo,
            language="Python",
            status=status,
            error_kind=step,
        )


def test_retried_errors_are_redone_from_a_clean_folder(tmp_path: Path) -> None:
    artifacts = InstanceArtifacts(tmp_path / "i")
    seen: list[tuple[int, list[str]]] = []

    def before(target: InstanceArtifacts, attempt: int) -> None:
        names = (
            sorted(p.name for p in target.directory.iterdir()) if target.directory.exists() else []
        )
        seen.append((attempt, names))

    runner = _Scripted([ErrorKind.NO_END_MARKER, None])
    prediction = Prediction(instance_id="o__r-1", model_patch="diff")
    result = evaluate_instance(runner, _instance(1), prediction, artifacts, 2, before)  # type: ignore[arg-type]
    assert result.status is Status.RESOLVED and result.attempts == 2
    assert seen == [(1, []), (2, [])]


def test_errors_that_are_not_retried_stay(tmp_path: Path) -> None:
    runner = _Scripted([ErrorKind.TIMEOUT, None])
    prediction = Prediction(instance_id="o__r-1", model_patch="diff")
    result = evaluate_instance(runner, _instance(1), prediction, InstanceArtifacts(tmp_path), 2)  # type: ignore[arg-type]
    assert result.error_kind is ErrorKind.TIMEOUT and runner.calls == 1


def _plan(tmp_path: Path, count: int) -> RunPlan:
    """One worker, one instance at a time (no instance prepared ahead)."""
    instances = [_instance(n) for n in range(count)]
    predictions = {
        i.instance_id: Prediction(instance_id=i.instance_id, model_patch=f"p{i.instance_id}")
        for i in instances
    }
    return RunPlan(
        "r", tmp_path / "run", instances, PredictionSet(predictions, [], "test"), prepare_ahead=0
    )


def test_the_collector_turns_a_dead_output_directory_into_a_clear_error(tmp_path: Path) -> None:
    plan = _plan(tmp_path, 1)
    collector = ResultCollector(plan, RunOutcome())
    full = OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), "result.json")
    try:
        try:
            raise full
        except OSError:
            raise RuntimeError("while writing") from None
    except RuntimeError as wrapped:
        assert output_failure(wrapped) is full  # found through the implicit context
        with pytest.raises(OutputDirectoryError) as stopped:
            collector.add(plan.instances[0], wrapped)
    message = str(stopped.value)
    assert f"cannot write results to {plan.run_dir}: No space left on device" in message
    assert "run the same --run-id again to resume" in message


def test_other_failures_become_harness_errors_and_the_run_goes_on(tmp_path: Path) -> None:
    plan = _plan(tmp_path, 1)
    plan.run_dir.mkdir(parents=True)
    outcome = RunOutcome()
    shown: list[InstanceResult] = []
    result = ResultCollector(plan, outcome, shown.append).add(plan.instances[0], ValueError("boom"))
    assert result.status is Status.ERROR and result.error_kind is ErrorKind.HARNESS_ERROR
    assert result.reason == "could not record the result: ValueError: boom"
    assert outcome.evaluated == ["o__r-0"] and shown == [result]


def test_a_full_disk_stops_the_local_runner(tmp_path: Path) -> None:
    plan = _plan(tmp_path, 6)
    full = OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    scripted = _Scripted([None, full])
    runner = Runner(scripted)  # type: ignore[arg-type]
    with pytest.raises(OutputDirectoryError):
        runner.run(plan)
    # The failing instance, and at most the one its thread took next: the rest cancelled.
    assert scripted.calls <= 3
    assert [p.parent.name for p in plan.instances_dir.glob("*/result.json")] == ["o__r-0"]


class FlavourOptions(BaseModel):
    flavour: str


class FakeBackend(Backend):
    name = "fake"
    Options = FlavourOptions

    def provider(self, settings: ProviderSettings) -> Any:
        options = self.options(settings.options)
        assert isinstance(options, FlavourOptions)
        return ("fake", options.flavour)


def test_backends_by_name_or_by_import_path(tmp_path: Path) -> None:
    local = build_provider(ProviderSettings(work_dir=tmp_path, options={"isolation": "none"}))
    assert isinstance(local, LocalProvider) and local.work_dir == tmp_path
    custom = ProviderSettings(backend=f"{__name__}:FakeBackend", options={"flavour": "x"})
    assert build_provider(custom) == ("fake", "x")
    with pytest.raises(UnknownBackend, match="unknown backend 'podman'"):
        get_backend("podman")
    with pytest.raises(UnknownBackend, match="cannot be loaded"):
        get_backend("polybench.nothing_here:factory")
    with pytest.raises(BackendOptionsError, match="isolation"):
        build_provider(ProviderSettings(options={"isolation": "chroot"}))
    with pytest.raises(BackendOptionsError, match="flavour: Field required"):
        build_provider(ProviderSettings(backend=f"{__name__}:FakeBackend"))


def test_the_local_executor_is_a_thread_pool_runner(tmp_path: Path) -> None:
    runner = make_runner("local", ProviderSettings(work_dir=tmp_path), RunSettings(timeout=5))
    assert isinstance(runner, Runner)
    assert runner.instance_runner.settings.timeout == 5


def test_after_ctrl_c_an_instance_that_had_just_finished_is_a_result(tmp_path: Path) -> None:
    from concurrent.futures import Future, ThreadPoolExecutor

    plan = _plan(tmp_path, 3)
    outcome = RunOutcome()
    collector = ResultCollector(plan, outcome)
    first, second, third = plan.instances
    finished: Future[InstanceResult] = Future()  # done, but the loop had not taken it
    finished.set_result(
        InstanceResult(
            instance_id=first.instance_id, repo="o/r", language="Python", status=Status.RESOLVED
        )
    )
    taken: Future[InstanceResult] = Future()  # done and already recorded
    taken.set_result(
        InstanceResult(
            instance_id=second.instance_id, repo="o/r", language="Python", status=Status.RESOLVED
        )
    )
    collector.add(second, taken.result())
    queued: Future[InstanceResult] = Future()  # never started
    runner = Runner(_Scripted([None]))  # type: ignore[arg-type]
    with ThreadPoolExecutor(1) as pool:
        runner._wind_down(pool, {finished: first, taken: second, queued: third}, collector)
    assert sorted(outcome.results) == [first.instance_id, second.instance_id]
    assert outcome.evaluated.count(second.instance_id) == 1
    assert queued.cancelled()


class _Held:
    """An instance runner whose first instance waits for ``release`` (the others do not)."""

    def __init__(self) -> None:
        self.started = threading.Event()
        self.release = threading.Event()
        self.thread_id: int | None = None
        self.calls = 0

    def run(
        self, instance: Instance, prediction: Prediction, artifacts: InstanceArtifacts
    ) -> InstanceResult:
        self.calls += 1
        if self.calls == 1:
            self.thread_id = threading.get_ident()
            self.started.set()
            self.release.wait(timeout=120)
        return InstanceResult(
            instance_id=instance.instance_id, repo="o/r", language="Python", status=Status.RESOLVED
        )


@needs_main_thread
def test_ctrl_c_on_a_worker_thread_stops_the_run_while_its_instance_still_runs(
    tmp_path: Path,
) -> None:
    """A terminal's Ctrl-C goes to the process, and the kernel may hand it to the thread
    that runs an instance: the run still stops starting instances at once, not when that
    instance ends (which could take the test's whole timeout)."""
    plan = _plan(tmp_path, 3)
    held = _Held()
    interrupted = threading.Event()
    running_then: list[int] = []

    def on_interrupt(running: int) -> None:
        running_then.append(running)
        interrupted.set()

    def press_ctrl_c() -> None:
        assert held.started.wait(timeout=120)
        assert held.thread_id is not None
        signal.pthread_kill(held.thread_id, signal.SIGINT)  # to the instance's thread
        interrupted.wait(timeout=60)  # seen while the instance still runs (or never)
        held.release.set()

    runner = Runner(held, on_interrupt=on_interrupt)  # type: ignore[arg-type]
    stopped = run_until_ctrl_c(lambda: runner.run(plan), held.release.set, press_ctrl_c)
    # Ctrl-C was taken while the first instance was held, and nothing else started.
    assert running_then == [1] and held.calls == 1
    assert list(stopped.outcome.results) == ["o__r-0"]


def _take_pending_signals() -> None:
    """A call: where the interpreter runs the handler of a signal that just arrived."""


class _CtrlCInSubmit(run_module.ThreadPoolExecutor):
    """A pool whose ``submit`` takes a Ctrl-C once the instance is handed to a worker."""

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Any:
        future = super().submit(fn, *args, **kwargs)
        signal.raise_signal(signal.SIGINT)
        _take_pending_signals()
        return future


@needs_main_thread
def test_ctrl_c_while_an_instance_is_being_started_leaves_it_seen_and_recorded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Ctrl-C taken inside ``submit``, after the worker got the instance, must not
    leave that instance running unseen: it counts as running, and its result is kept."""
    monkeypatch.setattr(run_module, "ThreadPoolExecutor", _CtrlCInSubmit)
    plan = _plan(tmp_path, 3)
    held = _Held()
    running_then: list[int] = []

    def on_interrupt(running: int) -> None:
        running_then.append(running)
        held.release.set()

    runner = Runner(held, on_interrupt=on_interrupt)  # type: ignore[arg-type]
    stopped = run_until_ctrl_c(lambda: runner.run(plan), held.release.set)
    assert running_then == [1] and held.calls == 1
    assert list(stopped.outcome.results) == ["o__r-0"]
