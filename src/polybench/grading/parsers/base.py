"""The contract every log parser follows, and the registry that names them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from operator import itemgetter


class TestStatus(str, Enum):
    """Outcome of one test as read from a log."""

    __test__ = False  # not a pytest test class

    PASSED = "passed"
    FAILED = "failed"
    ERRORED = "errored"
    SKIPPED = "skipped"
    XFAIL = "xfail"


# The members as plain module constants: reading ``TestStatus.PASSED`` goes through the
# enum's class attribute machinery, which costs more than many parsers spend on a test.
PASSED = TestStatus.PASSED
FAILED = TestStatus.FAILED
ERRORED = TestStatus.ERRORED
SKIPPED = TestStatus.SKIPPED
XFAIL = TestStatus.XFAIL

FAILING = frozenset({FAILED, ERRORED})

OFFICIAL_PASSING = frozenset({TestStatus.PASSED, TestStatus.XFAIL})
"""Statuses the official harness lists in ``passed_tests`` (most formats)."""


@dataclass
class Tally:
    """A framework's own count of its results, as its summary printed them.

    ``failed`` counts failures and errors; None means the summary does not say.
    """

    failed: int = 0
    passed: int | None = None
    total: int | None = None

    def add(self, other: Tally) -> None:
        """Sum another summary (several sessions or modules in one log)."""
        self.failed += other.failed
        self.passed = (
            None if self.passed is None or other.passed is None else (self.passed + other.passed)
        )
        self.total = (
            None if self.total is None or other.total is None else (self.total + other.total)
        )


@dataclass
class ParseResult:
    """What a parser read from a log.

    ``statuses`` maps the official test id to its status. ``parsed_anything`` is False
    when the log held nothing this parser recognises (an infrastructure problem, not
    "every test failed"). ``notes`` explains anything odd (truncated JSON, several
    reports, ...). ``distrust`` lists why the results cannot be trusted as they stand
    (a report cut short or malformed, a scanner that gave up, a framework summary that
    disagrees with the results): any of them keeps the instance from being resolved.
    ``reported`` is the framework's own summary where the log has one, ``aliases`` the
    ids recorded a second time under another spelling (not extra tests), ``subresults``
    the ids of parts of a test (unittest subtests: each failure counts, but they are not
    tests of their own), and ``unnamed_failures`` failures the log reports without a test
    id (a module that did not import, a failing class fixture).

    ``occurrences`` lists, in log order, one ``(id, status)`` per distinct test the parser
    accepted, with that test's final status: two tests that share an id give two entries,
    while a later status of the same test (a summary line repeating a progress line, a
    teardown error after a pass) updates its entry. ``statuses`` is the same information
    merged by id. Aliases and subresults are not occurrences. ``official_ids`` maps an id to
    the spelling the official harness gives the same test where the two differ, and
    ``official_passing``/``official_failing`` are the statuses the official harness lists
    as passed/failed for this format (see ``official_lists``).
    """

    statuses: dict[str, TestStatus] = field(default_factory=dict)
    parsed_anything: bool = False
    notes: list[str] = field(default_factory=list)
    distrust: list[str] = field(default_factory=list)
    reported: Tally | None = None
    aliases: set[str] = field(default_factory=set)
    subresults: set[str] = field(default_factory=set)
    unnamed_failures: int = 0
    occurrences: list[tuple[str, TestStatus]] = field(default_factory=list)
    official_ids: dict[str, str] = field(default_factory=dict)
    official_passing: frozenset[TestStatus] = OFFICIAL_PASSING
    official_failing: frozenset[TestStatus] = FAILING

    def add(self, test_id: str, status: TestStatus) -> int:
        """Record a distinct test with its status; returns the index of its occurrence."""
        self.parsed_anything = True
        statuses = self.statuses
        if statuses.get(test_id) not in FAILING or status in FAILING:  # as ``set`` does
            statuses[test_id] = status
        occurrences = self.occurrences
        occurrences.append((test_id, status))
        return len(occurrences) - 1

    def add_all(self, entries: list[tuple[str, TestStatus]]) -> None:
        """Record distinct tests in order, as ``add`` does for each (in bulk when no id
        comes twice and none is known yet)."""
        if not entries:
            return
        statuses = self.statuses
        known = len(statuses)
        if not statuses or statuses.keys().isdisjoint(map(itemgetter(0), entries)):
            statuses.update(entries)
            if len(statuses) - known == len(entries):
                self.parsed_anything = True
                self.occurrences += entries
                return
            for test_id, _ in entries:  # an id came twice: undo, then one by one
                statuses.pop(test_id, None)
        for test_id, status in entries:
            self.add(test_id, status)

    def update(self, index: int, status: TestStatus) -> None:
        """A later status of the test recorded at ``index`` (failures stick, as in ``set``)."""
        test_id, previous = self.occurrences[index]
        self.set(test_id, status)
        if previous not in FAILING or status in FAILING:
            self.occurrences[index] = (test_id, status)

    def discard(self, test_id: str) -> None:
        """Take every trace of ``test_id`` out (a test the harness planted, not the
        repository's): its status, its occurrences and its other spellings."""
        self.statuses.pop(test_id, None)
        if any(entry[0] == test_id for entry in self.occurrences):
            self.occurrences = [entry for entry in self.occurrences if entry[0] != test_id]
        self.aliases.discard(test_id)
        self.subresults.discard(test_id)
        self.official_ids.pop(test_id, None)

    def set(self, test_id: str, status: TestStatus) -> None:
        """Record a status by id only (no occurrence: see ``add``). Once a test failed or
        errored nothing later makes it pass, xfail or skip: whatever a log prints after the
        real result cannot undo it."""
        self.parsed_anything = True
        previous = self.statuses.get(test_id)
        if previous in FAILING and status not in FAILING:
            return
        self.statuses[test_id] = status

    def report(self, tally: Tally) -> None:
        """Add a summary the framework printed."""
        if self.reported is None:
            self.reported = Tally(tally.failed, tally.passed, tally.total)
        else:
            self.reported.add(tally)

    def observed(self) -> tuple[int, int, int]:
        """(failing, passing, tests) among the results: aliases left out, subtest
        failures counted as failures but not as tests."""
        failing = passing = tests = 0
        for test_id, status in self.statuses.items():
            if test_id in self.aliases:
                continue
            sub = test_id in self.subresults
            if status in FAILING:
                failing += 1
            elif status is PASSED and not sub:
                passing += 1
            tests += 0 if sub else 1
        return failing + self.unnamed_failures, passing, tests

    def summary_disagreement(self) -> str | None:
        """Why the framework's own summary contradicts the results, or None.

        Failures the summary counts must all be in the results (a forged or blinded
        report hides them), and no more tests may pass than the summary says ran or
        passed (ghost ids that never ran).
        """
        if self.reported is None:
            return None
        failing, passing, tests = self.observed()
        tally = self.reported
        if tally.failed > failing:
            return (
                f"the framework's summary counts {tally.failed} failing tests but only "
                f"{failing} are in the results"
            )
        if tally.passed is not None and passing > tally.passed:
            return (
                f"the results hold {passing} passing tests but the framework's summary "
                f"counts {tally.passed}"
            )
        if tally.total is not None and tests > tally.total:
            return (
                f"the results hold {tests} tests but the framework's summary "
                f"counts {tally.total} in all"
            )
        return None


LogParser = Callable[[str], ParseResult]
"""A parser takes the whole test log (text) and never raises."""

_REGISTRY: dict[str, LogParser] = {}


def register(name: str) -> Callable[[LogParser], LogParser]:
    """Decorator: register ``func`` as the parser called ``name``."""

    def decorator(func: LogParser) -> LogParser:
        if name in _REGISTRY and _REGISTRY[name] is not func:
            raise ValueError(f"parser {name!r} registered twice")
        _REGISTRY[name] = func
        return func

    return decorator


def registered_parsers() -> dict[str, LogParser]:
    """All registered parsers by name (importing the package registers the built-ins)."""
    return dict(_REGISTRY)
