"""A scripted sandbox and provider, to drive the per-instance pipeline in milliseconds.

:class:`FakeSandbox` keeps its checkout in a real temporary folder, so the git and shell
commands the pipeline runs there (patch admission, restoring test files, applying the
test patch, clearing bytecode) really run, as on the local backend without isolation.
Only what a test scripts is answered without running anything:

* the test run (``bash <scratch>/eval.sh``): :meth:`FakeSandbox.script_test_run` sets
  what the test command printed and how it ended (exit code, timeout, killed before the
  end marker); the fake wraps it in the markers the real eval script prints. A test run
  that is not scripted really runs;
* the Python environment probe (``python -c`` printing ``POLYBENCH-FACTS``): answered
  with a fixed module list, so no interpreter starts;
* any command a rule added with :meth:`FakeSandbox.on` matches; :meth:`FakeSandbox.fail_on`
  makes a chosen step raise :class:`SandboxError`.

Every exec is recorded in order in :attr:`FakeSandbox.calls`, scripted or not.
"""

from __future__ import annotations

import json
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from polybench.dataset.models import Instance
from polybench.environments.errors import ProvisionError
from polybench.environments.manager import PreparedEnvironment
from polybench.environments.provider import ReadySandbox
from polybench.sandbox.base import ExecResult, SandboxError
from polybench.sandbox.eval_script import END_MARKER, START_MARKER
from polybench.sandbox.local import passed_environment
from polybench.sandbox.process import run_process

DEFAULT_PYTHON_MODULES = ("json", "os", "pytest", "re", "sys", "unittest")
"""What the scripted Python probe says the environment can import."""


@dataclass(frozen=True)
class ExecCall:
    """One command the pipeline asked the sandbox to run, with everything it passed."""

    command: list[str] | str
    timeout: float | None
    env: dict[str, str] | None
    cwd: str | None
    streams: bool

    @property
    def argv(self) -> list[str]:
        """The command as an argv (a string command is run by ``bash -c``)."""
        if isinstance(self.command, str):
            return ["bash", "-c", self.command]
        return list(self.command)

    @property
    def git_args(self) -> list[str] | None:
        """A git command's arguments after its ``-c name=value`` options; None for other
        commands."""
        argv = self.argv
        if argv[:1] != ["git"]:
            return None
        args = argv[1:]
        while args[:1] == ["-c"]:
            args = args[2:]
        return args


Matcher = Callable[[ExecCall], bool]
Responder = Callable[[ExecCall], ExecResult]


def is_test_run(call: ExecCall) -> bool:
    """True for the run of the eval script (the instance's test command)."""
    argv = call.argv
    return len(argv) == 2 and argv[0] == "bash" and argv[1].endswith("/eval.sh")


def is_git(call: ExecCall, subcommand: str, *words: str) -> bool:
    """True for ``git <subcommand>`` whose arguments hold every one of ``words``
    (a word matches an argument equal to it or ending with ``/word``)."""
    args = call.git_args
    if not args or args[0] != subcommand:
        return False
    return all(any(a == w or a.endswith(f"/{w}") for a in args[1:]) for w in words)


def is_python_probe(call: ExecCall) -> bool:
    """True for the harness's question to the environment's interpreter."""
    argv = call.argv
    return (
        len(argv) == 3
        and argv[0] in ("python", "python3")
        and argv[1] == "-c"
        and "POLYBENCH-FACTS" in argv[2]
    )


@dataclass(frozen=True)
class ScriptedRun:
    """How the test command ends, as the eval script around it would report it.

    ``stdout``/``stderr`` are what the test command printed. With ``end_marker`` the
    script prints its end marker with ``exit_code`` and exits with it; without, the script
    was killed first (``exit_code`` is then the process's, e.g. 137). ``timed_out`` means
    the harness killed it at the timeout: no exit code, no end marker.
    """

    __test__ = False

    stdout: str = ""
    stderr: str = ""
    exit_code: int = 0
    timed_out: bool = False
    end_marker: bool = True

    def result(self, streams: bool = True) -> ExecResult:
        """The :class:`ExecResult` a sandbox would return for this run."""
        head = f"{START_MARKER}\n"
        ended = self.end_marker and not self.timed_out
        tail = f"{END_MARKER} (exit {self.exit_code})\n" if ended else ""
        stdout = head + self.stdout + tail
        return ExecResult(
            exit_code=None if self.timed_out else self.exit_code,
            output=head + self.stdout + self.stderr + tail,
            timed_out=self.timed_out,
            duration=0.0,
            stdout=stdout if streams else None,
            stderr=self.stderr if streams else None,
        )


class FakeSandbox:
    """A :class:`~polybench.sandbox.base.Sandbox` over a real folder whose commands can be
    scripted; see the module docstring."""

    def __init__(
        self, root: Path, python_modules: tuple[str, ...] = DEFAULT_PYTHON_MODULES
    ) -> None:
        self.root = root
        self.checkout = root / "testbed"
        self.scratch = root / "scratch"
        self.checkout.mkdir(parents=True, exist_ok=True)
        self.scratch.mkdir(parents=True, exist_ok=True)
        self.calls: list[ExecCall] = []
        self.cleanups = 0
        self._rules: list[tuple[Matcher, Responder]] = []
        facts = {"modules": sorted(python_modules), "pytest_plugins": []}
        probe_answer = ExecResult(0, f"POLYBENCH-FACTS {json.dumps(facts)}\n", False, 0.0)
        self._defaults: list[tuple[Matcher, Responder]] = [
            (is_python_probe, lambda _call: probe_answer)
        ]

    @classmethod
    def from_repo(cls, repo: Path, commit: str, parent: Path) -> FakeSandbox:
        """A sandbox under ``parent`` holding a checkout of ``commit`` of ``repo``."""
        parent.mkdir(parents=True, exist_ok=True)
        sandbox = cls(Path(tempfile.mkdtemp(prefix="fake-sandbox-", dir=parent)))
        checkout = str(sandbox.checkout)
        for args in (
            ["clone", "-q", "--no-checkout", str(repo), checkout],
            ["-C", checkout, "checkout", "-q", "--detach", commit],
        ):
            subprocess.run(["git", *args], capture_output=True, check=True)
        return sandbox

    @property
    def workdir(self) -> str:
        """The checkout's real path."""
        return str(self.checkout)

    @property
    def scratch_dir(self) -> str:
        """The scratch folder's real path."""
        return str(self.scratch)

    @property
    def isolation(self) -> str:
        """Always ``fake``."""
        return "fake"

    @property
    def cleaned(self) -> bool:
        """True once :meth:`cleanup` was called."""
        return self.cleanups > 0

    def on(self, matches: Matcher, respond: Responder) -> None:
        """Answer commands ``matches`` accepts with ``respond`` (which may raise); rules
        are tried in the order they were added, before the built-in ones."""
        self._rules.append((matches, respond))

    def script_test_run(self, run: ScriptedRun | Callable[[FakeSandbox], ScriptedRun]) -> None:
        """Script the test run; a callable is called when the tests run (it can look at
        the checkout as the tests would see it)."""

        def respond(call: ExecCall) -> ExecResult:
            scripted = run if isinstance(run, ScriptedRun) else run(self)
            return scripted.result(call.streams)

        self.on(is_test_run, respond)

    def fail_on(self, matches: Matcher, message: str = "the sandbox died") -> None:
        """Make the first command ``matches`` accepts (and any later one) raise
        :class:`SandboxError`."""

        def respond(_call: ExecCall) -> ExecResult:
            raise SandboxError(message)

        self.on(matches, respond)

    def index(self, matches: Matcher) -> int:
        """The position in :attr:`calls` of the first call ``matches`` accepts."""
        for position, call in enumerate(self.calls):
            if matches(call):
                return position
        raise LookupError("no recorded call matches")

    def count(self, matches: Matcher) -> int:
        """How many recorded calls ``matches`` accepts."""
        return sum(1 for call in self.calls if matches(call))

    def _host(self, path: str) -> Path:
        target = Path(path) if path.startswith("/") else self.checkout / path
        resolved = target.resolve()
        allowed = (self.checkout.resolve(), self.scratch.resolve())
        if not any(resolved == d or d in resolved.parents for d in allowed):
            raise SandboxError(f"{path} is outside the sandbox's workdir and scratch directory")
        return target

    def exec(
        self,
        command: list[str] | str,
        timeout: float | None = None,
        env: dict[str, str] | None = None,
        cwd: str | None = None,
        streams: bool = False,
    ) -> ExecResult:
        """Record the command, then answer it by the first matching rule or run it."""
        call = ExecCall(command, timeout, dict(env) if env is not None else None, cwd, streams)
        self.calls.append(call)
        if self.cleaned:
            raise SandboxError("the sandbox has been cleaned up")
        for matches, respond in (*self._rules, *self._defaults):
            if matches(call):
                return respond(call)
        return run_process(
            call.argv,
            cwd=self._host(cwd or self.workdir),
            env={**passed_environment(), **(env or {})},
            timeout=timeout,
            streams=streams,
        )

    def read_file(self, path: str) -> bytes:
        """The bytes of a file of the checkout or scratch folder."""
        return self._host(path).read_bytes()

    def write_file(self, path: str, data: bytes | str) -> None:
        """Write a file of the checkout or scratch folder (parents created)."""
        target = self._host(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)

    def cleanup(self) -> None:
        """Count the call; the files stay for the test to inspect (pytest removes them)."""
        self.cleanups += 1


class FakeProvider:
    """A :class:`~polybench.environments.provider.SandboxProvider` that hands out one
    prepared :class:`FakeSandbox` (with no environment: recipe ``none``), or raises
    ``error`` (a :class:`ProvisionError` of some kind, or a :class:`SandboxError`).

    With ``fresh``, every call after the first gets a new sandbox from it (a canary run
    needs a checkout of its own); :attr:`sandboxes` lists them in the order handed out."""

    name = "fake"

    def __init__(
        self,
        sandbox: FakeSandbox | None = None,
        error: ProvisionError | SandboxError | None = None,
        fresh: Callable[[], FakeSandbox] | None = None,
    ) -> None:
        if (sandbox is None) == (error is None):
            raise ValueError("give a sandbox or an error, not both")
        self.sandbox = sandbox
        self.error = error
        self.fresh = fresh
        self.provided: list[Instance] = []
        self.sandboxes: list[FakeSandbox] = []

    def provide(self, instance: Instance) -> ReadySandbox:
        """The sandbox (or a fresh one after the first call, with ``fresh``), or the error."""
        self.provided.append(instance)
        if self.error is not None:
            raise self.error
        assert self.sandbox is not None
        sandbox = self.fresh() if self.fresh is not None and self.sandboxes else self.sandbox
        self.sandboxes.append(sandbox)
        return ReadySandbox(sandbox, PreparedEnvironment(recipe="none", env_dir=None))
