"""The consoles every command prints to: results on stdout, warnings and errors on stderr."""

from __future__ import annotations

import os

from rich.console import Console


def _make(stderr: bool, width: int = 120) -> Console:
    console = Console(stderr=stderr, soft_wrap=True)
    if not console.is_terminal and "COLUMNS" not in os.environ:
        # Logs and pipes: wide enough that tables are not truncated.
        return Console(stderr=stderr, soft_wrap=True, width=width)
    return console


console = _make(stderr=False)
err_console = _make(stderr=True)
wide_console = _make(stderr=False, width=240)
"""For tables of Docker image names, which are long and must not be folded."""
