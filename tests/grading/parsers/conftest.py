"""Shared helpers for the log-parser tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from polybench.grading.parsers import ParseResult, get_parser

DATA = Path(__file__).resolve().parents[2] / "data"
SAMPLES = DATA / "test-logs"
LEADERBOARD = DATA / "leaderboard"
CORPUS = DATA / "parser_corpus"


def run(parser: str, text: str) -> dict[str, str]:
    """Parse ``text`` with ``parser``; statuses as plain strings."""
    return {key: value.value for key, value in get_parser(parser)(text).statuses.items()}


def result_of(parser: str, text: str) -> ParseResult:
    """The full ParseResult of ``parser`` on ``text``."""
    return get_parser(parser)(text)


def sample(name: str) -> str:
    """A real framework log from ``tests/data/test-logs`` (fails when it is missing)."""
    path = SAMPLES / name
    if not path.exists():
        pytest.fail(f"sample log {path} is missing")
    return path.read_text(encoding="utf-8")
