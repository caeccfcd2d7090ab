"""Reading file contents at a commit straight from a clone, without a checkout.

One long-lived ``git cat-file --batch`` process per repository serves every read; a lock
makes a :class:`BlobReader` safe to share between threads.
"""

from __future__ import annotations

import subprocess
import threading
from pathlib import Path
from typing import IO


class BlobError(RuntimeError):
    """The ``git cat-file`` process failed or answered something unexpected."""


class BlobReader:
    """Reads ``<commit>:<path>`` from one repository through ``git cat-file --batch``."""

    def __init__(self, repo: Path) -> None:
        self.repo = repo
        self._lock = threading.Lock()
        self._process: subprocess.Popen[bytes] | None = None

    def _start(self) -> subprocess.Popen[bytes]:
        if self._process is None or self._process.poll() is not None:
            self._process = subprocess.Popen(
                ["git", "-C", str(self.repo), "cat-file", "--batch"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
            )
        return self._process

    def read(self, commit: str, path: str) -> bytes | None:
        """The contents of ``path`` at ``commit``, or None when it is not a file there."""
        if "\n" in path or "\n" in commit:
            return None
        with self._lock:
            for attempt in (1, 2):
                process = self._start()
                assert process.stdin is not None and process.stdout is not None
                try:
                    process.stdin.write(f"{commit}:{path}\n".encode())
                    process.stdin.flush()
                    return self._answer(process.stdout)
                except (BrokenPipeError, BlobError):
                    self._stop()
                    if attempt == 2:
                        raise
        return None  # pragma: no cover - the loop always returns or raises

    @staticmethod
    def _answer(stdout: IO[bytes]) -> bytes | None:
        header = stdout.readline()
        if not header:
            raise BlobError("git cat-file exited")
        line = header.rstrip(b"\n")
        if line.endswith((b" missing", b" ambiguous")):
            return None
        fields = line.split(b" ")
        if len(fields) != 3 or not fields[2].isdigit():
            raise BlobError(f"unexpected answer from git cat-file: {line[:200]!r}")
        _, kind, size_text = fields
        size = int(size_text)
        data = stdout.read(size)
        stdout.read(1)  # the newline after the contents
        if len(data) != size:
            raise BlobError("git cat-file answered a short read")
        return data if kind == b"blob" else None

    def _stop(self) -> None:
        process, self._process = self._process, None
        if process is None:
            return
        for stream in (process.stdin, process.stdout):
            if stream is not None:
                stream.close()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

    def close(self) -> None:
        """End the ``git cat-file`` process."""
        with self._lock:
            self._stop()

    def __enter__(self) -> BlobReader:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
