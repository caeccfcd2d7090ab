"""Shared helpers: line iteration, ANSI removal, tolerant JSON decoding."""

from __future__ import annotations

import json

import pytest

from polybench.grading.parsers._json_scan import (
    DecodeError,
    ReportScanner,
    decode_at,
    decode_partial,
)
from polybench.grading.parsers._text import iter_lines, split_lines, strip_ansi


@pytest.mark.parametrize("chunk", [1, 2, 3, 7, 1 << 20])
def test_iter_lines_is_independent_of_chunking(chunk: int) -> None:
    text = "a\nbb\r\nprogress 1\rprogress 2\rdone\n\n\x1b[31mred\x1b[0m\nlast \u2028 sep"
    assert list(iter_lines(text, chunk_size=chunk)) == [
        "a",
        "bb",
        "progress 1",
        "progress 2",
        "done",
        "",
        "red",
        "last \u2028 sep",
    ]


@pytest.mark.parametrize("chunk", [1, 2, 3, 7, 1 << 20])
@pytest.mark.parametrize("start", [0, 1, 4])
def test_split_lines_is_independent_of_chunking(chunk: int, start: int) -> None:
    text = "\nab\n\ncd\ne\n\nlast \u2028 sep\n"
    assert list(split_lines(text, start, chunk_size=chunk)) == text[start:].split("\n")


def test_strip_ansi_handles_osc_links_and_csi() -> None:
    text = "\x1b]8;;file:///x\x07link\x1b]8;;\x07 \x1b[1;32mok\x1b[0m \x1b[2K\x1b[1G"
    assert strip_ansi(text) == "link ok "


def test_decode_at_large_value_far_into_the_text() -> None:
    value = {"tests": [{"fullTitle": "t" * 50 + str(i)} for i in range(3000)]}
    text = "noise " * 4000 + json.dumps(value) + " trailing"
    decoded, end = decode_at(text, 24_000)
    assert decoded == value
    assert text[end:] == " trailing"


def test_decode_at_does_not_accept_a_number_cut_by_the_window() -> None:
    text = " " * 20_000 + "[" + "1" * 4200 + "]"
    assert decode_at(text, 20_001) == (int("1" * 4200), 24_201)


def test_decode_at_value_ending_the_log_far_into_it() -> None:
    text = " " * 20_000 + '{"a": [1, 2]} 17'
    assert decode_at(text, 20_000) == ({"a": [1, 2]}, 20_013)
    assert decode_at(text, 20_014) == (17, 20_016)
    with pytest.raises(DecodeError) as info:
        decode_at(text[:-4], 20_000)
    assert info.value.pos == 20_012  # where the text ends


def test_decode_at_rejects_invalid_json() -> None:
    with pytest.raises(DecodeError) as info:
        decode_at('{"a": 1, {', 0)
    assert info.value.pos == 9
    for prefix in (10_000, 20_000):
        far = "x" * prefix + '{"a": [1, 2, }' + " " * 5000
        with pytest.raises(DecodeError) as info:
            decode_at(far, prefix)
        assert info.value.pos == prefix + 13


def test_scanner_budget_stops_adversarial_logs() -> None:
    text = '{"testResults":[' * 20_000
    scanner = ReportScanner(text, passes=1)
    list(scanner.find_reports(("testResults",), lambda data: False))
    assert scanner.exhausted


def test_decode_partial_keeps_complete_members() -> None:
    text = '{"a": [1, 2, {"b": 3}, {"c": '
    value, _, complete = decode_partial(text, 0)
    assert not complete
    assert value == {"a": [1, 2, {"b": 3}, {}]}


def test_find_reports_uses_the_predicate() -> None:
    text = '{"stats": 1} {"stats": {"tests": 2}, "tests": []} {"stats": {}, "passes": ['
    scanner = ReportScanner(text)
    found = list(scanner.find_reports(("stats",), lambda data: isinstance(data.get("stats"), dict)))
    assert [report.complete for report in found] == [True, False]
