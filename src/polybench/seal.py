"""Saved results that no one else can forge: each carries a seal keyed by a local secret.

A run folder is out of every sandbox's reach, but a result is only trusted again (on
resume) when it is what the harness wrote. Next to each saved result ``NAME`` lies
``NAME.seal``: an HMAC-SHA256 of its bytes under a key kept in the cache
(``<cache>/keys/results.key``, readable by this user only, never mounted into a
sandbox). A result whose seal is missing or does not match was written or changed by
something else (or on another machine, with another key): it is not reused, and the
caller says so.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
import secrets
import threading
from dataclasses import dataclass
from pathlib import Path

from polybench.atomic import atomic_write_bytes
from polybench.paths import cache_root

SEAL_SUFFIX = ".seal"
_PREFIX = "hmac-sha256:"
_lock = threading.Lock()


def key_path() -> Path:
    """Where this user's sealing key is kept."""
    return cache_root() / "keys" / "results.key"


def _key() -> bytes:
    path = key_path()
    with _lock:
        try:
            key = path.read_bytes()
            if len(key) >= 32:
                return key
        except FileNotFoundError:
            pass
        path.parent.mkdir(parents=True, exist_ok=True)
        os.chmod(path.parent, 0o700)
        key = secrets.token_bytes(32)
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.write(descriptor, key)
        except BaseException:
            os.close(descriptor)
            with contextlib.suppress(OSError):
                path.unlink()
            raise
        os.close(descriptor)
        return key


def seal_of(data: bytes) -> str:
    """The seal of ``data`` under this user's key."""
    return _PREFIX + hmac.new(_key(), data, hashlib.sha256).hexdigest()


def seal_path(path: Path) -> Path:
    """The seal file that belongs to ``path``."""
    return path.with_name(path.name + SEAL_SUFFIX)


def write_sealed(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically, its seal first (a file without its seal is
    never trusted, so a crash between the two writes costs a redo, not trust)."""
    data = text.encode("utf-8", "backslashreplace")
    atomic_write_bytes(seal_path(path), seal_of(data).encode())
    atomic_write_bytes(path, data)


@dataclass(frozen=True)
class SealedRead:
    """What :func:`read_sealed` found: ``data`` when the file exists; ``problem`` says
    why it cannot be trusted (None when its seal matches)."""

    data: bytes | None
    problem: str | None = None

    @property
    def trusted(self) -> bool:
        """True when the file exists and its seal matches."""
        return self.data is not None and self.problem is None


def read_sealed(path: Path) -> SealedRead:
    """Read ``path`` and check its seal."""
    try:
        data = path.read_bytes()
    except OSError:
        return SealedRead(None)
    try:
        seal = seal_path(path).read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return SealedRead(data, "it has no seal: it was not written by this harness here")
    if not hmac.compare_digest(seal, seal_of(data)):
        return SealedRead(data, "its seal does not match: it was changed after it was written")
    return SealedRead(data)
