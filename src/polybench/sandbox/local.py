"""The ``local`` backend: a fresh checkout per run, commands under bubblewrap when available.

Each sandbox is a ``git clone --shared`` of a cached clone (objects are borrowed, not
copied, so it costs what a worktree costs) checked out at the base commit. Unlike a
``git worktree``, its ``.git`` lives inside the checkout, so ``git apply --3way`` works
from inside the sandbox while the cached clone stays read-only to the commands.

With ``bwrap`` on the machine, every command runs behind the boundary of
:mod:`polybench.sandbox.boundary` (an unprivileged user, no capabilities, no new
privileges, a seccomp filter, its own mount, PID, network, IPC and UTS namespaces) in a
file system built from the allow-list of :mod:`polybench.sandbox.mounts`: the checkout
read-write at ``/testbed``, a scratch directory at ``/polybench``, the system folders, the
environment and its toolchains read-only, private ``/tmp`` and ``/var/tmp``, and nothing
else of the host. When the harness runs as root, the checkout and scratch directory
belong to the sandbox's user. Without bubblewrap commands run as plain subprocesses in
the checkout (only when asked for: see :func:`polybench.sandbox.isolation`), and host
paths of the checkout in their output are shown as ``/testbed`` so test ids match the
dataset.

Either way, where the machine has a writable cgroup ``pids`` controller each command runs
in its own cgroup capped at ``max_processes`` processes and threads (a fork bomb stops
there), and whatever is left in it when the command returns is killed; see
:mod:`polybench.sandbox.limits`.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import posixpath
import shutil
import subprocess
import tempfile
from pathlib import Path

from polybench.sandbox.base import DEFAULT_MAX_OUTPUT_BYTES, ExecResult, SandboxError
from polybench.sandbox.boundary import ROOT_NAMESPACES, Boundary, current_boundary
from polybench.sandbox.history import GIT_SAFE_ENV, prune_script
from polybench.sandbox.limits import DEFAULT_MAX_PROCESSES, ProcessLimit, pids_hierarchy
from polybench.sandbox.mounts import MountPlan
from polybench.sandbox.process import run_process
from polybench.sandbox.pruned import PrunedStore, PrunedStoreError

TESTBED = "/testbed"
SCRATCH = "/polybench"
ISOLATION_MODES = ("auto", "bubblewrap", "none")


@functools.cache
def bubblewrap_problem() -> str | None:
    """Why local sandboxes cannot be isolated here, or None when they can: ``bwrap`` must
    exist and start a command behind the whole boundary (user, capabilities, seccomp)."""
    boundary = current_boundary()
    if boundary is None:
        return "bubblewrap (bwrap) is not installed"
    with tempfile.TemporaryDirectory(prefix="polybench-probe-") as folder:
        plan = MountPlan(writable=((Path(folder), TESTBED),))
        argv, fds = _bwrap_argv(boundary, plan, ["true"], TESTBED, {}, allow_network=False)
        try:
            probe = subprocess.run(argv, capture_output=True, text=True, check=False,
                                   pass_fds=fds, timeout=120)  # fmt: skip
        except (OSError, subprocess.TimeoutExpired) as exc:
            return f"bubblewrap cannot start a sandbox here: {exc}"
        finally:
            for descriptor in fds:
                os.close(descriptor)
    if probe.returncode != 0:
        said = (probe.stderr or probe.stdout).strip().splitlines()
        return f"bubblewrap cannot start a sandbox here: {said[-1] if said else probe.returncode}"
    return None


def bubblewrap_available() -> bool:
    """True when local sandboxes can run behind bubblewrap's boundary on this machine."""
    return bubblewrap_problem() is None


def _bwrap_argv(
    boundary: Boundary,
    plan: MountPlan,
    argv: list[str],
    cwd: str,
    env: dict[str, str],
    allow_network: bool,
) -> tuple[list[str], tuple[int, ...]]:
    """The bubblewrap command line for ``argv``, and the descriptors it must inherit (the
    seccomp program is read from a pipe)."""
    wrapped = [boundary.bwrap, *plan.arguments(), "--dev", "/dev", "--proc", "/proc"]
    wrapped += [*ROOT_NAMESPACES, *boundary.identity_arguments()]
    wrapped += ["--die-with-parent", "--new-session", "--chdir", cwd]
    if not allow_network:
        wrapped.append("--unshare-net")
    wrapped.append("--clearenv")
    for key, value in env.items():
        wrapped += ["--setenv", key, value]
    fds: tuple[int, ...] = ()
    if boundary.seccomp is not None:
        read_end, write_end = os.pipe()
        try:
            os.write(write_end, boundary.seccomp)
        finally:
            os.close(write_end)
        wrapped += ["--seccomp", str(read_end)]
        fds = (read_end,)
    return [*wrapped, "--", *boundary.command_prefix(), *argv], fds


PASSED_VARIABLES = (
    "PATH", "LANG", "LANGUAGE", "TZ", "TERM", "USER", "LOGNAME", "SHELL", "HOME", "TMPDIR",
    "JAVA_HOME", "MAVEN_HOME", "M2_HOME", "SSL_CERT_FILE", "SSL_CERT_DIR",
    "REQUESTS_CA_BUNDLE", "NODE_EXTRA_CA_CERTS", "PIP_CERT", "CURL_CA_BUNDLE",
)  # fmt: skip
"""Host variables commands see (plus ``LC_*``): nothing else of the harness's environment
(API keys, the cache and dataset locations, the working directory) reaches a sandbox."""


_PASSED = frozenset(PASSED_VARIABLES)


def passed_environment() -> dict[str, str]:
    """The part of this process's environment that sandbox commands get."""
    environ = os.environ
    return {key: environ[key] for key in environ if key in _PASSED or key.startswith("LC_")}


def _contained(base: Path, relative: str, shown: str) -> Path:
    """``base / relative``, provided it stays inside ``base`` once ``..`` and links resolve."""
    normal = posixpath.normpath(relative) if relative else "."
    if normal == ".." or normal.startswith("../"):
        raise SandboxError(f"{shown} is outside the sandbox's workdir and scratch directory")
    target = base if normal == "." else base / normal
    inside = base.resolve()
    resolved = target.resolve()
    if resolved != inside and inside not in resolved.parents:
        raise SandboxError(
            f"{shown} is outside the sandbox's workdir and scratch directory "
            "(through a symbolic link)"
        )
    return target


class LocalSandbox:
    """A repository checkout on this machine; see the module docstring."""

    def __init__(
        self,
        root: Path,
        use_bubblewrap: bool,
        allow_network: bool = False,
        max_output_bytes: int = DEFAULT_MAX_OUTPUT_BYTES,
        read_only_paths: tuple[Path, ...] = (),
        max_processes: int | None = DEFAULT_MAX_PROCESSES,
        hidden_paths: tuple[Path, ...] = (),
    ) -> None:
        self.root = root
        self.max_processes = max_processes
        self.read_only_paths = read_only_paths
        self.hidden_paths = hidden_paths
        self.checkout = root / "testbed"
        self.scratch = root / "scratch"
        self.use_bubblewrap = use_bubblewrap
        self.allow_network = allow_network
        self.max_output_bytes = max_output_bytes
        self.boundary = current_boundary() if use_bubblewrap else None
        self.plan = MountPlan(
            read_only=read_only_paths,
            hidden=hidden_paths,
            writable=((self.checkout, TESTBED), (self.scratch, SCRATCH)),
        )

    @classmethod
    def create(
        cls,
        clone: Path,
        commit: str,
        parent: Path | None = None,
        isolation: str = "auto",
        allow_network: bool = False,
        max_output_bytes: int = DEFAULT_MAX_OUTPUT_BYTES,
        read_only_paths: tuple[Path, ...] = (),
        max_processes: int | None = DEFAULT_MAX_PROCESSES,
        hidden_paths: tuple[Path, ...] = (),
        history: str = "base",
        pruned: PrunedStore | None = None,
    ) -> LocalSandbox:
        """Check ``commit`` of the cached clone out into a new sandbox directory.

        The checkout's repository is then pruned to what ``commit`` needs
        (:mod:`polybench.sandbox.history`): it borrows nothing from the cached clone, whose
        later commits are out of reach. With ``pruned`` the pruned repository is a copy of
        the one kept there (made once per commit), else it is pruned here.

        Under bubblewrap commands see the system folders and ``read_only_paths`` (the
        prepared environment and its toolchains) read-only, and nothing else of the
        host; ``hidden_paths`` (caches, dataset files, the run
        folder, the harness's own package: anything that holds gold patches) are masked
        where they lie inside a visible folder. ``max_processes`` caps each command's
        processes where cgroups allow (None: no cap).
        """
        if isolation not in ISOLATION_MODES:
            raise ValueError(f"isolation must be one of {ISOLATION_MODES}, not {isolation!r}")
        if isolation == "bubblewrap" and not bubblewrap_available():
            raise SandboxError("bubblewrap was requested but `bwrap` cannot run here")
        use_bwrap = isolation == "bubblewrap" or (isolation == "auto" and bubblewrap_available())
        if parent is not None:
            parent.mkdir(parents=True, exist_ok=True)
        root = Path(tempfile.mkdtemp(prefix="polybench-", dir=parent))
        visible = tuple(p.resolve() for p in read_only_paths)
        hidden = tuple(p.resolve() for p in hidden_paths)
        sandbox = cls(
            root, use_bwrap, allow_network, max_output_bytes, visible, max_processes, hidden
        )
        try:
            sandbox.scratch.mkdir()
            sandbox._check_out(clone, commit, history, pruned)
            sandbox._hand_over(sandbox.root, recursive=True)
        except Exception:
            sandbox.cleanup()
            raise
        return sandbox

    def _hand_over(self, path: Path, recursive: bool = False) -> None:
        """Give ``path`` (and with ``recursive`` all it holds) to the sandbox's user, where
        that user is not this process's own (a harness run as root)."""
        if self.boundary is None or self.boundary.uid == os.geteuid():
            return
        uid, gid = self.boundary.uid, self.boundary.gid
        os.lchown(path, uid, gid)
        if not recursive:
            return
        for folder, dirs, files in os.walk(path):
            for name in (*dirs, *files):
                os.lchown(os.path.join(folder, name), uid, gid)

    def _check_out(
        self, clone: Path, commit: str, history: str, pruned: PrunedStore | None
    ) -> None:
        if pruned is not None:
            try:
                pruned.check_out(clone, commit, history, self.checkout)
                return
            except PrunedStoreError:
                shutil.rmtree(self.checkout, ignore_errors=True)  # then the plain way
        self._git_host("clone", "--shared", "--no-checkout", "-q", str(clone), str(self.checkout))
        self._git_host("-C", str(self.checkout), "checkout", "-q", "--detach", commit)
        self._prune_history(commit, history)

    def _prune_history(self, commit: str, mode: str) -> None:
        completed = subprocess.run(
            prune_script(commit, mode),
            cwd=self.checkout,
            env={**os.environ, **GIT_SAFE_ENV},
            capture_output=True,
            text=True,
            check=False,
        )
        if completed.returncode != 0:
            raise SandboxError(f"pruning the history failed: {completed.stderr.strip()[:500]}")

    @staticmethod
    def _git_host(*args: str) -> None:
        completed = subprocess.run(
            ["git", "-c", "advice.detachedHead=false", *args],
            capture_output=True,
            text=True,
            check=False,
        )
        if completed.returncode != 0:
            raise SandboxError(f"git {' '.join(args)}: {completed.stderr.strip()}")

    @property
    def workdir(self) -> str:
        """``/testbed`` under bubblewrap, the checkout's host path otherwise."""
        return TESTBED if self.use_bubblewrap else str(self.checkout)

    @property
    def scratch_dir(self) -> str:
        """``/polybench`` under bubblewrap, the scratch directory's host path otherwise."""
        return SCRATCH if self.use_bubblewrap else str(self.scratch)

    @property
    def isolation(self) -> str:
        """``bubblewrap`` or ``none``."""
        return "bubblewrap" if self.use_bubblewrap else "none"

    @property
    def process_limit(self) -> int | None:
        """The cap on each command's processes, or None where none can be set here."""
        return self.max_processes if self.max_processes and pids_hierarchy() else None

    def socket_folder(self) -> tuple[Path, str] | None:
        """Under bubblewrap: ``agent/`` of the scratch folder (made here), on this machine
        and inside; without isolation None (commands reach this machine's network)."""
        if not self.use_bubblewrap:
            return None
        folder = self.scratch / "agent"
        if not folder.is_dir():
            folder.mkdir()
            self._hand_over(folder)
        return folder, f"{SCRATCH}/agent"

    def host_path(self, path: str) -> Path:
        """Map a path as seen in the sandbox to the host path behind it.

        A path that leaves the workdir or scratch directory, with ``..`` or through a
        symbolic link (one a patch may have made), is refused with :class:`SandboxError`.
        """
        for shown, real in ((self.workdir, self.checkout), (self.scratch_dir, self.scratch)):
            if path == shown or path.startswith(shown.rstrip("/") + "/"):
                return _contained(real, path[len(shown) :].lstrip("/"), path)
        if not path.startswith("/"):
            return _contained(self.checkout, path, path)
        raise SandboxError(f"{path} is outside the sandbox's workdir and scratch directory")

    def _argv(
        self, command: list[str] | str, cwd: str, env: dict[str, str]
    ) -> tuple[list[str], tuple[int, ...]]:
        argv = ["bash", "-c", command] if isinstance(command, str) else list(command)
        if self.boundary is None:
            return argv, ()
        return _bwrap_argv(self.boundary, self.plan, argv, cwd, env, self.allow_network)

    def exec(
        self,
        command: list[str] | str,
        timeout: float | None = None,
        env: dict[str, str] | None = None,
        cwd: str | None = None,
        streams: bool = False,
    ) -> ExecResult:
        """Run a command in the checkout; see :class:`polybench.sandbox.base.Sandbox`."""
        if not self.checkout.is_dir():
            raise SandboxError(f"sandbox {self.root} has been cleaned up")
        full_env = passed_environment()
        if self.use_bubblewrap:
            full_env["HOME"] = "/tmp"
        full_env.update(env or {})
        inside_cwd = cwd or self.workdir
        host_cwd = self.host_path(inside_cwd) if not self.use_bubblewrap else self.root
        path_map = {} if self.use_bubblewrap else self._path_map()
        limit = ProcessLimit.create(self.max_processes) if self.max_processes else None
        try:
            argv, fds = self._argv(command, inside_cwd, full_env)
            result = run_process(
                limit.wrap(argv) if limit is not None else argv,
                cwd=host_cwd,
                env=full_env,
                timeout=timeout,
                max_output_bytes=self.max_output_bytes,
                path_map=path_map,
                streams=streams,
                pass_fds=fds,
            )
            hits = limit.limit_hits() if limit is not None else 0
        finally:
            if limit is not None:
                limit.close()
        if hits and limit is not None:
            note = f"\n[polybench: process limit ({limit.limit}) reached; {hits} forks refused]\n"
            result = dataclasses.replace(result, output=result.output + note)
        return result

    def _path_map(self) -> dict[str, str]:
        mapping = {str(self.checkout): TESTBED, str(self.scratch): SCRATCH}
        resolved = self.checkout.resolve()
        if str(resolved) != str(self.checkout):
            mapping[str(resolved)] = TESTBED
        return mapping

    def read_file(self, path: str) -> bytes:
        """Read a file of the sandbox from the host side."""
        return self.host_path(path).read_bytes()

    def write_file(self, path: str, data: bytes | str) -> None:
        """Write a file of the sandbox from the host side."""
        target = self.host_path(path)
        made = [folder for folder in target.parents if not folder.exists()]
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
        for created in (target, *made):
            self._hand_over(created)

    def cleanup(self) -> None:
        """Delete the checkout and scratch directory."""
        shutil.rmtree(self.root, ignore_errors=True)
