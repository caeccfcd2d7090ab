"""Run a process with a wall-clock timeout that kills its whole process group, capping output."""

from __future__ import annotations

import contextlib
import os
import selectors
import signal
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path

from polybench.sandbox.base import DEFAULT_MAX_OUTPUT_BYTES, TRUNCATION_MARKER, ExecResult
from polybench.sandbox.cancel import Cancelled, cancelled

_READ_CHUNK = 1 << 16
_POLL_SECONDS = 0.2
_DRAIN_SECONDS = 2.0
_FINAL_READS = 16
"""Chunks read per pipe once the wait ends: more than a pipe holds (64 KiB, or 1 MiB at most)."""


class _CappedBuffer:
    """Keeps the first and last ``limit / 2`` bytes of a stream and counts what it drops."""

    def __init__(self, limit: int) -> None:
        self.head_limit = limit // 2
        self.tail_limit = limit - self.head_limit
        self.head = bytearray()
        self.tail = bytearray()
        self.dropped = 0

    def add(self, chunk: bytes) -> None:
        room = self.head_limit - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if not chunk:
            return
        self.tail += chunk
        overflow = len(self.tail) - self.tail_limit
        if overflow > 0:
            del self.tail[:overflow]
            self.dropped += overflow

    def value(self) -> bytes:
        if not self.dropped:
            return bytes(self.head + self.tail)
        return bytes(self.head) + (TRUNCATION_MARKER % self.dropped) + bytes(self.tail)


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)


def _decode(raw: bytes, path_map: dict[str, str] | None) -> str:
    for host_path, shown_path in (path_map or {}).items():
        raw = raw.replace(host_path.encode(), shown_path.encode())
    return raw.decode("utf-8", errors="replace")


def _read_ready(
    selector: selectors.BaseSelector,
    key: selectors.SelectorKey,
    combined: _CappedBuffer,
    apart: dict[int, _CappedBuffer],
) -> int:
    """Read one chunk from a ready pipe; 1 when the pipe reached its end (it is then dropped)."""
    chunk = os.read(key.fd, _READ_CHUNK)
    if not chunk:
        selector.unregister(key.fileobj)
        return 1
    combined.add(chunk)
    if key.fd in apart:
        apart[key.fd].add(chunk)
    return 0


def run_process(
    argv: Sequence[str],
    cwd: Path,
    env: dict[str, str],
    timeout: float | None,
    max_output_bytes: int = DEFAULT_MAX_OUTPUT_BYTES,
    path_map: dict[str, str] | None = None,
    streams: bool = False,
    pass_fds: tuple[int, ...] = (),
) -> ExecResult:
    """Run ``argv`` in its own session and wait at most ``timeout``.

    The output holds stdout and stderr interleaved as they arrive; with ``streams`` each
    is also kept apart. On timeout every process of the session is killed with SIGKILL.
    Output beyond ``max_output_bytes`` is dropped from the middle (head and tail are
    kept) while the process keeps running. ``path_map`` rewrites host paths in the output.
    ``pass_fds`` stay open in the child (and are closed here once it started).
    """
    started = time.monotonic()
    try:
        process = subprocess.Popen(
            list(argv),
            cwd=str(cwd),
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE if streams else subprocess.STDOUT,
            start_new_session=True,
            pass_fds=pass_fds,
        )
    finally:
        for descriptor in pass_fds:
            os.close(descriptor)
    assert process.stdout is not None
    combined = _CappedBuffer(max_output_bytes)
    apart: dict[int, _CappedBuffer] = {}
    pipes = [process.stdout]
    if streams:
        assert process.stderr is not None
        pipes.append(process.stderr)
        apart = {pipe.fileno(): _CappedBuffer(max_output_bytes) for pipe in pipes}
    ordered = list(apart.values())
    deadline = None if timeout is None else started + timeout
    timed_out = stopped = False
    drain_deadline: float | None = None
    open_pipes = len(pipes)
    with selectors.DefaultSelector() as selector:
        for pipe in pipes:
            selector.register(pipe, selectors.EVENT_READ)
        while open_pipes:
            now = time.monotonic()
            if cancelled():
                stopped = True
                break
            if drain_deadline is None and process.poll() is not None:
                # The leader is gone; a background child may hold the pipe open forever.
                drain_deadline = now + _DRAIN_SECONDS
            if drain_deadline is None and deadline is not None and now >= deadline:
                timed_out = True
                break
            if drain_deadline is not None and now >= drain_deadline:
                break
            for key, _ in selector.select(timeout=_POLL_SECONDS):
                open_pipes -= _read_ready(selector, key, combined, apart)
        if open_pipes and not (timed_out or stopped):
            # What the leader wrote before it exited is still in the pipe however long this
            # process was kept from reading (a loaded machine): take it, without waiting.
            for _ in range(_FINAL_READS * len(pipes)):
                ready = selector.select(timeout=0)
                if not ready:
                    break
                for key, _ in ready:
                    _read_ready(selector, key, combined, apart)
    if timed_out or stopped:
        _kill_group(process)
    try:
        exit_code: int | None = process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        _kill_group(process)
        exit_code = process.wait()
    # Children that outlived the leader (daemons, stray workers) die with the session.
    _kill_group(process)
    for pipe in pipes:
        pipe.close()
    if stopped:
        raise Cancelled("the run was cancelled")
    if timed_out:
        exit_code = None
    stdout = stderr = None
    dropped = combined.dropped
    if ordered:
        stdout = _decode(ordered[0].value(), path_map)
        stderr = _decode(ordered[1].value(), path_map)
        dropped = max(dropped, ordered[0].dropped + ordered[1].dropped)
    return ExecResult(
        exit_code=exit_code,
        output=_decode(combined.value(), path_map),
        timed_out=timed_out,
        duration=time.monotonic() - started,
        truncated_bytes=dropped,
        stdout=stdout,
        stderr=stderr,
    )
