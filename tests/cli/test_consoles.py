"""The consoles are made on first use and behave as the rich consoles they stand for."""

from __future__ import annotations

import pytest
from rich.progress import Progress

from polybench.cli.consoles import _OnFirstUse, escape


def test_a_console_made_on_first_use_prints_and_serves_a_progress_bar(
    capsys: pytest.CaptureFixture[str],
) -> None:
    console = _OnFirstUse(stderr=True)
    with Progress(console=console, disable=False) as progress:
        task = progress.add_task("step", total=2)
        progress.advance(task)
    with console:
        console.print(f"[bold]done[/bold] {escape('[red]kept[/red]')}")
    err = capsys.readouterr().err
    assert "step" in err
    assert "done [red]kept[/red]" in err


def test_attributes_set_on_a_console_reach_the_rich_console() -> None:
    console = _OnFirstUse(stderr=False)
    console.width = 57
    assert console.width == 57
    assert type(console._console()).__name__ == "Console"


def test_a_console_is_made_from_the_environment_it_was_declared_in(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A COLUMNS set after start-up (a test runner's, a command's) does not change the
    width the console was meant to have; rich still reads the live environment later."""
    monkeypatch.delenv("COLUMNS", raising=False)
    console = _OnFirstUse(stderr=False, width=120)
    monkeypatch.setenv("COLUMNS", "50")
    assert console.width == 120  # captured output is no terminal: the fixed width
