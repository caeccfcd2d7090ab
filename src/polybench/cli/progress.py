"""Following a run on the console and in its log file.

On a terminal: a progress bar, and one line per finished instance above it. Off a
terminal (CI logs, ``| tee``): plain lines ``[k/N] status id (12.3s; elapsed 0:01:10,
eta 0:03:20) - reason``. Every line also goes to ``<run>/run.log``, and every step is an
event of :mod:`polybench.logs` (``run_started``, ``instance_finished``, ``interrupted``)
for ``--log-json``. ``--quiet`` leaves the lines out of the console (not out of the log).
"""

from __future__ import annotations

import threading
import time
from datetime import timedelta
from pathlib import Path
from types import TracebackType

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from polybench.cli.consoles import escape
from polybench.grading.result import InstanceResult, Status
from polybench.logs import QUIET, emit, verbosity

STATUS_STYLE = {
    Status.RESOLVED: "green",
    Status.UNRESOLVED: "yellow",
    Status.EMPTY_PATCH: "dim",
    Status.ERROR: "red",
}


def _clock(seconds: float) -> str:
    return str(timedelta(seconds=int(seconds)))


class RunProgress:
    """The :class:`polybench.runner.api.Progress` callbacks of a command (see module doc)."""

    def __init__(self, console: Console, verb: str = "evaluating", task: str = "evaluate") -> None:
        self.console = console
        self.verb = verb
        self.task_words = task
        self.total = 0
        self.done = 0
        self.started = time.monotonic()
        self.log_path: Path | None = None
        self._lock = threading.Lock()
        self.quiet = verbosity() == QUIET
        self.bar = Progress(
            TextColumn(f"[bold]{verb}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("{task.description}"),
            console=console,
            disable=not console.is_terminal or self.quiet,
        )
        self.task = self.bar.add_task("", total=None)

    def __enter__(self) -> RunProgress:
        self.bar.__enter__()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.bar.__exit__(kind, value, trace)

    def say(self, text: str) -> None:
        """Print a line (rich markup) on the console, unless ``--quiet``."""
        if not self.quiet:
            self.console.print(text)

    def log(self, line: str) -> None:
        """Append a plain line to the run's log file (when the run folder is known)."""
        if self.log_path is None:
            return
        try:
            with self.log_path.open("a", encoding="utf-8") as handle:
                handle.write(line + "\n")
        except OSError:
            pass  # the log is a convenience: the results are what must not be lost

    def on_start(self, todo: int, reused: int) -> None:
        """The run starts."""
        self.total = todo
        self.started = time.monotonic()
        self.bar.update(self.task, total=todo)
        line = f"{todo} instances to {self.task_words}"
        if reused:
            line += f", {reused} already finished in this run (use --force to redo them)"
        self.say(escape(line))
        self.log(line)
        emit("run_started", task=self.task_words, todo=todo, reused=reused)

    def on_result(self, result: InstanceResult) -> None:
        """An instance finished: one line, with its place in the run and an ETA."""
        with self._lock:
            self.done += 1
            done = self.done
        elapsed = time.monotonic() - self.started
        eta = elapsed / done * (self.total - done) if done and self.total >= done else 0.0
        own = result.timings.get("total")
        took = f"{own:.1f}s; " if own is not None else ""
        reason = f" - {result.reason}" if result.reason and not result.resolved else ""
        plain = (
            f"[{done}/{self.total}] {result.status.value:<11} {result.instance_id} "
            f"({took}elapsed {_clock(elapsed)}, eta {_clock(eta)}){reason}"
        )
        self.log(plain)
        self.bar.advance(self.task)
        self.bar.update(self.task, description=escape(result.instance_id))
        style = STATUS_STYLE[result.status]
        count = escape(f"[{done}/{self.total}]")
        rest = escape(plain.split("] ", 1)[1][len(result.status.value) :])
        self.say(f"{count} [{style}]{result.status.value:<11}[/{style}]{rest}")
        emit(
            "instance_finished",
            instance_id=result.instance_id,
            status=result.status.value,
            error_kind=result.error_kind.value if result.error_kind is not None else None,
            reason=result.reason,
            seconds=own,
            done=done,
            total=self.total,
            elapsed=round(elapsed, 2),
            eta=round(eta, 2),
        )

    def on_interrupt(self, running: int) -> None:
        """Ctrl-C: say what is being waited for."""
        line = (
            f"interrupted: starting no more instances; waiting for the {running} running "
            "(Ctrl-C again stops them now; they will be redone on resume)"
        )
        self.console.print(f"[yellow]{escape(line)}[/yellow]")
        self.log(line)
        emit("interrupted", running=running)
