"""Every line pattern the parsers keep in two forms compiles in both, and on ASCII text
the ASCII form finds exactly what the Unicode form finds (the forms are compiled on first
use, so this is where a broken pattern shows before a run meets it)."""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

import pytest

import polybench.grading.parsers as parsers_package
from polybench.grading.parsers._text import TwoWayPattern

CORPUS = Path(__file__).resolve().parents[2] / "data" / "parser_corpus"


def _patterns() -> list[tuple[str, TwoWayPattern]]:
    found = []
    for module_info in pkgutil.iter_modules(parsers_package.__path__):
        module = importlib.import_module(f"{parsers_package.__name__}.{module_info.name}")
        for name, value in vars(module).items():
            if isinstance(value, TwoWayPattern):
                found.append((f"{module_info.name}.{name}", value))
    return found


PATTERNS = _patterns()


def test_the_parsers_have_two_way_patterns() -> None:
    assert len(PATTERNS) >= 10, [name for name, _ in PATTERNS]


@pytest.mark.parametrize(("name", "pattern"), PATTERNS, ids=[name for name, _ in PATTERNS])
def test_both_forms_compile_and_agree_on_ascii_logs(name: str, pattern: TwoWayPattern) -> None:
    ascii_form = pattern.of("plain")
    unicode_form = pattern.of("\u00e9")
    assert ascii_form is not unicode_form
    assert pattern.of("again") is ascii_form  # compiled once
    logs = sorted(CORPUS.rglob("*.log"))
    assert logs
    for log in logs:
        text = "\n" + log.read_text(encoding="utf-8", errors="replace")
        if not text.isascii():
            continue
        found = [m.group(0) for m in ascii_form.finditer(text)]
        assert found == [m.group(0) for m in unicode_form.finditer(text)], (name, log.name)
