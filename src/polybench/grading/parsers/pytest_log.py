"""pytest logs (``-rA`` short summary and/or ``-v`` progress lines).

Id: ``<path>:<Class or None>:<test[param]>`` from the node id ``path::Class::test[param]``
(nested classes are joined with ``.``; the parameter part is kept verbatim, ``::``,
spaces and brackets included).

Reading rules, per pytest session (a log may hold several):

* the ``short test summary info`` section is authoritative. When it lists passing tests
  (``-rA``), only skips are taken from the progress lines (the summary names skipped
  tests by location, not node id), so a test that prints ``foo.py::bar PASSED`` cannot
  create a pass;
* otherwise progress lines ``path::test STATUS`` (and xdist's ``[gw0] [ 5%] STATUS id``)
  are read, and the summary overrides them;
* the ``FAILURES``/``ERRORS``/``PASSES`` sections (tracebacks, captured output) are never
  read.

Statuses: PASSED and XPASS passed, FAILED failed, ERROR errored, SKIPPED skipped, XFAIL
xfail. A teardown ERROR after a PASSED keeps the error.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from polybench.grading.parsers._text import iter_lines
from polybench.grading.parsers.base import ParseResult, TestStatus, register

_STATUSES = "PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS"
_NODE = r"[^\s\[:]+(?:::[^\s\[:]+)+(?:\[.*?\])?"
_PROGRESS = re.compile(rf"(?P<id>{_NODE})(?: <- \S+)? (?P<st>{_STATUSES})(?= |$)")
_XDIST = re.compile(rf"\[gw\d+\]\s+(?:\[\s*\d+%\]\s+)?(?P<st>{_STATUSES}) (?P<id>{_NODE})\s*$")
_SUMMARY = re.compile(rf"(?P<st>{_STATUSES}) (?P<id>{_NODE})(?: - .*)?\s*$")
_HEADER = re.compile(r"=+ (?P<title>[^=\s].*?) =+\s*$")
_STATUS = {
    "PASSED": TestStatus.PASSED,
    "XPASS": TestStatus.PASSED,
    "FAILED": TestStatus.FAILED,
    "ERROR": TestStatus.ERRORED,
    "SKIPPED": TestStatus.SKIPPED,
    "XFAIL": TestStatus.XFAIL,
}

PYTEST_MARKERS = ("test session starts", "short test summary info")
"""Header titles that identify a pytest log."""


def official_id(node_id: str) -> str | None:
    """Turn a pytest node id into the official ``path:Class|None:test[param]`` id."""
    first_sep = node_id.find("::")
    if first_sep <= 0:
        return None
    bracket = node_id.find("[", first_sep)
    prefix, params = (node_id, "") if bracket == -1 else (node_id[:bracket], node_id[bracket:])
    parts = prefix.split("::")
    if len(parts) < 2 or not parts[-1]:
        return None
    classes = ".".join(parts[1:-1]) or "None"
    return f"{parts[0]}:{classes}:{parts[-1]}{params}"


@dataclass
class _Session:
    progress: dict[str, TestStatus] = field(default_factory=dict)
    summary: list[tuple[str, TestStatus]] = field(default_factory=list)
    summary_has_pass: bool = False

    def empty(self) -> bool:
        return not self.progress and not self.summary

    def flush(self, result: ParseResult) -> None:
        if self.summary_has_pass:
            for test_id, status in self.progress.items():
                if status is TestStatus.SKIPPED:
                    result.set(test_id, status)
        else:
            for test_id, status in self.progress.items():
                result.set(test_id, status)
        for test_id, status in self.summary:
            result.set(test_id, status)


def _record_progress(session: _Session, node_id: str, status: str) -> None:
    test_id = official_id(node_id)
    if test_id is None:
        return
    new = _STATUS[status]
    old = session.progress.get(test_id)
    if old in (TestStatus.FAILED, TestStatus.ERRORED) and new is TestStatus.PASSED:
        return
    session.progress[test_id] = new


def parse_pytest_text(text: str) -> ParseResult:
    """Parse a pytest log (see the module docstring)."""
    result = ParseResult()
    session = _Session()
    region = "progress"
    collection_errors = 0
    for line in iter_lines(text):
        if (
            line.startswith("==")
            and len(line) < 1000
            and (header := _HEADER.match(line)) is not None
        ):
            title = header.group("title").lower()
            if "test session starts" in title:
                if not session.empty():
                    session.flush(result)
                session = _Session()
                region = "progress"
            elif "short test summary info" in title:
                region = "summary"
            else:
                region = "other"
            continue
        if region == "progress":
            match = _PROGRESS.match(line) or _XDIST.match(line)
            if match is not None:
                _record_progress(session, match.group("id"), match.group("st"))
        elif region == "summary":
            match = _SUMMARY.match(line)
            if match is not None:
                test_id = official_id(match.group("id"))
                if test_id is not None:
                    status = match.group("st")
                    session.summary.append((test_id, _STATUS[status]))
                    session.summary_has_pass |= status == "PASSED"
            elif line.startswith("ERROR ") and "::" not in line:
                collection_errors += 1
    session.flush(result)
    if collection_errors:
        result.notes.append(f"{collection_errors} collection errors (files that did not import)")
    return result


@register("pytest")
def parse_pytest(text: str) -> ParseResult:
    """pytest ``-rA``/``-v`` log: ``path:Class|None:test[param]``."""
    return parse_pytest_text(text)
