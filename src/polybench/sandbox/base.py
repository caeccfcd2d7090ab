"""The sandbox contract shared by every backend."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, runtime_checkable

DEFAULT_MAX_OUTPUT_BYTES = 64 * 1024 * 1024
TRUNCATION_MARKER = b"\n[polybench: output truncated here: %d bytes dropped]\n"


class SandboxError(RuntimeError):
    """The sandbox itself failed (could not start, died, lost files): an infrastructure error."""


@dataclass(frozen=True)
class ExecResult:
    """What one command did in a sandbox.

    ``output`` is stdout and stderr interleaved as the command wrote them, decoded as
    UTF-8 with replacement characters for invalid bytes. ``exit_code`` is None when
    the command was killed by the timeout. When the command ran with ``streams=True``,
    ``stdout`` and ``stderr`` also hold each stream on its own (a structured report
    written to stdout is then never cut by what the program wrote to stderr).
    ``truncated_bytes`` counts what the output cap dropped, in any of them.
    """

    exit_code: int | None
    output: str
    timed_out: bool
    duration: float
    truncated_bytes: int = 0
    stdout: str | None = None
    stderr: str | None = None

    @property
    def ok(self) -> bool:
        """True when the command ran to completion and exited 0."""
        return self.exit_code == 0 and not self.timed_out


@runtime_checkable
class Sandbox(Protocol):
    """An isolated place holding one repository checkout where commands run.

    Paths given to ``exec``/``read_file``/``write_file`` are as seen from inside the
    sandbox: the repository is at ``workdir`` (``/testbed`` wherever the backend can
    arrange it) and harness files go to ``scratch_dir``.
    """

    @property
    def workdir(self) -> str:
        """Where the repository is, as seen by commands in the sandbox."""
        ...

    @property
    def scratch_dir(self) -> str:
        """A writable directory outside the repository for harness files."""
        ...

    @property
    def isolation(self) -> str:
        """How commands are isolated (``bubblewrap``, ``none``, ``docker``)."""
        ...

    def exec(
        self,
        command: list[str] | str,
        timeout: float | None = None,
        env: dict[str, str] | None = None,
        cwd: str | None = None,
        streams: bool = False,
    ) -> ExecResult:
        """Run ``command`` (argv list, or a string run by ``bash -c``) and wait for it.

        On timeout the whole process tree is killed and ``timed_out`` is set. With
        ``streams`` stdout and stderr are also captured apart (``ExecResult.stdout``,
        ``ExecResult.stderr``).
        """
        ...

    def read_file(self, path: str) -> bytes:
        """The bytes of a file in the sandbox."""
        ...

    def write_file(self, path: str, data: bytes | str) -> None:
        """Create or replace a file in the sandbox (parent directories are created)."""
        ...

    def cleanup(self) -> None:
        """Remove everything the sandbox holds. Safe to call twice."""
        ...


@runtime_checkable
class WritesMany(Protocol):
    """A sandbox that writes several files in one operation (where each write costs a
    round trip, as a container engine's archive upload does)."""

    def write_files(self, files: Mapping[str, bytes | str]) -> None:
        """Create or replace every file of ``files`` (path as seen in the sandbox: its
        bytes or text), parent directories created, in as few operations as it can."""
        ...


def write_files(sandbox: Sandbox, files: Mapping[str, bytes | str]) -> None:
    """Write ``files`` into ``sandbox``: at once where it can (:class:`WritesMany`), else
    one :meth:`Sandbox.write_file` each."""
    if not files:
        return
    if isinstance(sandbox, WritesMany):
        sandbox.write_files(files)
        return
    for path, data in files.items():
        sandbox.write_file(path, data)


@runtime_checkable
class ExecsWithFiles(Protocol):
    """A sandbox that writes files, runs a command and reads a file back in one
    operation (where each costs a round trip, as with a container engine)."""

    def exec_with_files(
        self,
        command: list[str],
        files: Mapping[str, bytes | str],
        read_back: str | None = None,
        timeout: float | None = None,
        env: dict[str, str] | None = None,
    ) -> tuple[ExecResult, bytes | None]:
        """See :func:`exec_with_files`."""
        ...


def exec_with_files(
    sandbox: Sandbox,
    command: list[str],
    files: Mapping[str, bytes | str],
    read_back: str | None = None,
    timeout: float | None = None,
    env: dict[str, str] | None = None,
) -> tuple[ExecResult, bytes | None]:
    """Write ``files``, run ``command`` (as :meth:`Sandbox.exec`, its stderr merged into
    its output), then read the file
    ``read_back``: its bytes, or None when it is missing (or none was asked for). In one
    round trip where the sandbox can (:class:`ExecsWithFiles`)."""
    if isinstance(sandbox, ExecsWithFiles):
        return sandbox.exec_with_files(command, files, read_back, timeout, env)
    return exec_then_read(sandbox, command, files, read_back, timeout, env)


def exec_then_read(
    sandbox: Sandbox,
    command: list[str],
    files: Mapping[str, bytes | str],
    read_back: str | None = None,
    timeout: float | None = None,
    env: dict[str, str] | None = None,
) -> tuple[ExecResult, bytes | None]:
    """:func:`exec_with_files` as three operations: write, exec, read."""
    write_files(sandbox, files)
    done = sandbox.exec(command, timeout=timeout, env=env)
    return done, None if read_back is None else read_if_there(sandbox, read_back)


def read_if_there(sandbox: Sandbox, path: str) -> bytes | None:
    """The bytes of the file at ``path`` in ``sandbox``, or None when it cannot be read."""
    try:
        return sandbox.read_file(path)
    except (OSError, SandboxError):
        return None


@runtime_checkable
class SocketReach(Protocol):
    """A sandbox whose commands can connect to Unix sockets the harness makes."""

    def socket_folder(self) -> tuple[Path, str] | None:
        """A folder of this machine where a Unix socket made by the harness is reachable
        from commands in the sandbox, and the folder's path as they see it; None when the
        sandbox has none."""
        ...
