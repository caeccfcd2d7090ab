"""Files written atomically get the permissions any new file gets (``0666`` less the
umask), not the ``0600`` of a temporary file; a failed or interrupted write leaves nothing
behind."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from polybench.atomic import atomic_write_bytes, atomic_write_text
from polybench.interrupts import ctrl_c_held
from tests.helpers.ctrl_c import terminal_ctrl_c


@pytest.mark.parametrize(
    ("umask", "mode"), [(0o022, 0o644), (0o002, 0o664), (0o077, 0o600), (0o027, 0o640)]
)
def test_written_files_follow_the_umask(tmp_path: Path, umask: int, mode: int) -> None:
    target = tmp_path / "results" / "result.json"
    code = (
        f"import os; os.umask({umask}); from pathlib import Path; "
        "from polybench.atomic import atomic_write_text; "
        f"atomic_write_text(Path({str(target)!r}), '{{}}')"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=600)
    assert stat.S_IMODE(target.stat().st_mode) == mode
    assert target.read_text() == "{}"


def _names(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def _disk_full(fd: int) -> None:
    raise OSError(28, "No space left on device")


def _interrupting(func: Callable[..., Any], *, first: bool) -> Callable[..., Any]:
    """``func`` that also raises SIGINT, before (``first``) or after it has run."""

    def call(*args: Any, **kwargs: Any) -> Any:
        if first:
            signal.raise_signal(signal.SIGINT)
        result = func(*args, **kwargs)
        if not first:
            signal.raise_signal(signal.SIGINT)
        return result

    return call


def test_a_rewrite_replaces_the_whole_file(tmp_path: Path) -> None:
    target = tmp_path / "report.json"
    atomic_write_text(target, "a much longer first version\n")
    atomic_write_text(target, "short\n")
    assert target.read_text() == "short\n"
    assert _names(tmp_path) == ["report.json"]


def test_a_failed_write_leaves_the_old_file_and_no_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "report.json"
    atomic_write_text(target, "old\n")
    monkeypatch.setattr("polybench.atomic.os.fsync", _disk_full)
    with pytest.raises(OSError, match="No space left"):
        atomic_write_bytes(target, b"new")
    assert target.read_text() == "old\n"
    assert _names(tmp_path) == ["report.json"]


@pytest.fixture
def sigint_raises() -> Iterator[None]:
    """SIGINT raises KeyboardInterrupt here, whatever the test runner set up."""
    with terminal_ctrl_c():
        yield


@pytest.mark.usefixtures("sigint_raises")
def test_an_interrupt_just_after_the_temporary_is_made_lands_after_the_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Ray cancels a task by interrupting its worker's main thread, wherever it is: here,
    # the moment the temporary file exists and before anything knows its name.
    target = tmp_path / "worker.json"
    atomic_write_text(target, "old\n")
    mkstemp_then_interrupt = _interrupting(tempfile.mkstemp, first=False)
    monkeypatch.setattr("polybench.atomic.tempfile.mkstemp", mkstemp_then_interrupt)
    with pytest.raises(KeyboardInterrupt):
        atomic_write_text(target, "new\n")
    assert target.read_text() == "new\n"
    assert _names(tmp_path) == ["worker.json"]


@pytest.mark.usefixtures("sigint_raises")
def test_an_interrupt_during_the_clean_up_of_a_failed_write_still_removes_the_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "worker.json"
    atomic_write_text(target, "old\n")
    monkeypatch.setattr("polybench.atomic.os.fsync", _disk_full)
    monkeypatch.setattr("polybench.atomic.os.unlink", _interrupting(os.unlink, first=True))
    with pytest.raises(KeyboardInterrupt) as raised:
        atomic_write_bytes(target, b"new")
    assert isinstance(raised.value.__context__, OSError)  # the failure is not hidden
    assert target.read_text() == "old\n"
    assert _names(tmp_path) == ["worker.json"]


def test_a_held_interrupt_goes_to_the_handler_that_was_there_once(tmp_path: Path) -> None:
    seen: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: seen.append(signum))
    try:
        with ctrl_c_held():
            signal.raise_signal(signal.SIGINT)
            signal.raise_signal(signal.SIGINT)
            assert seen == []
        assert seen == [signal.SIGINT]
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        with ctrl_c_held():
            signal.raise_signal(signal.SIGINT)
        assert signal.getsignal(signal.SIGINT) == signal.SIG_IGN  # ignored, as before
    finally:
        signal.signal(signal.SIGINT, previous)


def test_off_the_main_thread_nothing_is_held_and_writes_work(tmp_path: Path) -> None:
    target = tmp_path / "result.json"
    before = signal.getsignal(signal.SIGINT)
    inside: list[object] = []

    def write() -> None:
        with ctrl_c_held():
            inside.append(signal.getsignal(signal.SIGINT))
        atomic_write_text(target, "{}")

    worker = threading.Thread(target=write)
    worker.start()
    worker.join()
    assert inside == [before]
    assert target.read_text() == "{}"


def test_a_handler_set_outside_python_is_left_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # ``signal.getsignal`` gives None for a handler installed by C code (an embedding
    # application); it could not be put back, so nothing is swapped.
    swapped: list[object] = []
    monkeypatch.setattr("polybench.interrupts.signal.getsignal", lambda signum: None)
    monkeypatch.setattr("polybench.interrupts.signal.signal", lambda *args: swapped.append(args))
    target = tmp_path / "result.json"
    atomic_write_text(target, "{}")
    assert target.read_text() == "{}"
    assert swapped == []
