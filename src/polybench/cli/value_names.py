"""Value names in ``--help``: ``TEXT``, ``PATH``, ``INTEGER``, ``FLOAT``, none for a flag.

Typer names a value after its Python annotation (``<str>``, ``<list[str]>``, ``<int
range>``, and ``<bool>`` beside flags that take no value). :func:`name_values`, called by
the ``polybench`` group on each command it builds, gives every option and argument that
has no ``metavar`` of its own the conventional upper-case name instead; an option that
names its value (``metavar="ID[,ID...]"``) keeps it.
"""

from __future__ import annotations

import datetime
import enum
from pathlib import PurePath
from typing import Any, get_args, get_origin

import typer
from typer.core import TyperArgument

_NAMES: tuple[tuple[type, str], ...] = (
    (bool, "BOOLEAN"),
    (int, "INTEGER"),
    (float, "FLOAT"),
    (str, "TEXT"),
    (PurePath, "PATH"),
    (datetime.datetime, "DATETIME"),
)


def value_name(param: Any) -> str | None:
    """The conventional name of ``param``'s value: ``""`` for a flag, ``[a|b]`` for a
    choice, ``TEXT``/``PATH``/``INTEGER``/``FLOAT`` by type; None when typer gave no type
    description to go by (click then names the value itself)."""
    if getattr(param, "is_flag", False) or getattr(param, "count", False):
        return ""
    descriptor = getattr(param, "type_descriptor", None)
    if descriptor is None:
        return None
    choices = getattr(descriptor, "choices", None)
    if choices:
        shown = (c.value if isinstance(c, enum.Enum) else c for c in choices)
        return "[" + "|".join(str(choice) for choice in shown) + "]"
    annotation = getattr(descriptor, "annotation", None)
    if get_origin(annotation) in (list, tuple):
        items = [arg for arg in get_args(annotation) if arg is not Ellipsis]
        annotation = items[0] if len(set(items)) == 1 else None
    if isinstance(annotation, type):
        for kind, name in _NAMES:
            if issubclass(annotation, kind):
                return name
    return "VALUE"


class _NamedArgument(TyperArgument):
    """An argument whose help shows its value name (``PATH``) where typer shows the
    annotation (``<path>``). Typer asks the argument itself for that text and has no
    setting for it, so the walk below gives the arguments it names this class."""

    value_name: str = ""

    def display_type_rich(self, ctx: Any) -> str | None:
        return self.value_name or None


def name_values(command: Any, ctx: typer.Context | None = None) -> None:
    """Name the values of every parameter of ``command`` and of its subcommands, and hide
    the value of every ``--help`` (a flag)."""
    ctx = typer.Context(command, parent=ctx, info_name=command.name)
    for param in command.params:
        if param.metavar is not None:
            continue
        name = value_name(param)
        if name is None:
            continue
        if type(param) is TyperArgument:
            param.__class__ = _NamedArgument
            assert isinstance(param, _NamedArgument)
            param.value_name = name
            param.metavar = param.name.upper()
        else:
            param.metavar = name
    help_option = command.get_help_option(ctx)
    if help_option is not None and getattr(help_option, "type_descriptor", None) is not None:
        help_option.metavar = ""
    for subcommand in getattr(command, "commands", {}).values():
        name_values(subcommand, ctx)
