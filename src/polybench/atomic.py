"""Atomic file writes: readers see the old file or the new one, never a part."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

from polybench.interrupts import ctrl_c_held


def _read_umask() -> int:
    """The process's file-creation mask (``os.umask`` can only be read by setting it)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


_UMASK = _read_umask()


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` so readers see the old file or the new one, never a part.

    The file gets the permissions of any new file (``0666`` less the umask), not the
    ``0600`` of a temporary file, so teammates who share a results folder can read it.
    The temporary file is removed when writing fails (e.g. the disk is full), also when
    an interrupt arrives meanwhile.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    # An interrupt (Ctrl-C, or Ray cancelling the task) between creating the temporary
    # file and removing it would leave it behind; it is taken once the write has ended.
    with ctrl_c_held():
        handle, temp_name = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
        try:
            os.fchmod(handle, 0o666 & ~_UMASK)
            with os.fdopen(handle, "wb") as temp:
                temp.write(data)
                temp.flush()
                os.fsync(temp.fileno())
            os.replace(temp_name, path)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temp_name)
            raise


def atomic_write_text(path: Path, text: str) -> None:
    """UTF-8 text version of :func:`atomic_write_bytes` (lone surrogates are escaped)."""
    atomic_write_bytes(path, text.encode("utf-8", "backslashreplace"))
