"""The ``polybench`` process ends without the interpreter's teardown, and loses nothing.

Each case runs a fresh interpreter, since ending the process is what is tested.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from polybench import __version__
from polybench.cli import exiting


def _run(code: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code), *args],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


COMMAND = """
    import atexit, sys, threading, time
    from pathlib import Path
    from polybench.cli.exiting import run_and_leave

    out = Path(sys.argv[1])

    class Torn:
        def __del__(self):
            (out / "torn-down").write_text("yes")

    kept = Torn()

    def late_writer():
        time.sleep(0.2)
        (out / "thread").write_text("done")

    def command():
        threading.Thread(target=late_writer).start()
        atexit.register(lambda: (out / "atexit").write_text("ran"))
        sys.stdout.write("no newline, still buffered")
        sys.stderr.write("and on stderr")
        raise SystemExit({code!r})

    run_and_leave(command)
"""


@pytest.mark.parametrize("code, status", [(3, 3), (0, 0), (None, 0)])
def test_the_exit_steps_run_and_the_status_is_the_commands(
    tmp_path: Path, code: int | None, status: int
) -> None:
    done = _run(COMMAND.format(code=code), str(tmp_path))
    assert done.returncode == status, done.stderr
    assert done.stdout == "no newline, still buffered"
    assert done.stderr == "and on stderr"
    assert (tmp_path / "thread").read_text() == "done"  # a running thread was waited for
    assert (tmp_path / "atexit").read_text() == "ran"  # atexit handlers ran
    # ... and only the teardown was skipped: a module-level object was never freed.
    assert not (tmp_path / "torn-down").exists()


def test_a_message_as_exit_code_is_printed_and_gives_1(tmp_path: Path) -> None:
    done = _run(COMMAND.format(code="bad input"), str(tmp_path))
    assert done.returncode == 1
    assert done.stderr == "and on stderrbad input\n"


def test_without_the_interpreters_exit_steps_it_exits_the_usual_way(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delattr(exiting.threading, "_shutdown")
    with pytest.raises(SystemExit) as stopped:
        exiting.leave(4)
    assert stopped.value.code == 4


def test_the_command_line_keeps_its_output_status_and_json_log(tmp_path: Path) -> None:
    version = subprocess.run(
        [sys.executable, "-m", "polybench", "version"], capture_output=True, text=True, timeout=600
    )
    assert (version.returncode, version.stdout) == (0, __version__ + "\n")

    stream = tmp_path / "events.jsonl"
    refused = subprocess.run(
        [sys.executable, "-m", "polybench", "--log-json", str(stream), "eval",
         "--dataset", "mini", "--predictions", "gold", "--instance-ids", "no-such-id",
         "--output-dir", str(tmp_path / "runs")],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert refused.returncode == 2
    assert "no-such-id" in refused.stderr
    events = [json.loads(line) for line in stream.read_text().splitlines()]
    assert events[-1]["event"] == "run_refused"
    assert events[-1]["exit_code"] == 2
