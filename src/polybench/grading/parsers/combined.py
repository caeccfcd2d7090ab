"""Parsers that pick a format from the log, as the official harness does for some repos.

* ``pytest_or_unittest`` (the official Python repositories): a pytest log when it has a
  pytest session or summary header, else a unittest ``-v`` log; if the chosen reading
  finds nothing the other one is tried. Tests whose id under the official harness's
  patterns differs from the proper id (unusual paths or parameters, nested classes,
  Python 3.11+ unittest lines) are recorded under both, so official lists match.
* ``mocha_json_or_tap`` (three.js, svelte): a mocha JSON report when one is present,
  else a TAP stream with the official raw ids (see ``tap_raw``).
"""

from __future__ import annotations

from functools import partial

from polybench.grading.parsers.base import ParseResult, register
from polybench.grading.parsers.mocha_json import parse_mocha_json
from polybench.grading.parsers.pytest_log import PYTEST_MARKERS, parse_pytest_text
from polybench.grading.parsers.tap import parse_tap_raw
from polybench.grading.parsers.unittest_log import parse_unittest_text


@register("pytest_or_unittest")
def parse_pytest_or_unittest(text: str) -> ParseResult:
    """pytest ids for a pytest log, unittest ids for a unittest log."""
    looks_pytest = any(marker in text for marker in PYTEST_MARKERS)
    pytest_reader = partial(parse_pytest_text, legacy_ids=True)
    unittest_reader = partial(parse_unittest_text, legacy_ids=True)
    first, second = (
        (pytest_reader, unittest_reader) if looks_pytest else (unittest_reader, pytest_reader)
    )
    result = first(text)
    if result.parsed_anything:
        return result
    fallback = second(text)
    if fallback.parsed_anything:
        fallback.notes.append(
            "no pytest results; read as unittest"
            if looks_pytest
            else "no unittest results; read as pytest"
        )
        return fallback
    return result


@register("mocha_json_or_tap")
def parse_mocha_json_or_tap(text: str) -> ParseResult:
    """Mocha JSON report (``fullTitle``) if present, else TAP with official raw ids."""
    result = parse_mocha_json(text)
    if result.parsed_anything:
        return result
    tap = parse_tap_raw(text)
    if tap.parsed_anything:
        return tap
    result.notes.extend(tap.notes)
    return result
