"""pytest logs read a block of lines at a time: the blocks never change what is read.

Each generated log is parsed with blocks far larger than the log (one block per region)
and with blocks of a few lines, which puts block edges everywhere: between a failure and a
later pass of the same test, inside a session's summary, next to xdist lines and headers.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from itertools import pairwise

import pytest

from polybench.grading.parsers import pytest_log
from polybench.grading.parsers._text import line_blocks
from polybench.grading.parsers.base import ParseResult
from polybench.grading.parsers.combined import parse_pytest_or_unittest

STATUSES = ["PASSED", "FAILED", "ERROR", "SKIPPED", "XFAIL", "XPASS"]
NODES = [
    "tests/test_a.py::test_one",
    "tests/test_a.py::TestB::test_two",
    "tests/test_a.py::TestB::test_three[1-2]",
    "tests/test_a.py::test_p[a b]",
    "tests/test_a.py::test_p[c[d]]",
    "tests/test_a.py::Outer::Inner::test_nested",
    "a-b/t.py::A::B::t",
    "t.py::t[x y][z]",
    "t.py::t[\u00e9\u2713]",
    "tests/test_c.py::test_k[p - q]",
]


def _node(rng: random.Random) -> str:
    if rng.random() < 0.5:
        return rng.choice(NODES)
    return f"tests/test_m{rng.randrange(3)}.py::test_{rng.randrange(40)}[v{rng.randrange(3)}]"


def _session(rng: random.Random) -> Iterator[str]:
    yield "=" * 20 + " test session starts " + "=" * 20
    yield "collected many items"
    for _ in range(rng.randrange(1, 60)):
        node, status = _node(rng), rng.choice(STATUSES)
        roll = rng.random()
        if roll < 0.15:
            yield f"[gw{rng.randrange(2)}] [ {rng.randrange(100)}%] {status} {node}"
        elif roll < 0.25:
            yield f"INFO captured {node} {status} line"
        else:
            yield f"{node} {status}{' ' * rng.randrange(3)}[ 42%]"
    if rng.random() < 0.8:
        yield "=" * 20 + " short test summary info " + "=" * 20
        for _ in range(rng.randrange(0, 40)):
            roll = rng.random()
            if roll < 0.05:
                yield "ERROR tests/test_broken.py"
            elif roll < 0.1:
                yield f"SKIPPED [1] {_node(rng).split('::')[0]}:3: no reason"
            else:
                message = " - AssertionError: x" if rng.random() < 0.3 else ""
                yield f"{rng.choice(STATUSES[:3])} {_node(rng)}{message}"
    yield "=" * 10 + f" {rng.randrange(1, 9)} failed, {rng.randrange(9)} passed in 0.5s " + "=" * 10


def _log(seed: int) -> str:
    rng = random.Random(seed)
    lines = [line for _ in range(rng.randrange(1, 4)) for line in _session(rng)]
    return "\n".join(lines) + "\n"


def _read(text: str, block_size: int, monkeypatch: pytest.MonkeyPatch) -> ParseResult:
    with monkeypatch.context() as patch:
        patch.setattr(pytest_log, "BLOCK_SIZE", block_size)
        return parse_pytest_or_unittest(text)


def _view(result: ParseResult) -> tuple[object, ...]:
    return (
        result.statuses,
        list(result.statuses),
        result.occurrences,
        result.aliases,
        result.official_ids,
        result.notes,
        result.unnamed_failures,
        result.parsed_anything,
    )


def test_line_blocks_cover_the_span_and_cut_at_line_breaks() -> None:
    text = "\n" + "\n".join(f"line {i} " + "x" * (i % 17) for i in range(300))
    for start, end, size in [
        (0, len(text), 40),
        (5, len(text) - 3, 1),
        (0, len(text), 0),
        (0, len(text), 10**6),
    ]:
        spans = list(line_blocks(text, start, end, size))
        assert spans[0][0] == start and spans[-1][1] == end
        assert all(left[1] == right[0] for left, right in pairwise(spans))
        assert all(text[cut] == "\n" for _, cut in spans[:-1])
        if size < 100:
            assert len(spans) > 20
        else:
            assert spans == [(start, end)]


@pytest.mark.parametrize("block_size", [1, 64, 700])
def test_small_blocks_read_what_one_block_reads(
    block_size: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    weighed = 0
    for seed in range(150):
        text = _log(seed)
        whole = _read(text, 1 << 30, monkeypatch)
        assert _view(_read(text, block_size, monkeypatch)) == _view(whole), seed
        weighed += any(status == "failed" for status in whole.statuses.values())
    assert weighed > 100  # the logs hold failures that a later pass must not undo


def test_a_failure_is_not_undone_by_a_pass_in_a_later_block(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    header = "=" * 20 + " test session starts " + "=" * 20
    filler = "\n".join(f"t.py::test_{i} PASSED" for i in range(50))
    text = f"{header}\nt.py::test_x FAILED\n{filler}\nt.py::test_x PASSED\n"
    for block_size in (1 << 30, 32):
        result = _read(text, block_size, monkeypatch)
        assert result.statuses["t.py:None:test_x"] == "failed"
        assert result.occurrences[0] == ("t.py:None:test_x", "failed")
