"""Where polybench keeps caches; one place so every package agrees."""

from __future__ import annotations

import os
from pathlib import Path


def cache_root() -> Path:
    """The cache directory: ``$POLYBENCH_CACHE_DIR``, else ``$XDG_CACHE_HOME/polybench``."""
    explicit = os.environ.get("POLYBENCH_CACHE_DIR")
    if explicit:
        return Path(explicit).expanduser().resolve()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return (Path(base) / "polybench").resolve()
