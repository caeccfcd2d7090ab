"""The canary run of one instance: a fresh sandbox, the same patch and tests, the F2P tests
armed (see :mod:`polybench.grading.canaries`), and the answer it gives.

It never changes what the graded run saw: it has a sandbox of its own, and whatever goes
wrong in it (a failed start, a timeout, a build the armed tests broke) makes canaries
*unavailable* for the instance, never an error or an unresolved verdict. When the log
blames an armed line for a broken build, the run is made once more without the tests it
blames.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

from polybench.environments.provider import ReadySandbox
from polybench.grading.canaries import (
    Arming,
    CanaryCheck,
    CanaryOutcome,
    CanaryStatus,
    armed_json,
    check_armed,
    detection_probability,
    planted_failure,
)
from polybench.runner.artifacts import InstanceArtifacts
from polybench.runner.spec import InstanceSpec
from polybench.runner.steps import (
    TestRun,
    arm_tests,
    read_results,
)
from polybench.sandbox.cancel import Cancelled

MAX_CANARY_RUNS = 2
"""The canary run, and one retry without the armed tests a broken build blames."""


@dataclass
class CanaryState:
    """What the two runs of one instance share about the canaries: the random choices,
    the armed tests (made in whichever sandbox comes first) and the answer so far."""

    rng: random.Random
    arming: Arming | None = None
    excluded: frozenset[tuple[str, int]] = frozenset()
    check: CanaryCheck = field(default_factory=lambda: CanaryCheck(status=CanaryStatus.OFF))
    done: bool = False

    def arming_for(self, ready: ReadySandbox, spec: InstanceSpec) -> Arming:
        """The armed tests, made from this sandbox's files the first time they are needed."""
        if self.arming is None:
            self.arming = arm_tests(ready.sandbox, spec, self.rng, self.excluded)
        return self.arming


RunIn = Callable[[ReadySandbox, dict[str, str], bool], TestRun]
"""Runs the tests in a ready sandbox (patch admitted, tests installed) after writing the
given files (unless the checkout wrote them: the flag); raises whatever the graded run
would."""
Provide = Callable[[], ReadySandbox]
Checkout = Callable[[ReadySandbox, dict[str, str] | None], None]
"""Admits the patch and installs the tests; writes the given files too, when given."""


def canary_run(
    spec: InstanceSpec,
    state: CanaryState,
    provide: Provide,
    checkout: Checkout,
    run_in: RunIn,
    artifacts: InstanceArtifacts,
    keep_sandbox: bool = False,
) -> None:
    """Make the canary run (and its one retry) and record the answer in ``state.check``."""
    state.done = True
    check = CanaryCheck(status=CanaryStatus.UNAVAILABLE)
    state.check = check
    while check.runs < MAX_CANARY_RUNS:
        check.runs += 1
        try:
            ready = provide()
        except Cancelled:
            raise  # the whole run stops
        except Exception as exc:
            check.reason = f"no sandbox for the canary run: {exc}"
            return
        try:
            # Armed tests made in the graded run's sandbox are written with the checkout.
            known = state.arming.texts if state.arming is not None and state.arming.armed else None
            checkout(ready, known)
            arming = state.arming_for(ready, spec)
            if not arming.armed:
                if not state.excluded:  # after a retry, the blamed reason stands
                    check.status = CanaryStatus.NOT_ARMED
                    check.reason = "no F2P test has an assertion the harness can invert"
                return
            run = run_in(ready, arming.texts, known is not None)
            workdir = ready.sandbox.workdir
        except Cancelled:
            raise
        except Exception as exc:
            check.reason = f"the canary run failed: {type(exc).__name__}: {exc}"
            return
        finally:
            if not keep_sandbox:
                ready.sandbox.cleanup()
        suffix = "" if check.runs == 1 else f".{check.runs}"
        artifacts.write_text(f"canary_output{suffix}.txt", run.executed.output)
        if run.executed.stdout is not None:
            artifacts.write_text(f"canary_stdout{suffix}.txt", run.executed.stdout)
        artifacts.write_text(f"canaries{suffix}.json", armed_json(arming.armed))
        if _answer(spec, run, arming, check, workdir):
            return
        blamed = planted_failure(run.combined_body, arming.armed, workdir)
        if blamed is None:
            return
        path, line, text = blamed
        check.reason = (
            f"the armed test at {path}:{line} broke the canary run's build ({text}); "
            + ("retried without it" if check.runs < MAX_CANARY_RUNS else "canaries unavailable")
        )
        state.excluded |= {(path, line)}
        state.arming = None


def _answer(
    spec: InstanceSpec, run: TestRun, arming: Arming, check: CanaryCheck, workdir: str
) -> bool:
    """Read the canary run into ``check``; True when it answered (checked, or tampering
    already seen), False when it gave no usable answer."""
    facts = run.facts
    if facts.timed_out or not facts.ended:
        check.reason = "the canary run did not finish" + (" (timeout)" if facts.timed_out else "")
        return False
    records = check_armed(arming.armed, read_results(spec, run).statuses)
    read = [r for r in records if r.outcome is not CanaryOutcome.NOT_RUN]
    if not read:
        if check.status is CanaryStatus.CHECKED:
            return True  # the retry gave nothing: the first run's partial answer stands
        check.reason = check.reason or "no armed test is in the canary run's results"
        check.records = records
        return False
    retry_wanted = (
        len(read) < len(records)
        and not any(r.outcome is CanaryOutcome.WRONG for r in records)
        and check.runs < MAX_CANARY_RUNS
        and planted_failure(run.combined_body, arming.armed, workdir) is not None
    )
    check.status = CanaryStatus.CHECKED
    check.records = records
    check.detection_probability = detection_probability(1)
    if retry_wanted:
        return False
    if len(read) < len(records):
        missing = f"{len(records) - len(read)} armed test(s) did not run"
        check.reason = f"{check.reason}; {missing}" if check.reason else missing
    return True
