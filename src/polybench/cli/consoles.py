"""The consoles every command prints to: results on stdout, warnings and errors on stderr.

Each console is made (and rich imported) when it is first used, so a command's ``--help``
does not pay for rich, from the environment the process started with (as if it had been
made on import); :func:`escape` imports rich's markup module on its first call.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from rich.console import Console


def _make(stderr: bool, width: int, environ: dict[str, str]) -> Console:
    from rich.console import Console

    # Made as it would have been when ``environ`` was read (the start of the process);
    # what rich reads later it reads from the live environment.
    console = Console(stderr=stderr, soft_wrap=True, _environ=environ)
    if not console.is_terminal and "COLUMNS" not in environ:
        # Logs and pipes: wide enough that tables are not truncated.
        console = Console(stderr=stderr, soft_wrap=True, width=width, _environ=environ)
    console._environ = os.environ
    return console


class _OnFirstUse:
    """Stands for a rich ``Console`` made on first use (every attribute read or set is
    the console's)."""

    __slots__ = ("_made", "_settings")

    def __init__(self, stderr: bool, width: int = 120) -> None:
        object.__setattr__(self, "_settings", (stderr, width, dict(os.environ)))
        object.__setattr__(self, "_made", None)

    def _console(self) -> Console:
        made: Console | None = object.__getattribute__(self, "_made")
        if made is None:
            made = _make(*object.__getattribute__(self, "_settings"))
            object.__setattr__(self, "_made", made)
        return made

    def __getattr__(self, name: str) -> Any:
        return getattr(self._console(), name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._console(), name, value)

    def __enter__(self) -> Console:  # (special methods are looked up on the type)
        return self._console().__enter__()

    def __exit__(self, *exc_info: Any) -> None:
        self._console().__exit__(*exc_info)


def escape(text: str) -> str:
    """``text`` with rich markup escaped, to be printed as it is."""
    from rich.markup import escape as rich_escape

    return rich_escape(text)


console = cast("Console", _OnFirstUse(stderr=False))
err_console = cast("Console", _OnFirstUse(stderr=True))
wide_console = cast("Console", _OnFirstUse(stderr=False, width=240))
"""For tables of Docker image names, which are long and must not be folded."""
