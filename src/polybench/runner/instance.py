"""Evaluate one prediction on one instance: admit the patch, install the tests, run them,
judge; and, when the verdict would be resolved, ask the canary run to confirm it.

Every defence runs here, on any backend: the tamper policy (:mod:`.admission`), the test
patch over a verified base (:func:`.steps.install_tests`), the canary run
(:mod:`.canary_run`, in a sandbox of its own, before or after the graded run at random),
the environment's own tools first, stdout and stderr apart, and the verdict rules of
:mod:`polybench.grading.verdict`. ``result.json`` records all of it.
"""

from __future__ import annotations

import errno
import hashlib
import logging
import os
import random
import secrets
import shutil
import time
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

from polybench.dataset.models import Instance, Language, Prediction
from polybench.environments.errors import ProvisionError
from polybench.environments.provider import ReadySandbox, SandboxProvider
from polybench.grading.canaries import CanaryCheck, CanaryStatus
from polybench.grading.flags import flag_patch
from polybench.grading.parsers import ParseResult
from polybench.grading.parsers.official import official_lists
from polybench.grading.policy import PolicyInputs, command_paths, python_package_dirs
from polybench.grading.probe import ProbeCheck, ProbeStatus
from polybench.grading.result import ErrorKind, InstanceResult, Status
from polybench.grading.testpaths import TestPathRules
from polybench.grading.verdict import Rule
from polybench.runner.admission import Admission, PatchRejected, admit
from polybench.runner.artifacts import DEAD_DISK_ERRNOS, InstanceArtifacts
from polybench.runner.canary_run import CanaryState, canary_run
from polybench.runner.phase import inspect_checkout
from polybench.runner.probe_cache import ProbeCache
from polybench.runner.slots import TestSlots
from polybench.runner.spec import InstanceSpec, SpecError, build_spec
from polybench.runner.steps import (
    Preparation,
    PythonFacts,
    RestoreFailed,
    TestInstall,
    TestPatchFailed,
    TestRun,
    harness_command,
    harness_env,
    install_tests,
    judge,
    preparation,
    prepare,
    probe_folders,
    python_facts,
    run_probed,
    run_tests,
)
from polybench.sandbox.base import SandboxError
from polybench.sandbox.cancel import Cancelled

log = logging.getLogger(__name__)

DEFAULT_TIMEOUT_SECONDS = 1800.0


@dataclass
class RunSettings:
    """Per-instance settings shared by a whole run."""

    timeout: float = DEFAULT_TIMEOUT_SECONDS
    keep_sandbox: bool = False
    rule: str = Rule.STRICT.value
    canaries: bool = True
    refuse_unisolated: bool = False
    """Refuse sandboxes that say their isolation is ``none`` (untrusted predictions the
    user did not ask to run unisolated, on a backend that could not say beforehand)."""
    probe_cache: Path | None = None
    """Where answers about fresh sandboxes are kept across runs
    (:mod:`polybench.runner.probe_cache`); None: asked again in every run."""


class _Infrastructure(Exception):
    """Internal: stop the instance with an infrastructure error."""

    def __init__(self, kind: ErrorKind, message: str) -> None:
        super().__init__(message)
        self.kind = kind


class _Unresolved(Exception):
    """Internal: stop the instance as unresolved (the prediction's fault)."""


@dataclass
class _Probe:
    """The probe across the runs of one instance: on until it fails once (then off for
    every later run, so the runs stay alike), and what it saw in all of them."""

    on: bool
    check: ProbeCheck = field(default_factory=ProbeCheck)

    def add(self, seen: ProbeCheck) -> None:
        """Merge one run's probe check into the instance's."""
        check = self.check
        if seen.status is ProbeStatus.UNAVAILABLE:
            self.on = False
            check.status, check.reason = ProbeStatus.UNAVAILABLE, seen.reason
        elif seen.status is ProbeStatus.READ and check.status is not ProbeStatus.UNAVAILABLE:
            check.status = ProbeStatus.READ
        elif check.status is ProbeStatus.OFF:
            check.status = seen.status
        check.processes += seen.processes
        check.findings += [f for f in seen.findings if f not in check.findings]


@dataclass
class _Timer:
    timings: dict[str, float] = field(default_factory=dict)
    tests_started: bool = False
    """Whether code under test has run yet (the graded or the canary run started)."""
    waits: list[tuple[float, float]] = field(default_factory=list)
    """When the instance waited for a test slot: no step's time, kept as ``waiting``."""

    def measure(self, name: str, started: float) -> None:
        """Add the seconds since ``started`` to ``name``, less any wait for a test slot."""
        now = time.monotonic()
        waited = sum(min(end, now) - max(begin, started) for begin, end in self.waits
                     if end > started and begin < now)  # fmt: skip
        self.timings[name] = round(self.timings.get(name, 0.0) + now - started - waited, 3)

    def waited(self, started: float) -> None:
        """The instance waited for a test slot from ``started`` until now."""
        now = time.monotonic()
        self.waits.append((started, now))
        self.timings["waiting"] = round(self.timings.get("waiting", 0.0) + now - started, 3)

    def start_tests(self) -> None:
        """Code under test starts now (the harness wrote everything it writes before)."""
        self.tests_started = True


_ROOM_NEEDED = 1 << 20
"""Free bytes below which a checkout's file system counts as full."""


def _stop_if_disk_full(ready: ReadySandbox) -> None:
    """Raise ENOSPC when the checkout's file system (where the host can see it) is full: a
    patch that did not apply there, or a step that failed there, had no fair chance,
    which is no verdict. No code of the repository has run yet in this instance, so the
    run stops as for any of the harness's writes (see :meth:`InstanceRunner.run`)."""
    host_path = getattr(ready.sandbox, "host_path", None)
    if host_path is None:
        return
    try:
        free = shutil.disk_usage(host_path(ready.sandbox.workdir)).free
    except (OSError, SandboxError):
        return
    if free < _ROOM_NEEDED:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), ready.sandbox.workdir)


def canary_goes_first(rng: random.Random) -> bool:
    """Which run comes first, at random: the order tells the runs apart no better than a
    coin."""
    return rng.random() < 0.5


def patch_digest(patch: str) -> str:
    """The SHA-256 of a patch, to tell on resume whether a prediction changed."""
    return hashlib.sha256(patch.encode("utf-8", "surrogatepass")).hexdigest()


def provide(
    provider: SandboxProvider, instance: Instance, artifacts: InstanceArtifacts
) -> ReadySandbox:
    """A ready sandbox for ``instance``; a provider's failure becomes an infrastructure
    error of the kind it carries (its log kept as ``build.log`` or ``setup.log``)."""
    try:
        return provider.provide(instance)
    except ProvisionError as exc:
        kept = None
        if exc.log_path is not None and exc.log_path.exists():
            name = "build.log" if exc.kind == ErrorKind.IMAGE_BUILD_FAILED.value else "setup.log"
            artifacts.copy_file(name, exc.log_path)
            kept = artifacts.path(name)
        raise _Infrastructure(_error_kind(exc.kind), exc.summary(kept)) from exc
    except Cancelled:
        raise
    except SandboxError as exc:
        raise _Infrastructure(ErrorKind.SANDBOX_FAILED, str(exc)) from exc


def _error_kind(kind: str) -> ErrorKind:
    try:
        return ErrorKind(kind)
    except ValueError:
        return ErrorKind.SANDBOX_FAILED


def _strings(kept: object, *names: str) -> list[list[str]] | None:
    """The string lists ``names`` of a kept answer, or None when it is not that shape."""
    if not isinstance(kept, dict):
        return None
    lists = [kept.get(name) for name in names]
    for value in lists:
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            return None
    return cast(list[list[str]], lists)


def _facts_from(kept: object) -> PythonFacts | None:
    found = _strings(kept, "modules", "pytest_plugins")
    return PythonFacts(frozenset(found[0]), tuple(found[1])) if found is not None else None


def _facts_kept(facts: PythonFacts) -> dict[str, list[str]]:
    return {"modules": sorted(facts.modules), "pytest_plugins": list(facts.pytest_plugins)}


def _listing_from(kept: object) -> tuple[set[str], set[str]] | None:
    found = _strings(kept, "base", "untracked")
    return (set(found[0]), set(found[1])) if found is not None else None


def _listing_kept(listing: tuple[set[str], set[str]]) -> dict[str, list[str]]:
    return {"base": sorted(listing[0]), "untracked": sorted(listing[1])}


class InstanceRunner:
    """Runs predictions on instances with one sandbox provider and writes their artifacts."""

    def __init__(self, provider: SandboxProvider, settings: RunSettings | None = None) -> None:
        self.provider = provider
        self.settings = settings or RunSettings()
        self._probes = ProbeCache(self.settings.probe_cache)
        self.test_slots: TestSlots | None = None
        """Shared by the workers of a run that prepares instances ahead: the tests of an
        instance run only while it holds a slot (see :mod:`polybench.runner.slots`)."""

    @contextmanager
    def _test_slot(self, instance_id: str, timer: _Timer) -> Iterator[None]:
        """Hold a test slot (when the run has them) while code under test runs."""
        if self.test_slots is None:
            yield
            return
        started = time.monotonic()
        with self.test_slots.held(instance_id):
            timer.waited(started)
            yield

    def run(
        self, instance: Instance, prediction: Prediction, artifacts: InstanceArtifacts
    ) -> InstanceResult:
        """Evaluate ``prediction``; never raises: failures become the result's status."""
        result = InstanceResult(
            instance_id=instance.instance_id,
            repo=instance.repo,
            language=instance.language.value,
            model_name_or_path=prediction.model_name_or_path,
            status=Status.ERROR,
            patch_sha256=patch_digest(prediction.model_patch),
            backend=self.provider.name,
            rule=self.settings.rule,
        )
        timer = _Timer()
        artifacts.write_text("patch.diff", prediction.model_patch)
        started = time.monotonic()
        try:
            self._evaluate(instance, prediction, artifacts, result, timer)
        except _Unresolved as stop:
            result.status = Status.UNRESOLVED
            result.reason = str(stop)
        except _Infrastructure as stop:
            result.status = Status.ERROR
            result.error_kind = stop.kind
            result.reason = str(stop)
        except Cancelled:
            raise  # the whole run stops: this instance is not recorded
        except SandboxError as exc:
            result.status = Status.ERROR
            result.error_kind = ErrorKind.SANDBOX_FAILED
            result.reason = f"the sandbox failed: {exc}"
        except OSError as exc:
            if exc.errno in DEAD_DISK_ERRNOS and not timer.tests_started:
                # The harness's own write met a full or read-only disk before any code
                # under test ran (so none of it filled the disk): every later instance
                # would fail the same way, and the run stops (see ResultCollector).
                raise
            result.status = Status.ERROR
            result.error_kind = ErrorKind.HARNESS_ERROR
            result.reason = f"{type(exc).__name__}: {exc}"
            artifacts.write_text("harness_error.txt", traceback.format_exc())
        except Exception as exc:
            result.status = Status.ERROR
            result.error_kind = ErrorKind.HARNESS_ERROR
            result.reason = f"{type(exc).__name__}: {exc}"
            artifacts.write_text("harness_error.txt", traceback.format_exc())
        timer.measure("total", started)
        result.timings = timer.timings
        log.debug(
            "%s: %s after %s (%s)",
            instance.instance_id,
            result.status.value,
            ", ".join(f"{step} {seconds:.1f}s" for step, seconds in timer.timings.items()),
            result.reason or "no reason",
        )
        return result

    def _evaluate(
        self,
        instance: Instance,
        prediction: Prediction,
        artifacts: InstanceArtifacts,
        result: InstanceResult,
        timer: _Timer,
    ) -> None:
        if prediction.is_empty:
            result.status = Status.EMPTY_PATCH
            result.reason = "the prediction has no patch"
            return
        try:
            spec = build_spec(instance)
        except SpecError as exc:
            raise _Infrastructure(ErrorKind.UNKNOWN_PARSER, str(exc)) from exc
        result.parser = spec.parser
        patch = prediction.model_patch
        state: CanaryState | None = None
        # The harness's additions to a run (the canary run, the probe) go together.
        probe = _Probe(on=self.settings.canaries)
        if self.settings.canaries:
            state = CanaryState(random.Random(secrets.randbits(64)))
            if canary_goes_first(state.rng):
                self._canary_run(instance, spec, patch, state, artifacts, timer, probe)
        started = time.monotonic()
        log.debug("%s: providing a %s sandbox", instance.instance_id, self.provider.name)
        ready = provide(self.provider, instance, artifacts)
        timer.measure("setup", started)
        log.debug(
            "%s: sandbox ready (%s isolation, environment %s%s)",
            instance.instance_id,
            ready.sandbox.isolation,
            ready.environment.recipe,
            ", reused" if ready.environment.reused else "",
        )
        result.isolation = ready.sandbox.isolation
        if self.settings.refuse_unisolated and ready.sandbox.isolation == "none":
            ready.sandbox.cleanup()
            raise _Infrastructure(
                ErrorKind.UNISOLATED_REFUSED,
                "the backend's sandbox is not isolated; an untrusted prediction does not run "
                "in it unless unisolated runs are asked for",
            )
        result.environment = ready.environment.recipe
        result.environment_reused = ready.environment.reused
        result.environment_rebuilt = ready.environment.rebuilt
        try:
            spec_run = self._graded_run(ready, spec, patch, artifacts, result, timer, state, probe)
        except SandboxError:
            if not timer.tests_started:  # a step failed on a full disk: no instance's fault
                _stop_if_disk_full(ready)
            raise
        finally:
            if not self.settings.keep_sandbox:
                ready.sandbox.cleanup()
        started = time.monotonic()
        unchecked = judge(spec, spec_run)
        timer.measure("grade", started)
        verdict = unchecked.verdict
        would_resolve = verdict.strict_resolved or verdict.official_resolved
        check = self._canary_answer(
            instance, spec, patch, state, artifacts, timer, would_resolve, probe
        )
        result.tampering.probe = probe.check
        self._record_verdict(spec, spec_run, unchecked.parsed, check, result)

    def _canary_run(
        self,
        instance: Instance,
        spec: InstanceSpec,
        patch: str,
        state: CanaryState,
        artifacts: InstanceArtifacts,
        timer: _Timer,
        probe: _Probe,
    ) -> None:
        started = time.monotonic()

        def checkout(ready: ReadySandbox, texts: dict[str, str] | None) -> None:
            self._checkout(ready, spec, patch, texts, probe)

        def run_in(ready: ReadySandbox, texts: dict[str, str], prepared: bool) -> TestRun:
            with self._test_slot(spec.instance_id, timer):
                return self._run(ready, spec, texts, probe, timer, prepared)

        canary_run(
            spec,
            state,
            lambda: provide(self.provider, instance, artifacts),
            checkout,
            run_in,
            artifacts,
            self.settings.keep_sandbox,
        )
        timer.measure("canaries", started)

    def _canary_answer(
        self,
        instance: Instance,
        spec: InstanceSpec,
        patch: str,
        state: CanaryState | None,
        artifacts: InstanceArtifacts,
        timer: _Timer,
        would_resolve: bool,
        probe: _Probe,
    ) -> CanaryCheck:
        """The canary run's answer: made now when the graded run would resolve and it was
        not made first; only asked for when it could change the verdict."""
        if state is None:
            return CanaryCheck(status=CanaryStatus.OFF, reason="canaries are off for this run")
        if not would_resolve:
            return CanaryCheck(
                status=CanaryStatus.NOT_NEEDED,
                reason="the graded run does not resolve: nothing for canaries to confirm",
            )
        if not state.done:
            self._canary_run(instance, spec, patch, state, artifacts, timer, probe)
        return state.check

    def _facts(self, ready: ReadySandbox, spec: InstanceSpec) -> PythonFacts | None:
        if spec.language is not Language.PYTHON:
            return None
        environment = ready.environment

        def ask() -> PythonFacts:
            return python_facts(ready.sandbox, environment.exec_env(ready.sandbox.workdir))

        return self._probes.answer("facts", environment, "", ask, _facts_kept, _facts_from)

    def _inspect(self, ready: ReadySandbox, spec: InstanceSpec) -> tuple[set[str], set[str]]:
        """The base commit's files and the untracked paths of a fresh checkout: the same
        in every sandbox of one environment at one commit, so asked of the first alone."""
        at_base, untracked = self._probes.answer(
            "inspect",
            ready.environment,
            spec.base_commit,
            lambda: inspect_checkout(ready.sandbox, spec.base_commit),
            _listing_kept,
            _listing_from,
        )
        return set(at_base), set(untracked)

    def _checkout(
        self,
        ready: ReadySandbox,
        spec: InstanceSpec,
        patch: str,
        texts: dict[str, str] | None,
        probe: _Probe,
    ) -> None:
        """Admit the patch and install the tests, as for the graded run (the canary run's
        checkout), and write ``texts`` for the run when they are given; raises what
        :meth:`_admit` and :func:`install_tests` raise."""
        then = None if texts is None else self._preparation(ready, texts, probe)
        admission, at_base, planned = self._admit(ready, spec, patch, then)
        if not admission.applied:
            raise PatchRejected("the patch did not apply")
        self._install(ready, admission, at_base, planned)

    @staticmethod
    def _preparation(ready: ReadySandbox, texts: dict[str, str], probe: _Probe) -> Preparation:
        return preparation(ready, texts, probe_folders(ready.sandbox) if probe.on else ())

    @staticmethod
    def _install(
        ready: ReadySandbox, admission: Admission, at_base: set[str], planned: TestInstall
    ) -> None:
        """Install the tests (and make the preparation) after :meth:`_admit`: read from
        the patch's own sandbox entry when ``planned`` ran there, else in an entry of
        their own; raises what :func:`install_tests` raises."""
        if admission.then_report is not None:
            planned.check(admission.then_report)
            return
        install_tests(ready.sandbox, planned.spec, at_base, admission.restored, planned.then)

    def _admit(
        self, ready: ReadySandbox, spec: InstanceSpec, patch: str, then: Preparation | None
    ) -> tuple[Admission, set[str], TestInstall]:
        """Admit the patch (the same in both runs): what happened, the base's files, and
        the tests' install (with ``then``) planned for the case that nothing is put back,
        which goes with the patch where it can (see :meth:`_install`).
        Raises :class:`PatchRejected`."""
        sandbox = ready.sandbox
        at_base, untracked_before = self._inspect(ready, spec)
        facts = self._facts(ready, spec)
        inputs = PolicyInputs(
            language=spec.language,
            test_rules=TestPathRules(),
            gold_paths=frozenset(spec.gold_paths),
            test_patch_paths=frozenset(spec.test_patch_files),
            command_paths=command_paths(spec.test_command, at_base),
            python_packages=python_package_dirs(at_base),
            protected_modules=facts.modules if facts is not None else frozenset(),
            base_paths=frozenset(at_base),
        )
        planned = TestInstall(spec, at_base, set(), then)
        admission = admit(
            sandbox,
            patch,
            inputs,
            untracked_before,
            spec.base_commit,
            defer_restore=True,
            then=planned.script,
        )
        return admission, at_base, planned

    def _run(
        self,
        ready: ReadySandbox,
        spec: InstanceSpec,
        texts: dict[str, str],
        probe: _Probe,
        timer: _Timer,
        prepared: bool = False,
    ) -> TestRun:
        """Write ``texts`` (armed, or as they are) and put the environment in, unless the
        tests' install did both (``prepared``); run the tests (with the probe, while it
        works)."""
        if not prepared:
            prepare(ready, texts, probe_folders(ready.sandbox) if probe.on else ())
        env = harness_env(ready, self._facts(ready, spec))
        command = harness_command(ready, spec)
        timeout, start = self.settings.timeout, timer.start_tests
        if not probe.on:
            return run_tests(ready.sandbox, spec, env, timeout, command, on_start=start)
        run, check = run_probed(ready.sandbox, spec, env, timeout, command, start)
        probe.add(check)
        return run

    def _graded_run(
        self,
        ready: ReadySandbox,
        spec: InstanceSpec,
        patch: str,
        artifacts: InstanceArtifacts,
        result: InstanceResult,
        timer: _Timer,
        state: CanaryState | None,
        probe: _Probe,
    ) -> TestRun:
        started = time.monotonic()
        # The files the canary run arms are written here too, unchanged and the same way;
        # when they are known already (or there are none) the tests' install writes them.
        known = state is None or state.arming is not None
        texts = state.arming.originals if state is not None and state.arming else {}
        then = self._preparation(ready, texts, probe) if known else None
        try:
            admission, at_base, planned = self._admit(ready, spec, patch, then)
        except PatchRejected as exc:
            result.tampering.refused = exc.refused
            raise _Unresolved(str(exc)) from exc
        artifacts.write_text("apply.log", admission.log)
        result.tampering.reverted = admission.reverted
        result.tampering.refused = admission.refused
        if not admission.applied:
            _stop_if_disk_full(ready)
            raise _Unresolved("the patch did not apply (git apply, git apply --3way, patch)")
        result.patch_applied = True
        result.apply_method = admission.method
        result.patch_files = sorted(admission.kept)
        result.tampering.flags = flag_patch(patch, admission.kept)
        try:
            self._install(ready, admission, at_base, planned)
        except TestPatchFailed as exc:
            artifacts.write_text("test_patch_apply.log", str(exc))
            raise _Infrastructure(
                ErrorKind.TEST_PATCH_FAILED, "the dataset's test patch did not apply"
            ) from exc
        except RestoreFailed as exc:
            result.tampering.detected.append(str(exc))
            raise _Unresolved(f"tampering detected: {exc}") from exc
        if not known and state is not None:
            texts = state.arming_for(ready, spec).originals
        timer.measure("apply", started)

        log.debug("%s: patch applied by %s; running the tests", spec.instance_id, admission.method)
        with self._test_slot(spec.instance_id, timer):
            started = time.monotonic()
            run = self._run(ready, spec, texts, probe, timer, prepared=known)
            timer.measure("tests", started)
        artifacts.write_text("eval.sh", run.script)
        artifacts.write_text("test_output.txt", run.executed.output)
        if run.executed.stdout is not None:
            artifacts.write_text("test_stdout.txt", run.executed.stdout)
            artifacts.write_text("test_stderr.txt", run.executed.stderr or "")
        result.test_exit_code = run.marked.exit_code
        result.process_exit_code = run.executed.exit_code
        result.tampering.truncated_bytes = run.executed.truncated_bytes
        return run

    def _record_verdict(
        self,
        spec: InstanceSpec,
        run: TestRun,
        parsed: ParseResult,
        check: CanaryCheck,
        result: InstanceResult,
    ) -> None:
        probe = result.tampering.probe
        judgement = judge(spec, run, check, Rule(self.settings.rule), parsed, probe)
        verdict = judgement.verdict
        result.log_parsed = judgement.parsed.parsed_anything
        result.log_passed_tests, result.log_failed_tests = official_lists(judgement.parsed)
        result.tests_in_log = len(judgement.parsed.statuses)
        result.f2p, result.p2p = verdict.f2p, verdict.p2p
        result.status, result.reason = verdict.status, verdict.reason
        result.error_kind = verdict.error_kind
        result.build_failure = verdict.build_failure
        ran = verdict.error_kind is None
        result.strict_resolved = verdict.strict_resolved if ran else None
        result.official_resolved = verdict.official_resolved if ran else None
        tampering = result.tampering
        tampering.canaries = judgement.canaries
        tampering.distrusted_reports = list(judgement.parsed.distrust)
        tampering.detected += [d for d in verdict.detected if d not in tampering.detected]
