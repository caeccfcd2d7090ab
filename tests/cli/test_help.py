"""What ``--help`` shows: conventional value names, real options only, sane flag names."""

from __future__ import annotations

from typing import Any

import pytest
from typer.testing import CliRunner

from polybench.cli.main import app
from polybench.grading.parsers import known_parsers
from tests.cli.tree import (
    HELP_ENV,
    commands,
    help_text,
    leaf_commands,
    mentioned_options,
    option_names,
    root,
)

PATHS = [(), *(path for path, _ in commands())]
TYPER_VALUE_NAMES = ("<bool>", "<str>", "<list[", "<int", "<float", "<path>", "<Path>")


def _ids(path: tuple[str, ...]) -> str:
    return " ".join(path) or "polybench"


def _value_name(text: str, option: str, help_start: str) -> str:
    """What the help shows between ``option`` and the start of its help text."""
    lines = text.splitlines()
    for line, following in zip(lines, [*lines[1:], ""], strict=True):
        cells = line.strip().split()
        if option not in cells[:2]:
            continue
        if help_start in line:
            return line.split(option, 1)[1].split(help_start, 1)[0].strip()
        if help_start in following:  # a long value name pushes the help to the next line
            return line.split(option, 1)[1].strip()
    raise AssertionError(f"no line with {option} and {help_start!r} in:\n{text}")


def _all_options(command: Any) -> set[str]:
    names = option_names(command)
    for sub in getattr(command, "commands", {}).values():
        names |= _all_options(sub)
    return names


@pytest.mark.parametrize("path", PATHS, ids=_ids)
def test_help_names_values_conventionally(path: tuple[str, ...]) -> None:
    text = help_text(path)
    shown = [name for name in TYPER_VALUE_NAMES if name in text]
    assert not shown, f"{_ids(path)} --help shows {shown}:\n{text}"


def test_values_are_named_by_type_and_flags_take_none() -> None:
    text = help_text(("eval",))
    assert _value_name(text, "--workers", "Instances") == "INTEGER"
    assert "x>=1" in text
    assert _value_name(text, "--timeout", "Wall-clock") == "FLOAT"
    assert _value_name(text, "--dataset", "Built-in") == "TEXT"
    assert _value_name(text, "--output-dir", "Where") == "PATH"
    assert _value_name(text, "--instance-ids", "Only") == "ID[,ID...]"
    assert _value_name(text, "--force", "Redo") == ""
    assert _value_name(text, "--allow-network", "Let test") == ""
    assert _value_name(text, "--help", "Show this") == ""
    complexity = help_text(("dataset", "complexity"))
    assert _value_name(complexity, "--convention", "Node ids") == "[auto|official|polybench]"
    parse_log = help_text(("parse-log",))
    assert "{LOG_FILE}" in parse_log
    assert _value_name(parse_log, "LOG_FILE", "The log file") == "PATH"


@pytest.mark.parametrize("path", PATHS, ids=_ids)
def test_help_mentions_only_options_that_exist(path: tuple[str, ...]) -> None:
    command = root()
    for name in path:
        command = command.commands[name]
    unknown = mentioned_options(help_text(path)) - _all_options(command)
    assert not unknown, f"{_ids(path)} --help mentions {sorted(unknown)}, which do not exist"


def test_no_flag_is_named_no_no() -> None:
    for path, command in leaf_commands():
        doubled = [name for name in option_names(command) if name.startswith("--no-no-")]
        assert not doubled, f"{_ids(path)}: {doubled}"
        assert "--no-no-" not in help_text(path)
    collect = help_text(("collect",))
    assert "--no-api" in collect


def test_parse_log_lists_its_parsers() -> None:
    result = CliRunner().invoke(app, ["parse-log", "--list"], env=HELP_ENV)
    assert result.exit_code == 0, result.output
    listed = [line.split()[0] for line in result.output.splitlines() if line.strip()]
    assert listed == known_parsers()
    pytest_line = next(line for line in result.output.splitlines() if line.startswith("pytest "))
    assert "pytest" in pytest_line.split(None, 1)[1]
