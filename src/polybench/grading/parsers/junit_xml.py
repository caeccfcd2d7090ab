"""Surefire / JUnit XML reports ``cat``-ed into the log (the six official Java repositories).

Id: ``<testcase classname>.<testcase name>`` (just ``name`` without a classname).
``<failure>`` gives failed, ``<error>`` errored, ``<skipped>`` skipped, anything else
passed (``<rerunFailure>``/``<flaky*>`` children of a passing test do not count).

A log holds many documents glued together with build output. Each ``<?xml`` declaration
starts a document, read in one pass by an XML parser when the text from it to the last
``</testsuite>``/``</testsuites>`` before the next declaration is a well-formed report.
Anything else (a report cut short or malformed, one with a DTD, no declaration at all)
is read by a small tolerant scanner: CDATA sections and comments are skipped whole (so a
``system-out`` that prints ``<testsuite`` or ``</testcase>`` does no harm), a
``<testcase>`` counts only inside a ``<testsuite>``, and a report cut short keeps every
test case it completed (a case cut inside its ``<failure>`` is still failed). When the
log holds ``<?xml`` declarations (``cat`` of report files always does), only elements
inside a declared document count: XML-looking text that tests printed on the build
console, between the reports, is ignored. Both readings give the same ids; attribute
values are read as XML reads them (a line break or tab written in one is a space).

Each declared document is read on its own: it ends where its root element closes, and it
must then be well-formed XML. A document that is malformed, never closes, or holds a
comment or CDATA section that never ends (which would swallow every later report) makes
the results untrusted (``distrust``), and reading resumes at the next declaration, so one
bad document cannot hide the real reports after it. Maven's ``Results:`` totals
(``Tests run: N, Failures: F, Errors: E, Skipped: S``) are the framework's own summary.
Unlike the official harness, a build failure does not discard the reports that were
produced; it is noted instead. Each ``<testcase>`` element is a test of its own (an
occurrence), even when another one has the same id.
"""

from __future__ import annotations

import html
import re
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass, field

from polybench.grading.parsers._text import strip_ansi
from polybench.grading.parsers.base import ParseResult, Tally, TestStatus, register

# A tag of interest with, when it is well formed, its attributes and closing ``>`` (``end``
# is None when they do not parse). Attribute values cannot contain '<' in XML, so a value
# never runs past the next tag.
_TOKEN = re.compile(
    r"<(?:(?P<cdata>!\[CDATA\[)|(?P<comment>!--)|(?P<decl>\?xml)"
    r"|(?P<close>/)?(?P<tag>testsuites|testsuite|testcase|failure|error|skipped)(?=[\s/>])"
    r"""(?:(?P<attrs>(?:\s+[^\s=/>]+\s*=\s*(?:"[^"<]*"|'[^'<]*'))*)\s*(?P<end>/?)>)?)"""
)
_ATTR = re.compile(r"""([^\s=/>]+)\s*=\s*(?:"([^"<]*)"|'([^'<]*)')""")
_DECLARATION = re.compile(r"<\?xml\s")
_BUILD_FAILURE = re.compile(r"BUILD FAILURE", re.IGNORECASE)
_COMPILATION_ERROR = re.compile(r"COMPILATION ERROR", re.IGNORECASE)
_TEST_FAILURES = re.compile(r"there (?:are|were) test failures", re.IGNORECASE)
_RESULTS = re.compile(r"^(?:\[\w+\]\s*)?Results\s?:\s*$", re.MULTILINE)
_TOTALS = re.compile(
    r"^(?:\[\w+\]\s*)?Tests run: (?P<run>\d+), Failures: (?P<failures>\d+), "
    r"Errors: (?P<errors>\d+), Skipped: (?P<skipped>\d+)(?:, Flakes: \d+)?\s*$",
    re.MULTILINE,
)

_SPACES = str.maketrans("\t\n", "  ")
_OUTCOME_RANK = {TestStatus.SKIPPED: 1, TestStatus.FAILED: 2, TestStatus.ERRORED: 3}


def _attribute(raw: str) -> str:
    """An attribute value as an XML parser gives it: white space characters written as
    such become spaces (a line end counts once), then references are replaced."""
    if "\r" in raw:
        raw = raw.replace("\r\n", "\n").replace("\r", "\n")
    if "\n" in raw or "\t" in raw:
        raw = raw.translate(_SPACES)
    return html.unescape(raw) if "&" in raw else raw


def _name_and_class(raw: str) -> tuple[str | None, str | None]:
    """The ``name`` and ``classname`` attributes (the last of each, as XML reads them)."""
    name = classname = None
    for key, double, single in _ATTR.findall(raw):
        if key == "name":
            name = double or single
        elif key == "classname":
            classname = double or single
    return (
        None if name is None else _attribute(name),
        None if classname is None else _attribute(classname),
    )


@dataclass
class _Case:
    test_id: str
    outcome: TestStatus | None = None

    def mark(self, status: TestStatus) -> None:
        """Record a child outcome; the most severe one wins."""
        if self.outcome is None or _OUTCOME_RANK[status] > _OUTCOME_RANK[self.outcome]:
            self.outcome = status


@dataclass
class _Scanner:
    text: str
    need_declaration: bool
    result: ParseResult = field(default_factory=ParseResult)
    in_document: bool = False
    suite_depth: int = 0
    case: _Case | None = None
    cut_cases: int = 0
    documents: int = 0
    document_start: int | None = None

    def finish_case(self, complete: bool) -> None:
        """Close the open test case (``complete`` when its closing tag was seen)."""
        case, self.case = self.case, None
        if case is None:
            return
        if complete:
            self.result.add(case.test_id, case.outcome or TestStatus.PASSED)
        elif case.outcome in (TestStatus.FAILED, TestStatus.ERRORED):
            self.result.add(case.test_id, case.outcome)
        else:
            self.cut_cases += 1

    def new_document(self, start: int) -> None:
        """An ``<?xml`` declaration starts a new report file."""
        if self.document_start is not None:
            self.result.distrust.append(
                f"the XML report at offset {self.document_start} never closes"
            )
        self.finish_case(complete=False)
        self.suite_depth = 0
        self.in_document = True
        self.documents += 1
        self.document_start = start

    def end_document(self, end: int) -> None:
        """The root element of the current document closed: it must be well-formed."""
        if self.document_start is None:
            return
        start, self.document_start = self.document_start, None
        try:
            ElementTree.fromstring(self.text[start:end])
        except ElementTree.ParseError as exc:
            self.result.distrust.append(f"the XML report at offset {start} is malformed: {exc}")

    def unterminated(self, kind: str, position: int) -> int | None:
        """A comment or CDATA section never ends: distrust, and resume at the next
        declaration (or stop when there is none)."""
        self.result.distrust.append(f"an XML {kind} at offset {position} never ends")
        self.document_start = None
        if not self.need_declaration:
            return None
        resume = _DECLARATION.search(self.text, position + 1)
        return None if resume is None else resume.start()

    def scan(self) -> None:
        """Walk every interesting tag of the log, skipping CDATA and comments."""
        text = self.text
        pos = 0
        while True:
            match = _TOKEN.search(text, pos)
            if match is None:
                break
            cdata, comment, decl, close, tag, attrs, end = match.groups()
            if cdata or comment:
                stop = text.find("]]>" if cdata else "-->", match.end())
                if stop == -1:
                    resume = self.unterminated(
                        "CDATA section" if cdata else "comment", match.start()
                    )
                    if resume is None:
                        break
                    pos = resume
                    continue
                pos = stop + 3
                continue
            pos = match.end()
            if decl:
                self.new_document(match.start())
                resume = _read_document(self, match.start())
                if resume is not None:
                    self.in_document = False
                    self.document_start = None
                    pos = resume
                continue
            if end is None:
                continue
            self.tag(tag, close is not None, attrs, end == "/")
            if self.in_document is False and self.document_start is not None:
                self.end_document(pos)
        self.finish_case(complete=False)
        if self.document_start is not None:
            self.result.distrust.append(
                f"the XML report at offset {self.document_start} never closes"
            )

    def tag(self, name: str, closing: bool, raw_attrs: str, empty: bool) -> None:
        """Handle one ``testsuite``/``testcase``/outcome tag."""
        if self.need_declaration and not self.in_document:
            return
        if name in ("testsuite", "testsuites"):
            if closing:
                self.finish_case(complete=False)
                self.suite_depth = max(0, self.suite_depth - 1)
                if self.suite_depth == 0:
                    self.in_document = False
            elif not empty:
                self.suite_depth += 1
            return
        if name == "testcase":
            if closing:
                self.finish_case(complete=True)
                return
            self.finish_case(complete=False)
            if self.suite_depth == 0:
                return
            test_name, classname = _name_and_class(raw_attrs)
            if test_name is None:
                return
            test_id = f"{classname}.{test_name}" if classname else test_name
            self.case = _Case(test_id)
            if empty:
                self.finish_case(complete=True)
            return
        if closing or self.case is None:
            return
        if name == "failure":
            self.case.mark(TestStatus.FAILED)
        elif name == "error":
            self.case.mark(TestStatus.ERRORED)
        elif name == "skipped":
            self.case.mark(TestStatus.SKIPPED)


_ROOT_CLOSE = re.compile(r"</testsuites?[ \t\r\n]*>")
_ROOTS = ("testsuite", "testsuites")
_RANK = {"skipped": 1, "failure": 2, "error": 3}
_RANKED = {1: TestStatus.SKIPPED, 2: TestStatus.FAILED, 3: TestStatus.ERRORED}


def _read_document(scanner: _Scanner, start: int) -> int | None:
    """Read the report declared at ``start`` with an XML parser, in one pass.

    The report is taken to end with the last ``</testsuite>`` or ``</testsuites>`` before
    the next declaration: when the text from the declaration to there is well-formed XML
    it is one document whose root closes there, exactly where the scanner would end it.
    Returns that end (the scan resumes there, outside any document), or None when this
    reading is not sure of the report: malformed or cut short, with a DTD, or shaped
    unlike a Surefire report. The scanner then reads it as before, and its verdict on
    the report stands.
    """
    text = scanner.text
    following = _DECLARATION.search(text, start + 1)
    end = len(text) if following is None else following.start()
    last = text.rfind("</testsuite", start, end)
    closing = None if last == -1 else _ROOT_CLOSE.match(text, last, end)
    if closing is None or text.find("<!DOCTYPE", start, end) != -1:
        return None
    parser = ElementTree.XMLParser()
    try:
        parser.feed(text[start : closing.end()])
        root = parser.close()
    except ElementTree.ParseError:
        return None
    if root.tag not in _ROOTS or len(root) == 0:
        return None
    cases = _cases(root)
    if cases is None:
        return None
    scanner.result.add_all(cases)
    return closing.end()


def _cases(root: ElementTree.Element) -> list[tuple[str, TestStatus]] | None:
    """Every test case of a well-formed report, as the scanner reads them, or None when a
    case holds another case or a suite (the scanner's reading of those stands)."""
    cases: list[tuple[str, TestStatus]] = []
    for case in root.iter("testcase"):
        name = case.get("name")
        if name is None:
            if len(case) and _outcome(case) is None:
                return None
            continue
        classname = case.get("classname")
        test_id = f"{classname}.{name}" if classname else name
        if len(case):
            outcome = _outcome(case)
            if outcome is None:
                return None
            cases.append((test_id, outcome))
        else:
            cases.append((test_id, TestStatus.PASSED))
    return cases


def _outcome(case: ElementTree.Element) -> TestStatus | None:
    """The most severe outcome among a case's elements (passed when none), or None when
    the case holds another case or a suite."""
    rank = 0
    elements = case.iter()
    next(elements)  # the case itself
    for element in elements:
        tag = element.tag
        found = _RANK.get(tag)
        if found is not None:
            rank = max(rank, found)
        elif tag == "testcase" or tag in _ROOTS:
            return None
    return _RANKED.get(rank, TestStatus.PASSED)


@register("junit_xml")
def parse_junit_xml(text: str) -> ParseResult:
    """Surefire XML reports in the log: ``<classname>.<name>``."""
    text = strip_ansi(text)
    scanner = _Scanner(text, need_declaration=_DECLARATION.search(text) is not None)
    scanner.scan()
    result = scanner.result
    for tally in _maven_totals(text):
        result.report(tally)
    if scanner.cut_cases:
        result.notes.append(
            f"{scanner.cut_cases} test cases cut short (truncated XML) were left out"
        )
    # An IGNORECASE scan of the whole log is slow; on ASCII text (no character outside
    # ASCII can match these phrases) a lower-cased copy answers the same, much faster.
    lowered = text.lower() if text.isascii() else None
    if _mentions(text, lowered, _COMPILATION_ERROR, "compilation error"):
        result.notes.append(
            "the log reports a compilation error: the tests of that module did not run"
        )
    elif _mentions(text, lowered, _BUILD_FAILURE, "build failure") and not _mentions(
        text, lowered, _TEST_FAILURES, "there are test failures", "there were test failures"
    ):
        result.notes.append(
            "the build failed without test failures; only the reports written before it were read"
        )
    return result


def _mentions(text: str, lowered: str | None, pattern: re.Pattern[str], *phrases: str) -> bool:
    """Whether ``pattern`` (one of ``phrases``, any case) occurs in ``text``."""
    if lowered is None:
        return pattern.search(text) is not None
    return any(phrase in lowered for phrase in phrases)


def _maven_totals(text: str) -> list[Tally]:
    """Maven's per-module ``Results:`` totals (the first ``Tests run`` line after each)."""
    tallies: list[Tally] = []
    if "Results" not in text:
        return tallies
    for header in _RESULTS.finditer(text):
        totals = _TOTALS.search(text, header.end(), header.end() + 20000)
        if totals is None:
            continue
        run, skipped = int(totals["run"]), int(totals["skipped"])
        failed = int(totals["failures"]) + int(totals["errors"])
        tallies.append(Tally(failed=failed, passed=run - failed - skipped, total=run))
    return tallies
