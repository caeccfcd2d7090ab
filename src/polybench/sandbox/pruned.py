"""Pruned git directories kept for reuse, so that a new checkout is a copy, not a repack.

Pruning (:mod:`polybench.sandbox.history`) packs every object the base commit needs,
which on a large repository takes seconds, and an instance makes two checkouts of the
same commit (the graded run and the canary run), run after run. The pruned ``.git`` of a
commit depends on nothing but the commit (objects are named by their content), so it is
made once, kept under the cache (which no sandbox sees), and copied into each new
checkout; the checkout then gets its files from it. Each checkout owns its copy: what
code under test does to its ``.git`` never reaches the kept one.

Kept directories are replaced atomically (made under a temporary name, then renamed),
and the least recently used ones are removed when together they pass
:data:`MAX_KEPT_BYTES`. Anything unusual (a commit that is not a hash, a copy that
fails) is reported to the caller, which prunes the plain way instead.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from polybench.sandbox.history import GIT_SAFE_ENV, HISTORY_MODES, build_script

MAX_KEPT_BYTES = 4 << 30
"""How much the kept pruned directories may take together before the oldest go."""

_HASH = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")


class PrunedStoreError(Exception):
    """A kept pruned directory could not be made or copied."""


def _run(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """A harness git command (no system or user configuration) in ``cwd``."""
    return subprocess.run(
        argv,
        cwd=cwd,
        env={**os.environ, **GIT_SAFE_ENV},
        capture_output=True,
        text=True,
        check=False,
    )


def _size(folder: Path) -> int:
    total = 0
    for parent, _, files in os.walk(folder):
        for name in files:
            try:
                total += os.lstat(os.path.join(parent, name)).st_size
            except OSError:
                continue
    return total


class PrunedStore:
    """Pruned ``.git`` directories, one per (commit, history mode), under ``root``."""

    def __init__(self, root: Path, max_bytes: int = MAX_KEPT_BYTES) -> None:
        self.root = root
        self.max_bytes = max_bytes

    def kept(self, commit: str, mode: str) -> Path:
        """Where the pruned directory of ``commit`` in ``mode`` is kept."""
        return self.root / f"{commit}.{mode}"

    def check_out(self, clone: Path, commit: str, mode: str, checkout: Path) -> None:
        """Make ``checkout`` (which must not exist) a pruned repository at ``commit`` with
        its files, from the kept directory (made from ``clone`` when missing).

        Raises :class:`PrunedStoreError`; ``checkout`` may then hold a partial copy."""
        if mode not in HISTORY_MODES or _HASH.fullmatch(commit) is None:
            raise PrunedStoreError(f"no kept history for {commit!r} ({mode})")
        try:
            source = self._ensure(clone, commit, mode)
            checkout.mkdir()
            shutil.copytree(source, checkout / ".git", symlinks=True)
            os.utime(source)  # recently used: evicted last
        except OSError as error:
            raise PrunedStoreError(f"the kept history is not usable: {error}") from error
        done = _run(["git", "reset", "-q", "--hard"], checkout)
        if done.returncode != 0:
            raise PrunedStoreError(f"checking out the kept history failed: {done.stderr[:500]}")
        (checkout / ".git" / "ORIG_HEAD").unlink(missing_ok=True)

    def _ensure(self, clone: Path, commit: str, mode: str) -> Path:
        target = self.kept(commit, mode)
        if (target / "HEAD").is_file():
            return target
        self.root.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{commit[:12]}-", dir=self.root))
        built = staging / "git"
        done = _run(build_script(commit, mode, built), clone)
        try:
            if done.returncode != 0:
                raise PrunedStoreError(f"pruning the history failed: {done.stderr[:500]}")
            try:
                built.rename(target)
            except OSError as error:
                if not (target / "HEAD").is_file():  # else another process just made it
                    raise PrunedStoreError(f"could not keep the pruned history: {error}") from error
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        self._evict(keep=target)
        return target

    def _evict(self, keep: Path) -> None:
        """Remove the least recently used kept directories beyond :attr:`max_bytes`."""
        entries = []
        for entry in self.root.iterdir():
            if entry.name.startswith(".") or entry == keep:
                continue
            try:
                entries.append((entry.stat().st_mtime, entry))
            except OSError:
                continue
        sizes = {entry: _size(entry) for _, entry in entries}
        total = sum(sizes.values()) + _size(keep)
        for _, entry in sorted(entries):
            if total <= self.max_bytes:
                break
            trash = self.root / f".evicted-{os.getpid()}-{entry.name}"
            try:
                entry.rename(trash)  # a checkout copying it now fails and prunes itself
            except OSError:
                continue
            shutil.rmtree(trash, ignore_errors=True)
            total -= sizes[entry]
