"""Per-instance artifact files, each written atomically (temp file, then rename)."""

from __future__ import annotations

import errno
import shutil
from pathlib import Path

from polybench.atomic import atomic_write_text

DEAD_DISK_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS})
"""Errors that say a folder takes no more writes (full, over quota, read-only)."""


class InstanceArtifacts:
    """The folder ``<run>/instances/<instance_id>/`` and the files in it."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def path(self, name: str) -> Path:
        """The path of artifact ``name``."""
        return self.directory / name

    def write_text(self, name: str, text: str) -> None:
        """Write an artifact atomically."""
        atomic_write_text(self.path(name), text)

    def read_text(self, name: str) -> str:
        """Read an artifact back."""
        return self.path(name).read_text(encoding="utf-8", errors="replace")

    def copy_file(self, name: str, source: Path) -> None:
        """Copy an outside file in (e.g. a setup log)."""
        self.directory.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, self.path(name))

    def clear(self) -> None:
        """Remove the folder's files before an instance is redone."""
        if self.directory.exists():
            shutil.rmtree(self.directory)
