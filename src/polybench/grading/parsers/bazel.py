"""Bazel ``bazel test`` summary lines (angular).

``//packages/core/test/render3:render3    PASSED in 12.3s`` gives the id
``/packages/core/test/render3:render3``: the target with its leading ``//`` kept as ``/``
(the official form). ``(cached)`` results count; the word is not part of the id.
Only lines that start (in column 0) with a target label are read, so test output that
merely contains ``PASSED`` is ignored. Each such line is a test of its own (an occurrence).
"""

from __future__ import annotations

import re

from polybench.grading.parsers._text import TwoWayPattern, visible_text
from polybench.grading.parsers.base import ParseResult, TestStatus, register

_LINES = TwoWayPattern(
    r"\n(?P<target>(?:@[\w.~+-]*)?//[^{S}]+)[{L}]+(?:\(cached\)[{L}]+)?"
    r"(?P<status>PASSED|FAILED TO BUILD|FAILED|TIMEOUT|FLAKY|NO STATUS|SKIPPED|INCOMPLETE"
    r"|REMOTE FAILURE)\b",
    re.MULTILINE,
)
_STATUS = {
    "PASSED": TestStatus.PASSED,
    "FLAKY": TestStatus.PASSED,
    "FAILED": TestStatus.FAILED,
    "TIMEOUT": TestStatus.FAILED,
    "INCOMPLETE": TestStatus.FAILED,
    "REMOTE FAILURE": TestStatus.FAILED,
    "FAILED TO BUILD": TestStatus.ERRORED,
    "NO STATUS": TestStatus.SKIPPED,
    "SKIPPED": TestStatus.SKIPPED,
}


@register("bazel")
def parse_bazel(text: str) -> ParseResult:
    """Bazel test summary: ``//pkg:target STATUS`` -> ``/pkg:target``."""
    result = ParseResult()
    text = visible_text(text)
    found = _LINES.of(text).findall(text)
    targets = [target[1:] if target.startswith("//") else target for target, _ in found]
    result.add_all(list(zip(targets, [_STATUS[status] for _, status in found], strict=True)))
    result.notes += [
        f"{target} is flaky (passed after retries)"
        for target, (_, status) in zip(targets, found, strict=True)
        if status == "FLAKY"
    ]
    return result
