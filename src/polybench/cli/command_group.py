"""How every ``polybench`` command group is made.

Help and usage errors are rendered by click's plain formatter, not typer's rich panels:
typer's rich renderer imports rich's Markdown, syntax and traceback modules (markdown-it
and pygments among them), which took about a third of ``polybench --help``'s start-up
time. Tables and progress that commands print still use rich.
"""

from __future__ import annotations

from typing import Any

import typer


def command_group(help: str, **settings: Any) -> typer.Typer:
    """A typer app for a group of commands: shows its help when called with no
    arguments, plain-text help, no shell-completion options."""
    settings.setdefault("no_args_is_help", True)
    settings.setdefault("add_completion", False)
    return typer.Typer(help=help, rich_markup_mode=None, **settings)
