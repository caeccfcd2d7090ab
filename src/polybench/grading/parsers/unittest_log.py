"""unittest ``-v`` logs (``python -m unittest -v``, ``python -m pytest`` not included).

Id: ``<module.Class>:<test>:<params>``; params are the subTest parameters without the
parentheses (``i=1, s='a b'``) and empty for the test itself (a trailing ``:``). Python
3.11+ prints ``test (module.Class.test)``; the repeated test name is dropped so both
forms give the same id.

Statuses: ``ok`` passed, ``FAIL`` and ``unexpected success`` failed, ``ERROR`` errored,
``skipped ...`` skipped, ``expected failure`` xfail. A failing subTest also fails its
test. The ``FAIL:``/``ERROR:`` headers of the error report confirm failures.

Only ``name (dotted.Class)`` lines whose name starts with ``test`` (unittest's method
prefix), or that use the 3.11+ form, are taken for tests, so that ordinary log lines
such as ``Downloading (model.bin)`` are not.

A test's status may come on a later line (the test printed something first, or the
description line of a docstring). While a test waits for its status, lines that look
like other tests' results are held back and dropped once the waiting test's own status
arrives: they were printed by the test. Held-back lines are kept if the status never
comes (a crash), so one garbled line cannot hide the rest of the run.

Each result line of a test is a test of its own (an occurrence); the error report's
``FAIL:``/``ERROR:`` headers and failing subtests update the test they belong to.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from polybench.grading.parsers._text import iter_lines
from polybench.grading.parsers.base import ParseResult, Tally, TestStatus, register

_HEADER = re.compile(
    r"(?P<test>[^\s()]+) \((?P<cls>[^\s()]+)\)"
    r"(?: \((?P<params>.*?)\))?(?P<tail>(?: \.\.\.(?: .*)?)?)$"
)
_STATUS_TEXT = re.compile(
    r"(?P<st>ok|FAIL|ERROR|skipped(?: .*)?|expected failure|unexpected success)\s*$"
)
_REPORT = re.compile(
    r"(?P<st>FAIL|ERROR|UNEXPECTED SUCCESS): (?P<test>[^\s()]+) \((?P<cls>[^\s()]+)\)"
    r"(?: \((?P<params>.*)\))?\s*$"
)
# The most common line, a test with its status on the same line (``test (module.Class)
# ... ok``): read by one pattern when no test waits for its status (see ``_State.header``,
# which reads such a line the same way). Every line it reads is one ``_HEADER`` reads
# with no parameters and a tail that ``_status`` reads.
_RESULT_LINE = re.compile(
    r"\s*([^\s()]+) \(([^\s()]+)\) \.\.\. "
    r"(?:(ok|FAIL|ERROR|expected failure|unexpected success)|skipped(?: .*)?)\s*"
)
_WORD_STATUS = {
    "ok": TestStatus.PASSED,
    "FAIL": TestStatus.FAILED,
    "unexpected success": TestStatus.FAILED,
    "ERROR": TestStatus.ERRORED,
    "expected failure": TestStatus.XFAIL,
}
"""The status words other than ``skipped`` (which may be followed by a reason)."""
_RAN = re.compile(r"Ran (?P<n>\d+) tests? in ")
_VERDICT = re.compile(r"^(?P<word>OK|FAILED)(?: \((?P<counts>[^)]*)\))?\s*$")
_VERDICT_COUNT = re.compile(r"(?P<kind>failures|errors|unexpected successes)=(?P<n>\d+)")
_HOLD_LIMIT = 50
_TEST_PREFIXES = ("test", "runTest")


def _looks_like_test(test: str, cls: str) -> bool:
    """A unittest result names a dotted class path and a test method."""
    if "." not in cls:
        return False
    return cls.endswith("." + test) or test.startswith(_TEST_PREFIXES)


def _status(text: str) -> TestStatus | None:
    match = _STATUS_TEXT.fullmatch(text.strip())
    if match is None:
        return None
    word = match.group("st")
    return TestStatus.SKIPPED if word.startswith("skipped") else _WORD_STATUS[word]


def _legacy_id(test: str, cls: str) -> str | None:
    """The id the official harness gives a test printed in the Python 3.11+ form
    (``test (module.Class.test)``), ``module.Class.test:test:``; None for other tests."""
    return f"{cls}:{test}:" if cls.endswith("." + test) else None


def unittest_id(test: str, cls: str, params: str | None) -> str:
    """Official id; drops the ``.test`` suffix Python 3.11+ appends to the class path."""
    suffix = "." + test
    if cls.endswith(suffix) and len(cls) > len(suffix):
        cls = cls[: -len(suffix)]
    return f"{cls}:{test}:{params or ''}"


@dataclass
class _State:
    result: ParseResult = field(default_factory=ParseResult)
    pending: str | None = None
    held: list[tuple[str, TestStatus | None]] = field(default_factory=list)
    in_report: bool = False
    # id -> its last occurrence, brought up to date only when a later status comes.
    latest: dict[str, int] = field(default_factory=dict)
    indexed: int = 0

    def new(self, test_id: str, status: TestStatus) -> None:
        """A test of its own (a result line)."""
        self.result.add(test_id, status)

    def again(self, test_id: str, status: TestStatus) -> None:
        """A later status of the last test of that id (a new test if there is none)."""
        occurrences = self.result.occurrences
        for index in range(self.indexed, len(occurrences)):
            self.latest[occurrences[index][0]] = index
        self.indexed = len(occurrences)
        last = self.latest.get(test_id)
        if last is None:
            self.new(test_id, status)
        else:
            self.result.update(last, status)

    def resolve(self, status: TestStatus) -> None:
        """The waiting test got its status; what was held back was its output."""
        if self.pending is not None:
            self.new(self.pending, status)
        self.pending = None
        self.held.clear()

    def release_held(self) -> None:
        """The waiting test never got a status: keep what was held back."""
        held, self.held = self.held, []
        self.pending = None
        for test_id, status in held:
            if status is None:
                self.pending = test_id
            else:
                self.new(test_id, status)

    def header(self, test_id: str, parent: str, params: str | None, tail: str) -> None:
        """Handle a ``test (module.Class) ...`` line."""
        status = _status(tail[4:]) if tail.startswith(" ...") else None
        if params is not None:
            self.result.subresults.add(test_id)
            if status is not None:
                self.result.set(test_id, status)
                if status in (TestStatus.FAILED, TestStatus.ERRORED):
                    if self.pending == parent:  # its first failing subtest
                        self.new(parent, status)
                    else:
                        self.again(parent, status)
                if self.pending == parent:
                    self.pending = None
                    self.held.clear()
            return
        if self.pending is not None:
            self.held.append((test_id, status))
            if len(self.held) > _HOLD_LIMIT:
                self.release_held()
            return
        if status is None:
            self.pending = test_id
        else:
            self.result.add(test_id, status)

    def other_line(self, line: str) -> None:
        """A line that names no test: maybe the status of the waiting test."""
        if self.pending is None:
            return
        status = _status(line)
        if status is None and " ... " in line:
            status = _status(line.rsplit(" ... ", 1)[1])
        if status is not None:
            self.resolve(status)


def parse_unittest_text(text: str, *, legacy_ids: bool = False) -> ParseResult:
    """Parse a unittest verbose log (see the module docstring).

    With ``legacy_ids`` a test printed in the Python 3.11+ form is also recorded under
    the id the official harness gives it, ``module.Class.test:test:``.
    """
    state = _State()
    variants: dict[str, str] = {}
    ran: int | None = None
    add = state.result.add
    for line in iter_lines(text):
        if ran is None and state.pending is None and not state.in_report:
            simple = _RESULT_LINE.fullmatch(line)
            if simple is not None:
                test, cls, word = simple.groups()
                if _looks_like_test(test, cls):
                    test_id = unittest_id(test, cls, None)
                    if legacy_ids and (legacy := _legacy_id(test, cls)) is not None:
                        variants[test_id] = legacy
                    add(test_id, _WORD_STATUS[word] if word else TestStatus.SKIPPED)
                    continue
        if ran is not None:
            verdict = _VERDICT.match(line.strip())
            if verdict is not None:
                counts = verdict.group("counts") or ""
                failed = sum(int(m.group("n")) for m in _VERDICT_COUNT.finditer(counts))
                state.result.report(Tally(failed=failed, total=ran))
                ran = None
                continue
            if line.strip():
                ran = None
        if line.startswith("=====") and not line.strip("="):
            state.in_report = True
            state.release_held()
            continue
        ran_match = _RAN.match(line)
        if ran_match:
            state.in_report = False
            state.release_held()
            ran = int(ran_match.group("n"))
            continue
        if state.in_report:
            report = _REPORT.match(line)
            if report is not None:
                test_id = unittest_id(report.group("test"), report.group("cls"), None)
                status = _status(report.group("st")) or TestStatus.FAILED
                params = report.group("params")
                if params is not None:
                    sub_id = unittest_id(report.group("test"), report.group("cls"), params)
                    state.result.subresults.add(sub_id)
                    state.result.set(sub_id, status)
                if report.group("test") not in (
                    "setUpClass",
                    "tearDownClass",
                    "setUpModule",
                    "tearDownModule",
                ):
                    state.again(test_id, status)
                else:
                    state.result.notes.append(f"fixture error: {line.strip()}")
                    state.result.unnamed_failures += 1
            continue
        header = _HEADER.match(line.lstrip()) if "(" in line else None
        if header is None:
            state.other_line(line)
            continue
        test, cls = header.group("test"), header.group("cls")
        if not _looks_like_test(test, cls):
            state.other_line(line)
            continue
        params = header.group("params")
        parent = unittest_id(test, cls, None)
        test_id = unittest_id(test, cls, params) if params is not None else parent
        if legacy_ids and params is None and (legacy := _legacy_id(test, cls)) is not None:
            variants[parent] = legacy
        state.header(test_id, parent, params, header.group("tail"))
    state.release_held()
    for proper, legacy in variants.items():
        known = state.result.statuses.get(proper)
        if known is not None:
            if legacy not in state.result.statuses:
                state.result.aliases.add(legacy)
            state.result.set(legacy, known)
            state.result.official_ids[proper] = legacy
    return state.result


@register("unittest")
def parse_unittest(text: str) -> ParseResult:
    """unittest ``-v`` log: ``module.Class:test:params``."""
    return parse_unittest_text(text)
