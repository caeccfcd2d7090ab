"""Evaluate one prediction on one instance: admit the patch, install the tests, plant the
canaries, run, judge.

Every defence runs here, on any backend: the tamper policy (:mod:`.admission`), the test
patch over a verified base (:func:`.steps.install_tests`), canaries, the environment's own
tools first, stdout and stderr apart, and the verdict rules of
:mod:`polybench.grading.verdict`. ``result.json`` records all of it.
"""

from __future__ import annotations

import hashlib
import logging
import random
import secrets
import time
import traceback
from dataclasses import dataclass, field

from polybench.dataset.models import Instance, Language, Prediction
from polybench.environments.errors import ProvisionError
from polybench.environments.provider import ReadySandbox, SandboxProvider
from polybench.grading.canaries import Canary, canaries_json
from polybench.grading.flags import flag_patch
from polybench.grading.parsers.official import official_lists
from polybench.grading.policy import PolicyInputs, command_paths, python_package_dirs
from polybench.grading.result import ErrorKind, InstanceResult, Status
from polybench.grading.testpaths import TestPathRules
from polybench.grading.verdict import Rule
from polybench.runner.admission import Admission, PatchRejected, admit
from polybench.runner.artifacts import InstanceArtifacts
from polybench.runner.checkout import base_files, untracked_entries
from polybench.runner.spec import InstanceSpec, SpecError, build_spec
from polybench.runner.steps import (
    PythonFacts,
    RestoreFailed,
    TestPatchFailed,
    harness_command,
    harness_env,
    install_tests,
    judge,
    plant,
    prepare,
    python_facts,
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


class _Infrastructure(Exception):
    """Internal: stop the instance with an infrastructure error."""

    def __init__(self, kind: ErrorKind, message: str) -> None:
        super().__init__(message)
        self.kind = kind


class _Unresolved(Exception):
    """Internal: stop the instance as unresolved (the prediction's fault)."""


@dataclass
class _Timer:
    timings: dict[str, float] = field(default_factory=dict)

    def measure(self, name: str, started: float) -> None:
        self.timings[name] = round(self.timings.get(name, 0.0) + time.monotonic() - started, 3)


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


class InstanceRunner:
    """Runs predictions on instances with one sandbox provider and writes their artifacts."""

    def __init__(self, provider: SandboxProvider, settings: RunSettings | None = None) -> None:
        self.provider = provider
        self.settings = settings or RunSettings()
        self._python_facts: dict[tuple[str, str], PythonFacts] = {}

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
            self._run_in(ready, spec, prediction.model_patch, artifacts, result, timer)
        finally:
            if not self.settings.keep_sandbox:
                ready.sandbox.cleanup()

    def _facts(self, ready: ReadySandbox, spec: InstanceSpec) -> PythonFacts | None:
        if spec.language is not Language.PYTHON:
            return None
        environment = ready.environment
        key = (environment.recipe, str(environment.env_dir))
        if key not in self._python_facts:
            env = environment.exec_env(ready.sandbox.workdir)
            self._python_facts[key] = python_facts(ready.sandbox, env)
        return self._python_facts[key]

    def _admit(
        self,
        ready: ReadySandbox,
        spec: InstanceSpec,
        patch: str,
        facts: PythonFacts | None,
        at_base: set[str],
        result: InstanceResult,
        artifacts: InstanceArtifacts,
    ) -> Admission:
        sandbox = ready.sandbox
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
        try:
            admission = admit(sandbox, patch, inputs, untracked_entries(sandbox), spec.base_commit)
        except PatchRejected as exc:
            result.tampering.refused = exc.refused
            raise _Unresolved(str(exc)) from exc
        artifacts.write_text("apply.log", admission.log)
        result.tampering.reverted = admission.reverted
        result.tampering.refused = admission.refused
        if not admission.applied:
            raise _Unresolved("the patch did not apply (git apply, git apply --3way, patch)")
        result.patch_applied = True
        result.apply_method = admission.method
        return admission

    def _run_in(
        self,
        ready: ReadySandbox,
        spec: InstanceSpec,
        patch: str,
        artifacts: InstanceArtifacts,
        result: InstanceResult,
        timer: _Timer,
    ) -> None:
        sandbox = ready.sandbox
        started = time.monotonic()
        at_base = base_files(sandbox, spec.base_commit)
        facts = self._facts(ready, spec)
        admission = self._admit(ready, spec, patch, facts, at_base, result, artifacts)
        result.patch_files = sorted(admission.kept)
        result.tampering.flags = flag_patch(patch, admission.kept)
        try:
            install_tests(sandbox, spec, at_base, admission.restored)
        except TestPatchFailed as exc:
            artifacts.write_text("test_patch_apply.log", str(exc))
            raise _Infrastructure(
                ErrorKind.TEST_PATCH_FAILED, "the dataset's test patch did not apply"
            ) from exc
        except RestoreFailed as exc:
            result.tampering.detected.append(str(exc))
            raise _Unresolved(f"tampering detected: {exc}") from exc
        canaries: list[Canary] = []
        not_planted: str | None = "canaries are off for this run"
        if self.settings.canaries:
            canaries, not_planted = plant(sandbox, spec, random.Random(secrets.randbits(64)))
        prepare(ready)
        timer.measure("apply", started)

        started = time.monotonic()
        log.debug("%s: patch applied by %s; running the tests", spec.instance_id, admission.method)
        command = harness_command(ready, spec)
        run = run_tests(sandbox, spec, harness_env(ready, facts), self.settings.timeout, command)
        timer.measure("tests", started)
        artifacts.write_text("eval.sh", run.script)
        artifacts.write_text("test_output.txt", run.executed.output)
        if run.executed.stdout is not None:
            artifacts.write_text("test_stdout.txt", run.executed.stdout)
            artifacts.write_text("test_stderr.txt", run.executed.stderr or "")
        result.test_exit_code = run.marked.exit_code
        result.process_exit_code = run.executed.exit_code
        if canaries:
            # For regrading from the logs; never in result.json or any report.
            artifacts.write_text("canaries.json", canaries_json(canaries))
        result.tampering.truncated_bytes = run.executed.truncated_bytes

        started = time.monotonic()
        judgement = judge(spec, run, canaries, not_planted, Rule(self.settings.rule))
        timer.measure("grade", started)
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
