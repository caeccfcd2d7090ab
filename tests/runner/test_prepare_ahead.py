"""Preparing instances ahead: a run's extra worker prepares the next instance (sandbox,
patch, tests' install) while another instance's tests run, and its own tests wait for a
test slot, so that no more test commands run at once than ``--workers`` says.

The instance pipeline is the real one (:class:`InstanceRunner` through the real
:class:`Runner`) on scripted sandboxes over real git checkouts
(:mod:`tests.helpers.fake_sandbox`); each test run is held until the test lets it end.
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from polybench.dataset.models import Instance, Prediction
from polybench.dataset.predictions import PredictionSet
from polybench.grading.result import Status
from polybench.runner.instance import InstanceRunner, RunSettings
from polybench.runner.run import Runner, RunPlan
from polybench.runner.slots import TestSlots
from polybench.sandbox.cancel import Cancelled, cancel_all
from polybench.sandbox.cancel import reset as reset_cancel
from tests.helpers.ctrl_c import needs_main_thread, run_until_ctrl_c
from tests.helpers.fake_sandbox import FakeProvider, FakeSandbox, ScriptedRun, is_phase
from tests.runner.test_pipeline_fast import ALL_PASS, FIX, make_instance, repo  # noqa: F401

PATIENCE = 60.0
"""Seconds a test waits at most for something that must happen (it fails if not)."""


def _eventually(condition: Callable[[], bool]) -> bool:
    deadline = time.monotonic() + PATIENCE
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


class _HeldTests:
    """Scripted test runs that record who is in the tests and wait to be let go."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.inside: list[FakeSandbox] = []
        self.most_inside = 0
        self.started: list[FakeSandbox] = []
        self.first_inside = threading.Event()
        self.let_go = threading.Event()

    def run(self, box: FakeSandbox) -> ScriptedRun:
        with self.lock:
            self.inside.append(box)
            self.started.append(box)
            self.most_inside = max(self.most_inside, len(self.inside))
        self.first_inside.set()
        self.let_go.wait(PATIENCE)
        with self.lock:
            self.inside.remove(box)
        return ScriptedRun(stdout=ALL_PASS)


class _Timed(InstanceRunner):
    """The real instance runner, each instance's wall seconds noted."""

    walls: dict[str, float]

    def run(self, instance: Instance, prediction: Prediction, artifacts: object) -> object:  # type: ignore[override]
        started = time.monotonic()
        try:
            return super().run(instance, prediction, artifacts)  # type: ignore[arg-type]
        finally:
            self.walls = getattr(self, "walls", {})
            self.walls[instance.instance_id] = time.monotonic() - started


def _provider(repo: tuple[Path, str], parent: Path, held: _HeldTests) -> FakeProvider:  # noqa: F811
    def fresh() -> FakeSandbox:
        box = FakeSandbox.from_repo(repo[0], repo[1], parent)
        box.script_test_run(held.run)
        return box

    return FakeProvider(fresh(), fresh=fresh)


def _plan(tmp_path: Path, commit: str, count: int, ahead: int) -> RunPlan:
    instances = [
        make_instance(commit).model_copy(update={"instance_id": f"acme__calc-{n}"})
        for n in range(count)
    ]
    predictions = {
        i.instance_id: Prediction(instance_id=i.instance_id, model_patch=FIX) for i in instances
    }
    return RunPlan(
        "r",
        tmp_path / "run",
        instances,
        PredictionSet(predictions, [], "test"),
        workers=1,
        prepare_ahead=ahead,
    )


def _prepared_aside(provider: FakeProvider, held: _HeldTests) -> FakeSandbox | None:
    """The second sandbox handed out, once its patch is in, when its tests have not
    started (either instance may reach the tests first)."""
    if len(provider.sandboxes) < 2:
        return None
    aside = [box for box in provider.sandboxes if box not in held.started]
    if len(aside) != 1 or not aside[0].count(lambda call: is_phase(call, "apply")):
        return None
    return aside[0]


def _run_in_thread(runner: Runner, plan: RunPlan) -> tuple[threading.Thread, list[object]]:
    outcome: list[object] = []
    thread = threading.Thread(target=lambda: outcome.append(runner.run(plan)))
    thread.start()
    return thread, outcome


def test_the_next_instance_is_prepared_while_the_tests_run_and_waits_for_its_slot(
    repo: tuple[Path, str],  # noqa: F811
    tmp_path: Path,
) -> None:
    held = _HeldTests()
    provider = _provider(repo, tmp_path / "boxes", held)
    timed = _Timed(provider, RunSettings(timeout=30, canaries=False))
    runner = Runner(timed)
    plan = _plan(tmp_path, repo[1], 2, ahead=1)
    thread, outcome = _run_in_thread(runner, plan)
    try:
        assert held.first_inside.wait(PATIENCE)
        # While one instance's tests run, the other gets its sandbox and its patch...
        assert _eventually(lambda: _prepared_aside(provider, held) is not None)
        # ...and its tests wait: one test command at a time, as --workers 1 says.
        second = _prepared_aside(provider, held)
        time.sleep(0.3)  # the second instance waits for its slot meanwhile
        assert len(held.started) == 1 and held.started[0] is not second
    finally:
        held.let_go.set()
        thread.join(PATIENCE)
    assert not thread.is_alive()
    assert held.most_inside == 1 and len(held.started) == 2 and held.started[1] is second
    results = outcome[0].results  # type: ignore[attr-defined]
    assert {r.status for r in results.values()} == {Status.RESOLVED}
    # Either instance may have reached the tests first; the other waited. The wait is
    # kept apart: not the instance's own total (the two add up to at most its wall
    # time), nor any step's.
    waiter = max(results.values(), key=lambda r: r.timings.get("waiting", 0.0))
    timings = waiter.timings
    assert timings["waiting"] > 0
    assert timings["total"] + timings["waiting"] <= timed.walls[waiter.instance_id] + 0.002
    assert timings["tests"] <= timings["total"]


def test_without_preparing_ahead_the_next_instance_starts_after_the_first_ended(
    repo: tuple[Path, str],  # noqa: F811
    tmp_path: Path,
) -> None:
    held = _HeldTests()
    provider = _provider(repo, tmp_path / "boxes", held)
    runner = Runner(InstanceRunner(provider, RunSettings(timeout=30, canaries=False)))
    plan = _plan(tmp_path, repo[1], 2, ahead=0)
    thread, outcome = _run_in_thread(runner, plan)
    try:
        assert held.first_inside.wait(PATIENCE)
        assert len(provider.provided) == 1
    finally:
        held.let_go.set()
        thread.join(PATIENCE)
    assert not thread.is_alive() and len(provider.provided) == 2
    assert "waiting" not in outcome[0].results["acme__calc-1"].timings  # type: ignore[attr-defined]


@needs_main_thread
def test_ctrl_c_stops_a_prepared_instance_before_its_tests_and_records_it_not(
    repo: tuple[Path, str],  # noqa: F811
    tmp_path: Path,
) -> None:
    """The first Ctrl-C waits for the instance whose tests run; one that is only
    prepared never starts its tests, is not recorded (a resumed run does it) and leaves
    no sandbox behind."""
    held = _HeldTests()
    provider = _provider(repo, tmp_path / "boxes", held)
    said_running: list[int] = []

    def on_interrupt(running: int) -> None:
        said_running.append(running)
        held.let_go.set()

    runner = Runner(
        InstanceRunner(provider, RunSettings(timeout=30, canaries=False)),
        on_interrupt=on_interrupt,
    )
    plan = _plan(tmp_path, repo[1], 3, ahead=1)
    main = threading.get_ident()

    def press_ctrl_c() -> None:
        if held.first_inside.wait(PATIENCE) and _eventually(
            lambda: _prepared_aside(provider, held) is not None
        ):
            signal.pthread_kill(main, signal.SIGINT)
        else:
            held.let_go.set()

    stopped = run_until_ctrl_c(lambda: runner.run(plan), held.let_go.set, press_ctrl_c)
    tested, aside = held.started[0], _prepared_aside(provider, held)
    recorded = stopped.outcome.results
    assert len(recorded) == 1 and next(iter(recorded.values())).status is Status.RESOLVED
    assert held.started == [tested] and aside is not None  # the prepared one never tested
    assert aside.cleaned and tested.cleaned
    assert len(provider.provided) == 2  # the third never started
    assert said_running == [1]  # the user hears of the one it waits for


@contextmanager
def _held_elsewhere(slots: TestSlots, instance_id: str, order: list[str]) -> Iterator[None]:
    """Another worker holds a slot for ``instance_id`` until the block ends (noted in
    ``order`` as it lets go)."""
    holding = threading.Event()
    let_go = threading.Event()

    def hold() -> None:
        with slots.held(instance_id):
            holding.set()
            let_go.wait(PATIENCE)
            order.append(f"{instance_id} out")

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        assert holding.wait(PATIENCE)
        yield
    finally:
        let_go.set()
        holder.join(PATIENCE)


def test_a_slot_is_held_by_one_worker_at_a_time() -> None:
    slots = TestSlots(1)
    order: list[str] = []

    def second() -> None:
        with slots.held("b"):
            order.append("b in")

    waiter = threading.Thread(target=second)
    with _held_elsewhere(slots, "a", order):
        waiter.start()
    waiter.join(PATIENCE)
    assert order == ["a out", "b in"]


@pytest.mark.parametrize("how", ["closed", "run cancelled"])
def test_a_worker_waiting_for_a_slot_is_turned_away(how: str) -> None:
    slots = TestSlots(1)
    turned_away: list[BaseException] = []

    def wait_for_a_slot() -> None:
        try:
            with slots.held("b"):
                turned_away.append(AssertionError("got a slot"))
        except Cancelled as exc:
            turned_away.append(exc)

    waiter = threading.Thread(target=wait_for_a_slot)
    try:
        with _held_elsewhere(slots, "a", []):
            waiter.start()
            if how == "closed":
                slots.close()
            else:
                cancel_all()
            waiter.join(PATIENCE)
    finally:
        reset_cancel()
    assert [type(exc) for exc in turned_away] == [Cancelled]
    # The slot came back: a new set of slots is not needed for the holder's release.
    assert slots._free.acquire(blocking=False)


def test_an_admitted_instance_gets_a_slot_again_after_close() -> None:
    """An instance whose tests ran once (its canary run) finishes after Ctrl-C; one
    that never held a slot is turned away."""
    slots = TestSlots(1)
    with slots.held("ran"):
        pass
    assert slots.close() == frozenset({"ran"})
    with slots.held("ran"):  # its graded run, after the canary run
        pass
    with pytest.raises(Cancelled), slots.held("new"):
        pass
    assert slots._free.acquire(blocking=False)  # nothing kept the slot


def test_ctrl_c_keeps_the_instance_whose_turn_it_was_and_turns_the_one_ahead_away() -> None:
    """With the slot free, the oldest unfinished instance (still preparing: say, building
    its environment) is the one whose turn it was: Ctrl-C waits for it, as for any running
    instance; the one prepared after it, ahead of its turn, is turned away."""
    slots = TestSlots(1)
    assert slots.close(["its turn", "ahead"]) == frozenset({"its turn"})
    with slots.held("its turn"):
        pass
    with pytest.raises(Cancelled), slots.held("ahead"):
        pass


def test_ctrl_c_counts_an_instance_that_already_ran_its_tests_against_the_slots() -> None:
    slots = TestSlots(1)
    with slots.held("grading"):  # its tests ran; it is writing its result
        pass
    assert slots.close(["grading", "ahead"]) == frozenset({"grading"})
    with pytest.raises(Cancelled), slots.held("ahead"):
        pass


def test_slots_need_at_least_one() -> None:
    with pytest.raises(ValueError):
        TestSlots(0)
