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
when a patch does not apply, a run times out or loses its end marker, or a log holds no
test result where one is needed. Environment failures are errors (retried on a rerun),
not verdicts.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, Field

from polybench.atomic import atomic_write_text
from polybench.dataset.models import Instance
from polybench.environments.manager import EnvironmentSetupError, EnvironmentUnavailable
from polybench.environments.provider import ReadySandbox, SandboxProvider
from polybench.environments.repos import RepositoryError
from polybench.grading.parsers import get_parser
from polybench.grading.parsers.base import LogParser, TestStatus
from polybench.grading.repo_map import parser_for
from polybench.patches.apply import RESET_TO_HEAD, apply_patch
from polybench.sandbox.base import SandboxError
from polybench.sandbox.eval_script import eval_script, split_log

DEFAULT_RUNS = 3
_GIT_TIMEOUT = 300.0
_PASSING = (TestStatus.PASSED, TestStatus.XFAIL)
_CLEAR_BYTECODE = (
    "find . -path ./node_modules -prune -o -name __pycache__ -type d -prune -exec rm -rf {} + ;"
    " find . -path ./node_modules -prune -o -name '*.pyc' -delete"
)


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
    timeout, no_end_marker, no_test_results, unknown_parser; or, for errors, environment,
    sandbox or harness_error."""
    reason: str | None = None
    F2P: list[str] = Field(default_factory=list)
    P2P: list[str] = Field(default_factory=list)
    flaky: list[str] = Field(default_factory=list)
    pass_to_fail: list[str] = Field(default_factory=list)
    runs: list[RunRecord] = Field(default_factory=list)
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
        except (EnvironmentUnavailable, EnvironmentSetupError, RepositoryError) as exc:
            raise _broken("environment", f"environment: {exc}") from exc
        except SandboxError as exc:
            raise _broken("sandbox", f"sandbox: {exc}") from exc

    def _log(self, instance: Instance, name: str, text: str) -> None:
        if self.log_dir is not None:
            atomic_write_text(self.log_dir / instance.instance_id / name, text)

    def _phase(
        self, instance: Instance, phase: str, result: ValidationResult
    ) -> list[dict[str, TestStatus]]:
        try:
            parser = get_parser(parser_for(instance.repo, instance.log_parser))
        except (KeyError, ValueError) as exc:
            raise _invalid("unknown_parser", str(exc)) from exc
        ready = self._provide(instance)
        sandbox = ready.sandbox
        try:

            def run(argv: list[str]) -> tuple[int | None, str]:
                done = sandbox.exec(argv, timeout=_GIT_TIMEOUT)
                return done.exit_code, done.output

            reset: tuple[tuple[str, ...], ...] | None = RESET_TO_HEAD
            if phase == "after":
                sandbox.write_file(f"{sandbox.scratch_dir}/gold.patch", instance.patch)
                applied = apply_patch(run, f"{sandbox.scratch_dir}/gold.patch")
                if not applied.applied:
                    self._log(instance, "gold_patch_apply.log", applied.log)
                    raise _invalid(
                        "gold_patch_failed", "the gold patch does not apply at the base commit"
                    )
                reset = None
            sandbox.write_file(f"{sandbox.scratch_dir}/test.patch", instance.test_patch)
            applied = apply_patch(run, f"{sandbox.scratch_dir}/test.patch", reset)
            if not applied.applied:
                self._log(instance, f"test_patch_apply.{phase}.log", applied.log)
                raise _invalid(
                    "test_patch_failed", f"the test patch does not apply ({phase} the gold patch)"
                )
            ready.activate()
            sandbox.exec(_CLEAR_BYTECODE, timeout=_GIT_TIMEOUT)
            script = f"{sandbox.scratch_dir}/eval.sh"
            sandbox.write_file(script, eval_script(sandbox.workdir, instance.test_command))
            env = ready.environment.exec_env(sandbox.workdir)
            env["PYTHONDONTWRITEBYTECODE"] = "1"
            return [
                self._run_once(instance, phase, index, script, env, ready, parser, result)
                for index in range(1, self.runs + 1)
            ]
        except SandboxError as exc:
            raise _broken("sandbox", f"sandbox: {exc}") from exc
        finally:
            sandbox.cleanup()

    def _run_once(
        self,
        instance: Instance,
        phase: str,
        index: int,
        script: str,
        env: dict[str, str],
        ready: ReadySandbox,
        parser: LogParser,
        result: ValidationResult,
    ) -> dict[str, TestStatus]:
        executed = ready.sandbox.exec(["bash", script], timeout=self.timeout, env=env)
        self._log(instance, f"{phase}-{index}.log", executed.output)
        where = f"{phase} run {index}"
        if executed.timed_out:
            raise _invalid(
                "timeout", f"{where}: the test command timed out after {self.timeout:.0f}s"
            )
        marked = split_log(executed.output)
        if not marked.ended:
            raise _invalid(
                "no_end_marker", f"{where}: the log has no end marker (exit {executed.exit_code})"
            )
        parsed = parser(marked.body)
        statuses = dict(parsed.statuses)
        result.runs.append(
            RunRecord(
                phase=phase,
                index=index,
                exit_code=marked.exit_code,
                tests=len(statuses),
                passed=sum(status in _PASSING for status in statuses.values()),
                seconds=round(executed.duration, 2),
            )
        )
        if not parsed.parsed_anything and (phase == "after" or marked.exit_code == 0):
            raise _invalid(
                "no_test_results",
                f"{where}: no test result in the log (exit {marked.exit_code}); "
                "check the test command and the log parser",
            )
        return statuses
