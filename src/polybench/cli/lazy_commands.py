"""Commands imported when they are used.

Building every command of the tree (importing its module and letting typer read each
signature) took about half of ``polybench --help``'s start-up time, although the
top-level help only needs each command's name and one line. :class:`LazyGroup` keeps a
table of ``name -> LazyCommand``: ``polybench --help`` prints the table's summaries and
imports no command module; ``polybench eval ...`` imports and builds ``eval`` alone.
``group.commands`` still behaves as a mapping of every command (walking its values
builds them all), so click's lookup, suggestions and introspection work unchanged.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping, MutableMapping
from dataclasses import dataclass
from typing import Any, ClassVar

import typer
from typer._click import Command, Context, HelpFormatter
from typer._click.utils import make_default_short_help
from typer.core import TyperGroup

from polybench.cli.value_names import name_values


@dataclass(frozen=True)
class LazyCommand:
    """Where a command lives and the line the group's help shows for it."""

    target: str
    """``module:attribute``: a command function or a typer app (a command group)."""
    summary: str
    """The start of the command's own help (a test keeps the two equal)."""


def build_command(name: str, target: str) -> Command:
    """Import ``target`` and build the click command typer makes of it, named ``name``."""
    module_name, _, attribute = target.partition(":")
    found = getattr(importlib.import_module(module_name), attribute)
    parent = typer.Typer(rich_markup_mode=None, add_completion=False)
    if isinstance(found, typer.Typer):
        # Added as a group, as add_typer would: alone, an app of one command is that command.
        parent.add_typer(found, name=name)
        group = typer.main.get_command(parent)
        assert isinstance(group, TyperGroup)
        return group.commands[name]
    parent.command(name)(found)
    return typer.main.get_command(parent)


class LazyCommands(MutableMapping[str, Command]):
    """The commands of a group: those of ``table`` are built on first access."""

    def __init__(self, table: Mapping[str, LazyCommand], prepare: Callable[[Command], None]):
        self._table = table
        self._prepare = prepare
        self._built: dict[str, Command] = {}

    def summary(self, name: str) -> str:
        """The line the group's help shows for ``name`` (built commands give their own)."""
        if name in self._table and name not in self._built:
            return self._table[name].summary
        return self[name].help or ""

    def __getitem__(self, name: str) -> Command:
        if name not in self._built:
            command = build_command(name, self._table[name].target)
            self._prepare(command)
            self._built[name] = command
        return self._built[name]

    def __setitem__(self, name: str, command: Command) -> None:
        self._built[name] = command

    def __delitem__(self, name: str) -> None:
        raise TypeError(f"commands cannot be removed ({name!r})")

    def __iter__(self) -> Iterator[str]:
        yield from self._table
        yield from (name for name in self._built if name not in self._table)

    def __len__(self) -> int:
        return len(self._table) + sum(name not in self._table for name in self._built)

    def __contains__(self, name: object) -> bool:
        return name in self._table or name in self._built


class LazyGroup(TyperGroup):
    """A command group whose subcommands come from :attr:`table`, built when used, with
    conventional value names (see :mod:`polybench.cli.value_names`)."""

    table: ClassVar[Mapping[str, LazyCommand]] = {}

    def __init__(self, **settings: Any) -> None:
        super().__init__(**settings)
        name_values(self)
        registered = dict(self.commands)
        self.commands = LazyCommands(self.table, self._prepare)
        for name, command in registered.items():
            self._prepare(command)
            self.commands[name] = command

    def _prepare(self, command: Command) -> None:
        name_values(command, typer.Context(self, info_name=self.name))

    def list_commands(self, ctx: Context) -> list[str]:
        return list(self.commands)

    def format_commands(self, ctx: Context, formatter: HelpFormatter) -> None:
        """The ``Commands`` section, from the summaries: nothing is imported to print it."""
        commands = self.commands
        assert isinstance(commands, LazyCommands)
        names = self.list_commands(ctx)
        if not names:
            return
        limit = formatter.width - 6 - max(len(name) for name in names)
        rows = [(name, make_default_short_help(commands.summary(name), limit)) for name in names]
        with formatter.section("Commands"):
            formatter.write_dl(rows)
