"""Execution-based validation: which tests the gold patch turns from failing to passing.

For each instance, in two fresh sandboxes at the base commit:

- ``before``: the test patch applied, the test command run ``runs`` times;
- ``after``: the gold patch then the test patch applied (the order ``polybench eval``
  uses), the test command run ``runs`` times.

The runs of a phase share one checkout, so a test that depends on state left behind
by an earlier run shows up as flaky. A test passes in a run when its log says passed
(or xfail); failed, errored, skipped and absent all count as not passing. Then:

- flaky: passes in some runs of a phase and not in others: dropped, and reported;
- F2P: not passing in every ``before`` run and passing in every ``after`` run;
- P2P: passing in every run of both phases;
- pass -> fail: passing in every ``before`` run and in no ``after`` run.

An instance is invalid when no F2P test remains or some test goes pass -> fail; and also
when a patch does not apply, a run times out, loses its end marker or forges it, a report
cannot be trusted (cut short, malformed), or a log holds no test result where one is
needed. A ``before`` run whose log cannot be read makes the instance invalid (never an F2P
list of every test), unless the log shows the build or the test collection failing (a test
patch that uses code the fix adds): then the tests that pass after are F2P. Environment
failures are errors (retried on a rerun), not verdicts.

The phases use the same per-instance steps as ``polybench eval`` (the gold patch goes
through the same admission, the test patch over verified base files, the same test run
with stdout and stderr apart, the same parsers).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, Field

from polybench.atomic import atomic_write_text
from polybench.dataset.models import Instance, Language
from polybench.environments.errors import ProvisionError
from polybench.environments.provider import ReadySandbox, SandboxProvider
from polybench.grading.parsers.base import TestStatus
from polybench.grading.policy import PolicyInputs, command_paths, python_package_dirs
from polybench.grading.verdict import build_failure, missing_dependency
from polybench.runner.admission import PatchRejected, admit
from polybench.runner.checkout import base_files, untracked_entries
from polybench.runner.spec import InstanceSpec, SpecError, build_spec
from polybench.runner.steps import (
    PythonFacts,
    RestoreFailed,
    TestPatchFailed,
    harness_command,
    harness_env,
    install_tests,
    preparation,
    python_facts,
    read_results,
    run_tests,
)
from polybench.sandbox.base import SandboxError

DEFAULT_RUNS = 3
_PASSING = (TestStatus.PASSED, TestStatus.XFAIL)


class RunRecord(BaseModel):
    """One execution of the test command."""

    phase: str
    index: int
    exit_code: int | None
    tests: int
    passed: int
    seconds: float


class ValidationResult(BaseModel):
    """The verdict on one instance (``status``: valid, invalid or error)."""

    instance_id: str
    status: str
    kind: str | None = None
    """Why it is not valid: no_f2p, pass_to_fail, gold_patch_failed, test_patch_failed,
    restore_failed, timeout, no_end_marker, forged_end_marker, untrusted_log,
    before_unparsable, no_test_results, unknown_parser; or, for errors, environment,
    sandbox or harness_error."""
    reason: str | None = None
    F2P: list[str] = Field(default_factory=list)
    P2P: list[str] = Field(default_factory=list)
    flaky: list[str] = Field(default_factory=list)
    pass_to_fail: list[str] = Field(default_factory=list)
    runs: list[RunRecord] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    seconds: float = 0.0

    @property
    def valid(self) -> bool:
        """True when the instance goes into the dataset."""
        return self.status == "valid"


@dataclass(frozen=True)
class Classification:
    """Tests sorted by how they behaved over the runs of both phases."""

    f2p: list[str]
    p2p: list[str]
    flaky: list[str]
    pass_to_fail: list[str]


def _passing_everywhere(test: str, runs: list[dict[str, TestStatus]]) -> bool:
    return all(run.get(test) in _PASSING for run in runs)


def _passing_nowhere(test: str, runs: list[dict[str, TestStatus]]) -> bool:
    return not any(run.get(test) in _PASSING for run in runs)


def classify(
    before: list[dict[str, TestStatus]], after: list[dict[str, TestStatus]]
) -> Classification:
    """Classify every test seen in any run (see the module docstring)."""
    tests = sorted({test for run in (*before, *after) for test in run})
    flaky, f2p, p2p, p2f = [], [], [], []
    for test in tests:
        stable = all(
            _passing_everywhere(test, runs) or _passing_nowhere(test, runs)
            for runs in (before, after)
        )
        if not stable:
            flaky.append(test)
        elif _passing_nowhere(test, before) and _passing_everywhere(test, after):
            f2p.append(test)
        elif _passing_everywhere(test, before) and _passing_everywhere(test, after):
            p2p.append(test)
        elif _passing_everywhere(test, before) and _passing_nowhere(test, after):
            p2f.append(test)
    return Classification(f2p=f2p, p2p=p2p, flaky=flaky, pass_to_fail=p2f)


class _Stop(Exception):
    """Internal: stop validating an instance with a status, a kind and a message."""

    def __init__(self, status: str, kind: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.kind = kind


def _invalid(kind: str, message: str) -> _Stop:
    return _Stop("invalid", kind, message)


def _broken(kind: str, message: str) -> _Stop:
    return _Stop("error", kind, message)


class Validator:
    """Validates instances with one sandbox provider."""

    def __init__(
        self,
        provider: SandboxProvider,
        runs: int = DEFAULT_RUNS,
        timeout: float = 1800.0,
        log_dir: Path | None = None,
    ) -> None:
        if runs < 1:
            raise ValueError("runs must be at least 1")
        self.provider = provider
        self.runs = runs
        self.timeout = timeout
        self.log_dir = log_dir

    def validate(self, instance: Instance) -> ValidationResult:
        """Run both phases and classify the tests; never raises for one instance's trouble."""
        started = time.monotonic()
        result = ValidationResult(instance_id=instance.instance_id, status="error")
        try:
            before = self._phase(instance, "before", result)
            after = self._phase(instance, "after", result)
        except _Stop as stop:
            result.status, result.kind, result.reason = stop.status, stop.kind, str(stop)
        except Exception as exc:  # one instance's trouble must not stop the others
            result.status, result.kind = "error", "harness_error"
            result.reason = f"{type(exc).__name__}: {exc}"
        else:
            verdict = classify(before, after)
            result.F2P, result.P2P = verdict.f2p, verdict.p2p
            result.flaky, result.pass_to_fail = verdict.flaky, verdict.pass_to_fail
            if verdict.pass_to_fail:
                shown = ", ".join(verdict.pass_to_fail[:3])
                result.status, result.kind = "invalid", "pass_to_fail"
                result.reason = f"{len(verdict.pass_to_fail)} tests go pass -> fail: {shown}"
            elif not verdict.f2p:
                result.status, result.kind = "invalid", "no_f2p"
                result.reason = "no fail-to-pass test"
            else:
                result.status = "valid"
        result.seconds = round(time.monotonic() - started, 2)
        return result

    def _provide(self, instance: Instance) -> ReadySandbox:
        try:
            return self.provider.provide(instance)
        except ProvisionError as exc:
            raise _broken("environment", f"environment ({exc.kind}): {exc.summary()}") from exc
        except SandboxError as exc:
            raise _broken("sandbox", f"sandbox: {exc}") from exc

    def _log(self, instance: Instance, name: str, text: str) -> None:
        if self.log_dir is not None:
            atomic_write_text(self.log_dir / instance.instance_id / name, text)

    def _phase(
        self, instance: Instance, phase: str, result: ValidationResult
    ) -> list[dict[str, TestStatus]]:
        try:
            spec = build_spec(instance)
        except SpecError as exc:
            raise _invalid("unknown_parser", str(exc)) from exc
        ready = self._provide(instance)
        sandbox = ready.sandbox
        try:
            at_base = base_files(sandbox, spec.base_commit)
            facts = (
                python_facts(sandbox, ready.environment.exec_env(sandbox.workdir))
                if spec.language is Language.PYTHON
                else PythonFacts()
            )
            restored: set[str] = set()
            if phase == "after":
                restored = self._apply_gold(ready, spec, instance, at_base, facts.modules)
            try:
                install_tests(sandbox, spec, at_base, restored, preparation(ready))
            except TestPatchFailed as exc:
                self._log(instance, f"test_patch_apply.{phase}.log", str(exc))
                raise _invalid(
                    "test_patch_failed", f"the test patch does not apply ({phase} the gold patch)"
                ) from exc
            except RestoreFailed as exc:
                raise _invalid("restore_failed", str(exc)) from exc
            env = harness_env(ready, facts)
            return [
                self._run_once(instance, spec, phase, index, env, ready, result)
                for index in range(1, self.runs + 1)
            ]
        except SandboxError as exc:
            raise _broken("sandbox", f"sandbox: {exc}") from exc
        finally:
            sandbox.cleanup()

    def _apply_gold(
        self,
        ready: ReadySandbox,
        spec: InstanceSpec,
        instance: Instance,
        at_base: set[str],
        modules: frozenset[str],
    ) -> set[str]:
        sandbox = ready.sandbox
        inputs = PolicyInputs(
            language=spec.language,
            gold_paths=frozenset(spec.gold_paths),
            test_patch_paths=frozenset(spec.test_patch_files),
            command_paths=command_paths(spec.test_command, at_base),
            python_packages=python_package_dirs(at_base),
            protected_modules=modules,
            base_paths=frozenset(at_base),
        )
        try:
            admission = admit(
                sandbox, instance.patch, inputs, untracked_entries(sandbox), spec.base_commit
            )
        except PatchRejected as exc:
            raise _invalid("gold_patch_failed", f"the gold patch is refused: {exc}") from exc
        if not admission.applied:
            self._log(instance, "gold_patch_apply.log", admission.log)
            raise _invalid("gold_patch_failed", "the gold patch does not apply at the base commit")
        if admission.refused or admission.reverted:
            shown = ", ".join(r.path for r in [*admission.refused, *admission.reverted][:3])
            raise _invalid(
                "gold_patch_failed",
                f"the tamper policy keeps part of the gold patch out ({shown}); the code "
                "patch and the test patch are probably split wrongly",
            )
        return admission.restored

    def _run_once(
        self,
        instance: Instance,
        spec: InstanceSpec,
        phase: str,
        index: int,
        env: dict[str, str],
        ready: ReadySandbox,
        result: ValidationResult,
    ) -> dict[str, TestStatus]:
        command = harness_command(ready, spec)
        run = run_tests(ready.sandbox, spec, env, self.timeout, command)
        self._log(instance, f"{phase}-{index}.log", run.executed.output)
        if run.executed.stdout is not None:
            # The streams apart too: a report on stdout is graded from stdout alone.
            self._log(instance, f"{phase}-{index}.stdout.txt", run.executed.stdout)
            self._log(instance, f"{phase}-{index}.stderr.txt", run.executed.stderr or "")
        where = f"{phase} run {index}"
        facts = run.facts
        if facts.timed_out:
            raise _invalid(
                "timeout", f"{where}: the test command timed out after {self.timeout:.0f}s"
            )
        if not facts.ended:
            lines = run.executed.output.strip().splitlines() or [""]
            raise _invalid(
                "no_end_marker",
                f"{where}: the log has no end marker (exit {facts.process_exit_code}); its "
                f"last line: {lines[-1][:200]!r} (in {phase}-{index}.log)",
            )
        if facts.marker_exit_code != facts.process_exit_code:
            raise _invalid(
                "forged_end_marker",
                f"{where}: the end marker reports exit {facts.marker_exit_code} but the "
                f"script exited {facts.process_exit_code}",
            )
        parsed = read_results(spec, run)
        statuses = dict(parsed.statuses)
        result.runs.append(
            RunRecord(
                phase=phase,
                index=index,
                exit_code=facts.marker_exit_code,
                tests=len(statuses),
                passed=sum(status in _PASSING for status in statuses.values()),
                seconds=round(run.executed.duration, 2),
            )
        )
        untrusted = [*parsed.distrust, *filter(None, [parsed.summary_disagreement()])]
        if facts.truncated_bytes:
            untrusted.append(f"the output was cut ({facts.truncated_bytes} bytes dropped)")
        if untrusted:
            raise _invalid("untrusted_log", f"{where}: {untrusted[0]}")
        if not parsed.parsed_anything:
            missing = missing_dependency(run.combined_body)
            if missing is not None:
                raise _broken(
                    "environment",
                    f"{where}: the environment lacks what the test command needs: {missing}",
                )
            broken = build_failure(run.combined_body)
            if phase == "before" and broken is not None:
                result.notes.append(f"{where}: the tests did not build before the fix ({broken})")
                return statuses
            if phase == "before":
                raise _invalid(
                    "before_unparsable",
                    f"{where}: the {spec.parser} parser found no test result in the log "
                    f"(exit {facts.marker_exit_code}) and the log shows no build failure; "
                    "check the test command and the log parser",
                )
            raise _invalid(
                "no_test_results",
                f"{where}: no test result in the log (exit {facts.marker_exit_code}); "
                "check the test command and the log parser",
            )
        return statuses
