"""The verdict: every rule that turns a test run into resolved, unresolved or error.

Inputs are what the run produced (:class:`RunFacts`), the parsed results with the
canaries already taken out, and the canaries' check. The rules, in order:

1. the test command timed out: ``error`` (``timeout``);
2. the log has no end marker: ``error`` (``no_end_marker``), the run was cut short;
3. the end marker disagrees with the process's exit status: ``unresolved``, the code
   under test forged harness output;
4. no test result at all: ``error`` (``dependency_unavailable``) when the log shows a
   build tool failing to fetch a plugin or dependency (the environment lacks what the
   test command needs, and tests run without network; a patch cannot add dependencies,
   since the tamper policy reverts build files the gold patch leaves alone); else
   ``unresolved`` when the log shows the build or the test collection failing (the
   prediction broke it), else ``error`` (``no_test_results``) when the command exited 0,
   else ``unresolved``. The same holds when every F2P test is missing from a partial log;
5. every listed test is graded (see :func:`grade`); under the default ``strict`` rule a
   fail-to-pass test must have passed for real (an xfail does not count) and every
   pass-to-pass test must have passed (or xfailed);
6. an instance that would be resolved is not when its results cannot be trusted: output
   truncated, a report cut short or malformed, a framework summary that disagrees with
   the results, an armed F2P test that passed in the canary run, or a test framework's
   own function replaced at run time by code under test. That is recorded as tampering.

``official`` grades as the official harness does (F2P a subset of the passed tests, P2P
disjoint from the failed ones); the verdict always carries both answers so reports can
show where the rules disagree. Tampering keeps an instance unresolved under both.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum

from pydantic import BaseModel, Field

from polybench.grading.canaries import CanaryCheck, CanaryOutcome
from polybench.grading.grade import Outcome, grade
from polybench.grading.parsers.base import ParseResult
from polybench.grading.parsers.official import official_lists
from polybench.grading.probe import ProbeCheck
from polybench.grading.result import ErrorKind, Status


class Rule(str, Enum):
    """Which resolved rule decides the status."""

    STRICT = "strict"
    OFFICIAL = "official"


RULES = tuple(rule.value for rule in Rule)


@dataclass(frozen=True)
class RunFacts:
    """What the test run did, as the harness saw it (not as the log claims)."""

    timed_out: bool
    timeout_seconds: float
    ended: bool
    marker_exit_code: int | None
    process_exit_code: int | None
    truncated_bytes: int = 0


class Verdict(BaseModel):
    """The outcome for one instance."""

    status: Status
    reason: str = ""
    error_kind: ErrorKind | None = None
    f2p: dict[str, Outcome] = Field(default_factory=dict)
    p2p: dict[str, Outcome] = Field(default_factory=dict)
    strict_resolved: bool = False
    official_resolved: bool = False
    detected: list[str] = Field(default_factory=list)
    """What proves the results were tampered with (empty when nothing does)."""
    build_failure: str | None = None


_BUILD_FAILURES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern, re.MULTILINE), label)
    for pattern, label in (
        (r"COMPILATION ERROR", "Maven could not compile the code"),
        (r"\[ERROR\] .*(?:cannot find symbol|incompatible types|error: )", "javac errors"),
        (r"BUILD FAILED|FAILURE: Build failed with an exception", "the Gradle build failed"),
        (r"BUILD FAILURE", "the Maven build failed"),
        (r"error TS\d{4}:", "TypeScript (tsc) errors"),
        (r"Test suite failed to run", "jest: a test suite failed to run"),
        (r"^E?\s*(?:SyntaxError|IndentationError|TabError):", "a Python syntax error"),
        (r"ERROR collecting |ImportError while importing test module|errors? during collection",
         "pytest could not collect the tests"),
        (r"^(?:ImportError|ModuleNotFoundError): Failed to import test module",
         "unittest could not import the tests"),
        (r"^\S+\.[cm]?[jt]sx?:\d+\n.*\n\s*\^+\n\n?SyntaxError:", "a JavaScript syntax error"),
        (r"^SyntaxError: ", "a JavaScript syntax error"),
        (r"Error: Cannot find module ", "a module that does not exist is required"),
    )
)  # fmt: skip


_MISSING_DEPENDENCIES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern, re.MULTILINE), label)
    for pattern, label in (
        (r"No plugin found for prefix '[^']*'", "Maven has no plugin for a goal's prefix"),
        (r"Plugin \S+ or one of its dependencies could not be resolved",
         "Maven could not resolve a plugin"),
        (r"Could not resolve dependencies for project", "Maven could not resolve dependencies"),
        (r"Non-resolvable (?:parent|import) POM", "Maven could not resolve a POM"),
        (r"Unresolveable build extension", "Maven could not resolve a build extension"),
        (r"Error resolving version for plugin", "Maven could not resolve a plugin's version"),
        (r"Cannot access \S+ \(\S+\) in offline mode", "Maven needs an artifact it never fetched"),
        (r"Could not transfer (?:artifact|metadata) ", "Maven could not download an artifact"),
        (r"No cached version of \S+ available for offline mode",
         "Gradle needs an artifact it never fetched"),
        (r"Could not resolve all (?:files|dependencies|artifacts) for configuration",
         "Gradle could not resolve dependencies"),
        (r"^npm (?:ERR!|error) code (?:ENOTFOUND|EAI_AGAIN|ECONNREFUSED)\b",
         "npm tried to download a package"),
    )
)  # fmt: skip


def _first_match(log: str, patterns: tuple[tuple[re.Pattern[str], str], ...]) -> str | None:
    for pattern, label in patterns:
        match = pattern.search(log)
        if match is not None:
            start = log.rfind("\n", 0, match.start()) + 1
            end = log.find("\n", match.start())
            line = log[start : end if end != -1 else len(log)].strip()
            return f"{label} ({line[:160]})" if line else label
    return None


def missing_dependency(log: str) -> str | None:
    """What the log says the environment failed to provide (a plugin or dependency a build
    tool could not fetch without network), or None."""
    return _first_match(log, _MISSING_DEPENDENCIES)


def _environment_failure(verdict: Verdict, missing: str) -> Verdict:
    verdict.status = Status.ERROR
    verdict.error_kind = ErrorKind.DEPENDENCY_UNAVAILABLE
    verdict.reason = (
        f"the environment lacks what the test command needs: {missing}; tests run without "
        "network, so it must be fetched while the environment is prepared"
    )
    verdict.strict_resolved = verdict.official_resolved = False
    return verdict


def build_failure(log: str) -> str | None:
    """What the log says broke the build or the test collection, or None."""
    return _first_match(log, _BUILD_FAILURES)


def official_resolved(f2p: list[str], p2p: list[str], parsed: ParseResult) -> bool:
    """The official rule: every F2P test among the passed, no P2P test among the failed.

    A missing or skipped P2P test counts as fine there, and an empty F2P list passes: the
    official harness's defects, kept only for comparison. Passed and failed are what the
    official result lists hold for this format (TAP's ``not ok # TODO`` is failed there).
    """
    passed_list, failed_list = official_lists(parsed)
    passed, failed = set(passed_list), set(failed_list)
    return set(f2p) <= passed and not (set(p2p) & failed)


def _untrusted(
    facts: RunFacts, parsed: ParseResult, canaries: CanaryCheck, probe: ProbeCheck | None
) -> list[str]:
    found = []
    if facts.truncated_bytes:
        found.append(
            f"the output was cut ({facts.truncated_bytes} bytes dropped): the real run may "
            "be among what was dropped"
        )
    found += parsed.distrust
    disagreement = parsed.summary_disagreement()
    if disagreement is not None:
        found.append(disagreement)
    if canaries.tampered:
        bad = [r for r in canaries.records if r.outcome is CanaryOutcome.WRONG]
        shown = ", ".join(f"{r.test} ({r.file}:{r.line}, {r.form})" for r in bad[:3])
        found.append(
            f"{len(bad)} armed F2P test(s) passed in the canary run although an assertion "
            f"of each was inverted: {shown}"
        )
    if probe is not None and probe.tampered:
        found.append(probe.describe())
    return found


def decide(
    f2p: list[str],
    p2p: list[str],
    facts: RunFacts,
    parsed: ParseResult,
    log: str,
    canaries: CanaryCheck | None = None,
    rule: Rule = Rule.STRICT,
    probe: ProbeCheck | None = None,
) -> Verdict:
    """Apply every rule (see the module docstring) to one instance's run."""
    canaries = canaries or CanaryCheck()
    if facts.timed_out:
        return Verdict(
            status=Status.ERROR,
            error_kind=ErrorKind.TIMEOUT,
            reason=f"the test command did not finish within {facts.timeout_seconds:.0f}s "
            "and was killed",
        )
    if not facts.ended:
        return Verdict(
            status=Status.ERROR,
            error_kind=ErrorKind.NO_END_MARKER,
            reason=f"the log has no end marker (exit {facts.process_exit_code}): the run was "
            "cut short",
        )
    if facts.marker_exit_code != facts.process_exit_code:
        reason = (
            f"the end marker reports exit {facts.marker_exit_code} but the script exited "
            f"{facts.process_exit_code}: the code under test forged harness output"
        )
        return Verdict(status=Status.UNRESOLVED, reason=reason, detected=[reason])
    untrusted = _untrusted(facts, parsed, canaries, probe)
    graded = grade(f2p, p2p, parsed)
    strict_ok = graded.resolved and not untrusted
    official_ok = official_resolved(f2p, p2p, parsed) and not untrusted
    verdict = Verdict(
        status=Status.UNRESOLVED,
        f2p=graded.f2p,
        p2p=graded.p2p,
        strict_resolved=strict_ok,
        official_resolved=official_ok,
        detected=untrusted if (graded.resolved or official_resolved(f2p, p2p, parsed)) else [],
    )
    if not parsed.parsed_anything:
        missing = missing_dependency(log)
        if missing is not None:
            return _environment_failure(verdict, missing)
        broken = build_failure(log)
        verdict.build_failure = broken
        if broken is not None:
            verdict.reason = f"the build or the test collection failed: {broken}"
        elif facts.marker_exit_code == 0:
            verdict.status = Status.ERROR
            verdict.error_kind = ErrorKind.NO_TEST_RESULTS
            verdict.reason = "the test command exited 0 but the parser found no test results"
        else:
            verdict.reason = (
                f"the test command failed (exit {facts.marker_exit_code}) without reporting "
                "any test result: the patch probably breaks the build or test collection"
            )
        verdict.strict_resolved = verdict.official_resolved = False
        return verdict
    resolved = strict_ok if rule is Rule.STRICT else official_ok
    if resolved:
        verdict.status = Status.RESOLVED
        verdict.reason = graded.summary()
        return verdict
    if verdict.detected:
        verdict.reason = "tampering detected: " + "; ".join(verdict.detected)
        return verdict
    verdict.reason = graded.summary()
    if rule is Rule.OFFICIAL and not official_ok and graded.resolved:
        verdict.reason = "the official rule does not hold"
    missing_all = graded.f2p and all(o is Outcome.MISSING for o in graded.f2p.values())
    if missing_all:
        missing = missing_dependency(log)
        if missing is not None:
            return _environment_failure(verdict, missing)
        broken = build_failure(log)
        if broken is not None:
            verdict.build_failure = broken
            verdict.reason += f" (the build or the test collection failed: {broken})"
    return verdict
