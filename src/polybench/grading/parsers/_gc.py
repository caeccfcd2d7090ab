"""Pausing the cyclic garbage collector while a parser builds millions of small objects."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector for the duration of a parse (re-entrant).

    Parsers create no reference cycles (everything they drop is freed by reference
    counting), but the millions of containers a large log yields (decoded JSON, per-line
    temporaries) trigger repeated collections that can cost more than the parsing.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
