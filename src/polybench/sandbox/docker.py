"""The ``docker`` backend: one container per sandbox, commands run with ``docker exec``.

A sandbox is a container started from an image that already holds the repository at
``/testbed`` (see :mod:`polybench.environments.images`). Its main process only sleeps:
every command is a separate exec. Containers have no network unless asked, limits on
memory, CPUs and processes, a label that marks them as polybench's, and they remove
themselves when they stop (``auto_remove``), at the latest after ``lifetime`` seconds, so
a killed harness leaves nothing running for long.

Each exec runs under a small ``sh`` wrapper that is the leader of its own session (runc
starts exec'd processes with ``setsid``). When the command returns, the wrapper kills every
process left in its session, as the local backend kills the process group. On a timeout
every process in the container but the init and the main sleep is killed; if that does not
end the exec, the container itself is killed.
"""

from __future__ import annotations

import base64
import contextlib
import io
import posixpath
import shutil
import tarfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import docker
from docker.errors import DockerException, ImageNotFound, NotFound
from docker.models.containers import Container
from docker.types import Mount

from polybench.sandbox.base import (
    DEFAULT_MAX_OUTPUT_BYTES,
    ExecResult,
    SandboxError,
    exec_then_read,
    read_if_there,
)
from polybench.sandbox.cancel import Cancelled, cancelled
from polybench.sandbox.docker_client import (
    DEFAULT_CPUS,
    DEFAULT_LIFETIME_SECONDS,
    DEFAULT_MEMORY,
    DEFAULT_PIDS,
    IMAGE_LABEL,
    INSTANCE_LABEL,
    KIND_LABEL,
    LABEL_PREFIX,
    LEVEL_LABEL,
    MANAGED_LABEL,
    ContainerLimits,
    DockerUnavailable,
    docker_available,
    docker_client,
    managed_labels,
)
from polybench.sandbox.docker_stream import FrameReader, send_stdin, tar_files
from polybench.sandbox.process import _CappedBuffer

__all__ = [
    "DEFAULT_CPUS",
    "DEFAULT_LIFETIME_SECONDS",
    "DEFAULT_MEMORY",
    "DEFAULT_PIDS",
    "IMAGE_LABEL",
    "INSTANCE_LABEL",
    "KIND_LABEL",
    "LABEL_PREFIX",
    "LEVEL_LABEL",
    "MANAGED_LABEL",
    "ContainerLimits",
    "DockerSandbox",
    "DockerUnavailable",
    "docker_available",
    "docker_client",
    "managed_labels",
]

TESTBED = "/testbed"
SCRATCH = "/polybench"
CONTROL_DIR = "/run/polybench"
CHANNEL_DIR = "/run/polybench-channel"
"""Where a sandbox's channel folder (a host folder for the harness's Unix sockets) is
bound, read-only."""

_INLINE_INPUT_BYTES = 64 << 10
"""The largest archive of an exec's files passed in its arguments (base64: a third more;
one argument may hold 128 KiB); larger ones are uploaded."""
_SIDE_CHANNEL_BYTES = 64 << 20
"""The most of a file handed back on an exec's stderr that is kept (beyond: downloaded)."""
_KILL_SECONDS = 15.0
_DRAIN_SECONDS = 5.0
_EXIT_CODE_SECONDS = 60.0

# Waits for the harness's go (one line on stdin, sent once the client has read the HTTP
# response headers: output written earlier could be swallowed by the HTTP client's read
# buffer), unpacks the tar archive given base64-encoded as its second argument (the small
# files the command needs: no upload of their own), runs the command (its stderr merged
# into stdout unless the first argument is 1: then the two streams stay apart), then
# kills whatever it left behind in its session (the wrapper is the session leader, so its
# pid is the session id: field 6 of /proc/<pid>/stat), and last writes the file named by
# its third argument to its own stderr, which nothing else writes to when the command's
# stderr is merged into stdout: no download of its own.
_WRAPPER = """IFS= read -r pb_go || exit 125
exec </dev/null
pb_streams=$1; pb_input=$2; pb_back=$3; shift 3
if [ -n "$pb_input" ]; then
  pb_in=@CONTROL@/input.$$
  { mkdir -p @CONTROL@ && printf '%s' "$pb_input" | base64 -d > "$pb_in" &&
    tar -x -f "$pb_in" -C /; } >/dev/null 2>&1
  pb_unpacked=$?; rm -f "$pb_in" 2>/dev/null
  [ "$pb_unpacked" = 0 ] || { echo polybench-no-input >&2; exit 124; }
fi
if [ "$pb_streams" = 1 ]; then "$@"; else "$@" 2>&1; fi
pb_rc=$?
pb_me=$$
pb_sweep() {
  for pb_f in /proc/[0-9]*/stat; do
    pb_p=${pb_f#/proc/}; pb_p=${pb_p%/stat}
    [ "$pb_p" = "$pb_me" ] && continue
    pb_line=
    read -r pb_line < "$pb_f" || continue
    set -- ${pb_line##*) }
    [ "$4" = "$pb_me" ] && kill -9 "$pb_p"
  done
}
{ pb_sweep; pb_sweep; } >/dev/null 2>&1
if [ -n "$pb_back" ] && [ -f "$pb_back" ]; then
  printf 'polybench-back %s\n' "$(wc -c < "$pb_back")" >&2; cat -- "$pb_back" >&2
fi
exit $pb_rc
""".replace("@CONTROL@", CONTROL_DIR)
_NO_INPUT = b"polybench-no-input"
_NO_INPUT_EXIT = 124
_BACK = b"polybench-back "

# Kills every process of the container except the init, the main sleep and itself.
_KILL_ALL = f"""pb_main=$(cat {CONTROL_DIR}/main.pid 2>/dev/null)
pb_me=$$
pb_kill() {{
  for pb_d in /proc/[0-9]*; do
    pb_p=${{pb_d#/proc/}}
    case "$pb_p" in 1|"$pb_me"|"$pb_main") continue;; esac
    kill -9 "$pb_p"
  done
}}
{{ pb_kill; pb_kill; }} >/dev/null 2>&1
exit 0
"""


def _masks(bound: tuple[Path, ...], hidden: tuple[Path, ...]) -> list[Mount]:
    """Mounts that put an empty folder (or file) over each hidden path inside ``bound``."""
    masks: list[Mount] = []
    for secret in hidden:
        if not any(secret != folder and folder in secret.parents for folder in bound):
            continue
        if secret.is_dir():
            masks.append(Mount(str(secret), None, type="tmpfs", read_only=True))
        elif secret.exists():
            masks.append(Mount(str(secret), "/dev/null", type="bind", read_only=True))
    return masks


class DockerSandbox:
    """A running container whose repository is at ``/testbed``; see the module docstring."""

    def __init__(
        self,
        client: docker.DockerClient,
        container: Container,
        max_output_bytes: int = DEFAULT_MAX_OUTPUT_BYTES,
        channel: Path | None = None,
    ) -> None:
        self.client = client
        self.container = container
        self.max_output_bytes = max_output_bytes
        self.channel = channel
        self._removed = False
        self._dead_reason: str | None = None
        self._unpacks = True
        """Whether the image can unpack an exec's files itself (it has ``base64`` and ``tar``)."""

    @classmethod
    def create(
        cls,
        image: str,
        limits: ContainerLimits | None = None,
        labels: dict[str, str] | None = None,
        client: docker.DockerClient | None = None,
        max_output_bytes: int = DEFAULT_MAX_OUTPUT_BYTES,
        read_only_paths: tuple[Path, ...] = (),
        channel: Path | None = None,
        hidden_paths: tuple[Path, ...] = (),
    ) -> DockerSandbox:
        """Start a container from ``image`` (which should hold the repository at /testbed).

        ``read_only_paths`` (folders of this machine, on the engine's machine) are bound
        read-only at their own paths; ``channel``, a folder of this machine that the
        sandbox then owns (it is removed with it), is bound read-only at
        :data:`CHANNEL_DIR`, for Unix sockets of the harness. ``hidden_paths`` that lie
        inside a folder bound so are masked there (an empty folder, or an empty file).
        """
        client = client or docker_client()
        limits = limits or ContainerLimits()
        all_labels = {**managed_labels("container"), **(labels or {})}
        # The main process makes the harness's folders (an upload before the start would
        # be a round trip of its own; a file written before it has run makes its folder).
        main = (
            f"mkdir -p {SCRATCH} {CONTROL_DIR}; echo $$ > {CONTROL_DIR}/main.pid; "
            f"exec sleep {int(limits.lifetime)}"
        )
        binds = [Mount(str(p), str(p), type="bind", read_only=True) for p in read_only_paths]
        binds += _masks(read_only_paths, hidden_paths)
        if channel is not None:
            binds.append(Mount(CHANNEL_DIR, str(channel), type="bind", read_only=True))
        try:
            container = client.containers.create(
                image,
                entrypoint=["/bin/sh", "-c", main],
                command=[],
                detach=True,
                init=True,
                auto_remove=True,
                labels=all_labels,
                working_dir=TESTBED,
                user="0",
                mounts=binds,
                **limits.create_kwargs(),
            )
        except ImageNotFound as exc:
            raise SandboxError(f"image {image} does not exist") from exc
        except DockerException as exc:
            raise SandboxError(f"could not create a container from {image}: {exc}") from exc
        sandbox = cls(client, container, max_output_bytes, channel)
        try:
            container.start()
        except DockerException as exc:
            sandbox.cleanup()
            raise SandboxError(f"could not start a container from {image}: {exc}") from exc
        return sandbox

    @property
    def workdir(self) -> str:
        """``/testbed``."""
        return TESTBED

    @property
    def scratch_dir(self) -> str:
        """``/polybench``."""
        return SCRATCH

    @property
    def isolation(self) -> str:
        """``docker``."""
        return "docker"

    def socket_folder(self) -> tuple[Path, str] | None:
        """The channel folder and :data:`CHANNEL_DIR`, when the container has one."""
        return (self.channel, CHANNEL_DIR) if self.channel is not None else None

    @property
    def container_id(self) -> str:
        """The id of the container."""
        return str(self.container.id)

    def _check_usable(self) -> None:
        if self._removed:
            raise SandboxError(f"sandbox {self.container_id[:12]} has been cleaned up")
        if self._dead_reason is not None:
            raise SandboxError(f"sandbox {self.container_id[:12]} is gone: {self._dead_reason}")

    def _inside(self, path: str) -> str:
        """The absolute, normalised path of ``path``; refuses paths outside the sandbox."""
        absolute = path if path.startswith("/") else f"{TESTBED}/{path}"
        normal = posixpath.normpath(absolute)
        for root in (TESTBED, SCRATCH):
            if normal == root or normal.startswith(root + "/"):
                return normal
        raise SandboxError(f"{path} is outside the sandbox's workdir and scratch directory")

    def _start_exec(
        self,
        argv: list[str],
        env: dict[str, str] | None,
        cwd: str | None,
        gated: bool = True,
    ) -> tuple[str, Any]:
        """Create and start an exec; with ``gated`` its stdin gets the wrapper's go line."""
        try:
            created = self.client.api.exec_create(
                self.container_id,
                argv,
                stdout=True,
                stderr=True,
                stdin=gated,
                environment=env or {},
                workdir=cwd or TESTBED,
            )
            exec_id = str(created["Id"])
            sock = self.client.api.exec_start(exec_id, socket=True)
            if gated:
                send_stdin(sock, b"go\n")
        except NotFound as exc:
            self._dead_reason = "the container no longer exists"
            raise SandboxError(f"sandbox {self.container_id[:12]} is gone: {exc}") from exc
        except DockerException as exc:
            raise SandboxError(f"docker exec failed: {exc}") from exc
        return exec_id, sock

    def exec(
        self,
        command: list[str] | str,
        timeout: float | None = None,
        env: dict[str, str] | None = None,
        cwd: str | None = None,
        streams: bool = False,
    ) -> ExecResult:
        """Run a command in the container; see :class:`polybench.sandbox.base.Sandbox`."""
        return self._run(command, timeout, env, cwd, streams)[0]

    def exec_with_files(
        self,
        command: list[str],
        files: Mapping[str, bytes | str],
        read_back: str | None = None,
        timeout: float | None = None,
        env: dict[str, str] | None = None,
    ) -> tuple[ExecResult, bytes | None]:
        """Write ``files``, run ``command`` and read ``read_back`` in one exec: the files
        go in as an archive in the exec's arguments, the file comes back on its stderr
        (see :data:`_WRAPPER`); see :func:`polybench.sandbox.base.exec_with_files`.
        Files of the repository keep their mode, and an archive beyond
        :data:`_INLINE_INPUT_BYTES` would not fit, so those are uploaded as
        :meth:`write_files` does. In an image without ``base64`` or ``tar`` the three
        are separate round trips."""
        if not self._unpacks:
            return exec_then_read(self, command, files, read_back, timeout, env)
        targets = {self._inside(path): data for path, data in files.items()}
        in_repository = {t: d for t, d in targets.items() if t.startswith(TESTBED + "/")}
        archive = tar_files(
            {
                target.lstrip("/"): data.encode("utf-8") if isinstance(data, str) else data
                for target, data in targets.items()
                if target not in in_repository
            }
        )
        inline = len(archive) <= _INLINE_INPUT_BYTES
        uploaded = in_repository if inline else targets
        if uploaded:
            self.write_files(uploaded)
        encoded = base64.b64encode(archive).decode("ascii") if inline and archive else ""
        back = "" if read_back is None else self._inside(read_back)
        done, side = self._run(command, timeout, env, None, False, encoded, back)
        # The wrapper's note alone, and its exit status: the command never ran (a process
        # that wrote the note to the wrapper's stderr cannot have the command run again).
        if done.exit_code == _NO_INPUT_EXIT and side == _NO_INPUT + b"\n":
            self._unpacks = False
            return exec_then_read(self, command, files, read_back, timeout, env)
        if read_back is None:
            return done, None
        header, _, data = side.partition(b"\n")
        size = header.removeprefix(_BACK)
        if header.startswith(_BACK) and size.isdigit() and int(size) == len(data):
            return done, data
        # Not handed back whole (missing, or beyond what the channel keeps): read it.
        return done, read_if_there(self, read_back)

    def _run(
        self,
        command: list[str] | str,
        timeout: float | None,
        env: dict[str, str] | None,
        cwd: str | None,
        streams: bool,
        encoded: str = "",
        back: str = "",
    ) -> tuple[ExecResult, bytes]:
        """One exec under the wrapper: its result, and what the wrapper wrote to its own
        stderr (without ``streams``: the file ``back`` it handed back, or a note)."""
        self._check_usable()
        argv = ["bash", "-c", command] if isinstance(command, str) else list(command)
        started = time.monotonic()
        wrapper = ["/bin/sh", "-c", _WRAPPER, "sh", str(int(streams)), encoded, back]
        exec_id, sock = self._start_exec([*wrapper, *argv], env, cwd)
        buffer = _CappedBuffer(self.max_output_bytes)
        apart = (
            {1: _CappedBuffer(self.max_output_bytes), 2: _CappedBuffer(self.max_output_bytes)}
            if streams
            else {}
        )
        # (Only a file handed back needs room there; otherwise a note at most.)
        side = None if streams else _CappedBuffer(_SIDE_CHANNEL_BYTES if back else 1 << 12)
        reader = FrameReader(sock, buffer, apart, side)
        deadline = None if timeout is None else started + timeout
        try:
            finished = reader.read_until(deadline)
            if not finished:
                self._kill_everything()
                if cancelled():
                    raise Cancelled("the run was cancelled")
                if not reader.read_until(time.monotonic() + _DRAIN_SECONDS):
                    self._kill_container("an exec could not be stopped after its timeout")
        finally:
            reader.close()
        exit_code = self._exit_code(exec_id) if finished else None
        dropped = buffer.dropped
        stdout = stderr = None
        if apart:
            stdout = apart[1].value().decode("utf-8", errors="replace")
            stderr = apart[2].value().decode("utf-8", errors="replace")
            dropped = max(dropped, apart[1].dropped + apart[2].dropped)
        result = ExecResult(
            exit_code=exit_code,
            output=buffer.value().decode("utf-8", errors="replace"),
            timed_out=not finished,
            duration=time.monotonic() - started,
            truncated_bytes=dropped,
            stdout=stdout,
            stderr=stderr,
        )
        return result, b"" if side is None or side.dropped else side.value()

    def _exit_code(self, exec_id: str) -> int | None:
        # The stream has ended, so the exec has too; a loaded engine may take a while to say.
        deadline = time.monotonic() + _EXIT_CODE_SECONDS
        while True:
            try:
                info = self.client.api.exec_inspect(exec_id)
            except DockerException as exc:
                raise SandboxError(f"docker exec inspect failed: {exc}") from exc
            if not info.get("Running") or time.monotonic() > deadline:
                code = info.get("ExitCode")
                return int(code) if code is not None else None
            time.sleep(0.05)

    def _kill_everything(self) -> None:
        """Kill every process of the container but its init and main process."""
        try:
            _, sock = self._start_exec(["/bin/sh", "-c", _KILL_ALL], None, "/", gated=False)
        except SandboxError:
            self._kill_container("killing the processes of a timed-out exec failed")
            return
        reader = FrameReader(sock, _CappedBuffer(1 << 16))
        try:
            if not reader.read_until(time.monotonic() + _KILL_SECONDS):
                self._kill_container("killing the processes of a timed-out exec hung")
        finally:
            reader.close()

    def _kill_container(self, reason: str) -> None:
        self._dead_reason = reason
        with contextlib.suppress(DockerException):
            self.container.kill()

    def read_file(self, path: str) -> bytes:
        """The bytes of a file in the container (symbolic links are followed)."""
        self._check_usable()
        target = self._inside(path)
        for _ in range(16):
            try:
                stream, _ = self.container.get_archive(target)
                raw = b"".join(stream)
            except NotFound as exc:
                raise FileNotFoundError(f"{path}: no such file in the sandbox") from exc
            except DockerException as exc:
                raise SandboxError(f"reading {path} failed: {exc}") from exc
            with tarfile.open(fileobj=io.BytesIO(raw)) as archive:
                member = archive.next()
                if member is None:
                    raise FileNotFoundError(f"{path}: no such file in the sandbox")
                if member.issym():
                    target = posixpath.normpath(
                        posixpath.join(posixpath.dirname(target), member.linkname)
                    )
                    continue
                if not member.isfile():
                    raise IsADirectoryError(f"{path} is not a regular file")
                extracted = archive.extractfile(member)
                assert extracted is not None
                return extracted.read()
        raise SandboxError(f"{path}: too many levels of symbolic links")

    def write_file(self, path: str, data: bytes | str) -> None:
        """Create or replace a file in the container (parent directories are created)."""
        self.write_files({path: data})

    def write_files(self, files: Mapping[str, bytes | str]) -> None:
        """Create or replace files in one archive upload (every path is checked first); a
        repository file replaced keeps its mode, so each of those is an upload of its own."""
        self._check_usable()
        targets = {self._inside(path): data for path, data in files.items()}
        scratch: dict[str, bytes] = {}
        for target, data in targets.items():
            payload = data.encode("utf-8") if isinstance(data, str) else data
            if target.startswith(TESTBED + "/"):
                self._upload({target: payload}, self._mode_of(target))
            else:
                scratch[target] = payload
        if scratch:
            self._upload(scratch, 0o644)

    def _mode_of(self, target: str) -> int:
        """The mode of the repository file at ``target`` (0644 for a new one)."""
        existing = self.exec(["stat", "-L", "-c", "%a", target], timeout=60)
        if existing.ok and existing.output.strip().isdigit():
            return int(existing.output.strip(), 8)
        return 0o644

    def _upload(self, files: dict[str, bytes], mode: int) -> None:
        archive = tar_files({target.lstrip("/"): data for target, data in files.items()}, mode)
        try:
            self.container.put_archive("/", archive)
        except DockerException as exc:
            raise SandboxError(f"writing {', '.join(sorted(files))[:300]} failed: {exc}") from exc

    def copy_in(self, source: Path, destination: str = TESTBED) -> None:
        """Copy a host directory's content (dotfiles and ``.git`` included) into the container."""
        self._check_usable()
        buffer = io.BytesIO()
        with tarfile.open(fileobj=buffer, mode="w") as archive:
            archive.add(str(source), arcname=destination.strip("/"))
        try:
            self.container.put_archive("/", buffer.getvalue())
        except DockerException as exc:
            raise SandboxError(f"copying {source} into the sandbox failed: {exc}") from exc

    def cleanup(self) -> None:
        """Remove the container (killing what runs in it) and its channel folder. Safe to
        call twice."""
        if self._removed:
            return
        self._removed = True
        if self.channel is not None:
            shutil.rmtree(self.channel, ignore_errors=True)
        try:
            self.container.remove(force=True, v=True)
        except NotFound:
            pass  # already gone (auto_remove after a kill or the end of its lifetime)
        except DockerException as exc:
            # "removal already in progress" (auto_remove) is fine; anything else is not.
            if "in progress" not in str(exc):
                raise SandboxError(f"could not remove container: {exc}") from exc
