"""Mocha ``--reporter json`` reports (and material-ui's custom JSON reporter).

Ids: ``fullTitle`` (``mocha_json``) or ``<file>-><fullTitle>`` (``mocha_json_file``).

The report is found by its keys (``stats`` plus ``tests``/``passes``/``failures``), not by
the first ``{`` in the log. ``passes``, ``failures`` and ``pending`` decide the status;
``tests[]`` entries (``status`` when the reporter writes one, else ``err``/``duration``)
cover tests of a report cut short before those lists. Several reports are merged.

Each ``tests[]`` entry is a test of its own (an occurrence); an entry of ``passes``,
``failures`` or ``pending`` is the same test as an entry of ``tests[]`` with that id (one
each, the status agreeing first), and a test of its own when none is left (a failing
hook, a report without ``tests[]``).
"""

from __future__ import annotations

from typing import Any

from polybench.grading.parsers._confirm import Confirmer
from polybench.grading.parsers._json_scan import (
    FoundReport,
    ReportScanner,
    as_list,
)
from polybench.grading.parsers._text import strip_ansi
from polybench.grading.parsers.base import (
    FAILED,
    PASSED,
    SKIPPED,
    ParseResult,
    TestStatus,
    register,
)

_START_KEYS = ("stats", "tests", "passes", "failures", "pending")
_LIST_KEYS = ("tests", "passes", "failures", "pending")
_STRINGS = frozenset({str})
_MENTIONS = (
    ("pending", SKIPPED),
    ("passes", PASSED),
    ("failures", FAILED),
)
_STATUS_FIELD = {
    "passed": PASSED,
    "failed": FAILED,
    "pending": SKIPPED,
    "skipped": SKIPPED,
}


def _is_report(data: dict[str, Any]) -> bool:
    stats = data.get("stats")
    if isinstance(stats, dict):
        return any(isinstance(data.get(key), list) for key in _LIST_KEYS) or any(
            key in stats for key in ("tests", "passes", "suites")
        )
    tests = data.get("tests")
    return (
        isinstance(tests, list)
        and bool(tests)
        and isinstance(tests[0], dict)
        and "fullTitle" in tests[0]
    )


def _test_id(test: Any, with_file: bool) -> str | None:
    if not isinstance(test, dict):
        return None
    title = test.get("fullTitle")
    if not isinstance(title, str):
        return None
    if not with_file:
        return title
    file_name = test.get("file")
    if not isinstance(file_name, str):
        return None
    return f"{file_name}->{title}"


def _status_of_entry(test: dict[str, Any]) -> TestStatus:
    declared = _STATUS_FIELD.get(str(test.get("status")))
    if declared is not None:
        return declared
    if test.get("pending") is True:
        return SKIPPED
    err = test.get("err")
    if isinstance(err, dict) and err:
        return FAILED
    if "duration" in test or test.get("state") == "passed":
        return PASSED
    return SKIPPED


def _entry_ids(entries: list[Any], with_file: bool) -> list[str] | None:
    """The id of every entry, or None unless each is a dict with a string ``fullTitle``
    (and ``file``)."""
    if not entries:
        return []
    try:
        titles = [test["fullTitle"] for test in entries]
        files = [test["file"] for test in entries] if with_file else None
    except (KeyError, TypeError):
        return None
    if not _STRINGS.issuperset(map(type, titles)):
        return None
    if files is None:
        return titles
    if not _STRINGS.issuperset(map(type, files)):
        return None
    return [f"{file}->{title}" for file, title in zip(files, titles, strict=True)]


def _add_plain_report(result: ParseResult, data: dict[str, Any], with_file: bool) -> int | None:
    """Record a report as it usually is, in bulk: every ``tests[]`` entry a test with its
    own id, and ``pending``/``passes``/``failures`` naming each of them at most once, with
    the status it already has (then pairing the mentions changes nothing), or naming a
    test of their own (a failing hook). Returns how many entries were read, or None for
    any other report."""
    tests = as_list(data.get("tests"))
    ids = _entry_ids(tests, with_file)
    if ids is None:
        return None
    statuses = [
        (_STATUS_FIELD.get(str(test["status"])) if "status" in test else None)
        or (
            SKIPPED
            if test.get("pending") is True
            else FAILED
            if isinstance(err := test.get("err"), dict) and err
            else PASSED
            if "duration" in test or test.get("state") == "passed"
            else SKIPPED
        )
        for test in tests
    ]
    entries = list(zip(ids, statuses, strict=True))
    recorded = dict(entries)
    if len(recorded) != len(ids):
        return None
    count = len(ids)
    named: set[str] = set()
    for key, status in _MENTIONS:
        names = _entry_ids(as_list(data.get(key)), with_file)
        if names is None:
            return None
        count += len(names)
        for name in names:
            if name in named:
                return None  # a test mentioned twice
            named.add(name)
            own = recorded.get(name)
            if own is None:
                entries.append((name, status))  # a test of its own (a failing hook)
            elif own is not status:
                return None  # a mention that disagrees with its test
    result.add_all(entries)
    return count


def _add_report(result: ParseResult, report: FoundReport, with_file: bool) -> int:
    data = report.data
    count = _add_plain_report(result, data, with_file)
    if count is None:
        count = _add_each(result, data, with_file)
    stats = data.get("stats")
    declared = stats.get("failures") if isinstance(stats, dict) else None
    listed = len(as_list(data.get("failures")))
    if report.complete and isinstance(declared, int) and declared > listed and "failures" in data:
        result.distrust.append(f"a mocha JSON report counts {declared} failures but lists {listed}")
    return count


def _add_each(result: ParseResult, data: dict[str, Any], with_file: bool) -> int:
    """Record a report entry by entry (see the module docstring)."""
    missing_file = 0
    count = 0
    entries = Confirmer(result, extra_mentions_are_tests=True)
    for test in as_list(data.get("tests")):
        test_id = _test_id(test, with_file)
        if test_id is None:
            missing_file += isinstance(test, dict) and "fullTitle" in test
            continue
        result.add(test_id, _status_of_entry(test))  # what ``entries.record`` does
        count += 1
    for key, status in _MENTIONS:
        for test in as_list(data.get(key)):
            test_id = _test_id(test, with_file)
            if test_id is not None:
                entries.confirm(test_id, status)
                count += 1
    if missing_file:
        result.notes.append(f"{missing_file} tests without a 'file' field were left out")
    return count


def parse_mocha_like(text: str, *, with_file: bool) -> ParseResult:
    """Parse every mocha JSON report in ``text`` (see the module docstring)."""
    result = ParseResult()
    text = strip_ansi(text)
    scanner = ReportScanner(text)
    reports = list(scanner.find_reports(_START_KEYS, _is_report))
    if len(reports) > 1:
        result.notes.append(f"{len(reports)} mocha JSON reports in the log; merged")
    for report in reports:
        result.parsed_anything = True
        count = _add_report(result, report, with_file)
        if not report.complete:
            result.distrust.append(
                f"mocha JSON report at offset {report.start} is truncated "
                f"(recovered {count} test entries)"
            )
    if scanner.exhausted:
        result.distrust.append("stopped searching for JSON: the log is mostly malformed JSON")
    return result


@register("mocha_json")
def parse_mocha_json(text: str) -> ParseResult:
    """Mocha ``--reporter json``: id is ``fullTitle``."""
    return parse_mocha_like(text, with_file=False)


@register("mocha_json_file")
def parse_mocha_json_file(text: str) -> ParseResult:
    """Mocha JSON with the test file (material-ui's reporter): ``<file>-><fullTitle>``."""
    return parse_mocha_like(text, with_file=True)
