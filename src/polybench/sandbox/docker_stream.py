"""Talking to a container: tar archives for ``put_archive`` and the exec stream.

``docker exec`` with an attached socket multiplexes stdout and stderr into frames with
an 8-byte header; :class:`FrameReader` reads them into the same capped buffer the local
backend uses, and gives up at a deadline so that a timeout can be enforced.
"""

from __future__ import annotations

import contextlib
import io
import os
import select
import struct
import tarfile
import time
from typing import Any

from polybench.sandbox.cancel import cancelled
from polybench.sandbox.process import _CappedBuffer

POLL_SECONDS = 0.5
_FINAL_READS = 64
"""Chunks taken at a deadline: more than a socket buffer holds, so a run that ended is seen."""


def tar_files(files: dict[str, bytes], mode: int = 0o644) -> bytes:
    """A tar archive holding every file of ``files`` (name: data), each with ``mode``."""
    buffer = io.BytesIO()
    now = int(time.time())
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mode = mode
            info.mtime = now
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def send_stdin(sock: Any, data: bytes) -> None:
    """Write to an exec's attached stdin (a socket, or the read-only file object over one)."""
    target = sock if hasattr(sock, "sendall") else getattr(sock, "_sock", None)
    if target is not None:
        target.sendall(data)
    else:
        os.write(sock.fileno(), data)


class FrameReader:
    """Reads Docker's multiplexed exec stream (8-byte frame headers) into a capped buffer,
    and, when given, each stream's frames (1: stdout, 2: stderr) into their own buffers,
    or stderr into a ``side`` buffer alone."""

    def __init__(
        self,
        sock: Any,
        buffer: _CappedBuffer,
        apart: dict[int, _CappedBuffer] | None = None,
        side: _CappedBuffer | None = None,
    ) -> None:
        self.sock = sock
        self.buffer = buffer
        self.apart = apart or {}
        self.side = side
        """Where stderr frames go instead of ``buffer`` (a channel of the harness's own)."""
        self.pending = bytearray()

    def read_until(self, deadline: float | None) -> bool:
        """Read until the stream ends (True) or ``deadline`` passes or the run is cancelled
        (False)."""
        while True:
            if cancelled():
                return False
            wait = POLL_SECONDS
            if deadline is not None:
                wait = min(wait, deadline - time.monotonic())
                if wait <= 0:
                    return self._read_what_is_there()
            ready, _, _ = select.select([self.sock], [], [], wait)
            if ready and self._read_once():
                return True

    def _read_once(self) -> bool:
        """Read one chunk from the ready stream; True when the stream has ended."""
        try:
            chunk = self.sock.read(1 << 16)
        except (BlockingIOError, TimeoutError):
            return False
        except OSError:
            return True
        if not chunk:
            return True
        self._feed(chunk)
        return False

    def _read_what_is_there(self) -> bool:
        """At the deadline: take what already arrived, without waiting (this process may
        have been kept from reading for a while); True when the stream ended in it."""
        for _ in range(_FINAL_READS):
            ready, _, _ = select.select([self.sock], [], [], 0)
            if not ready:
                return False
            if self._read_once():
                return True
        return False

    def _feed(self, chunk: bytes) -> None:
        self.pending += chunk
        while len(self.pending) >= 8:
            (size,) = struct.unpack(">I", self.pending[4:8])
            if len(self.pending) < 8 + size:
                break
            frame = bytes(self.pending[8 : 8 + size])
            if self.side is not None and self.pending[0] == 2:
                self.side.add(frame)
                del self.pending[: 8 + size]
                continue
            self.buffer.add(frame)
            stream = self.apart.get(self.pending[0])
            if stream is not None:
                stream.add(frame)
            del self.pending[: 8 + size]

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.close()
