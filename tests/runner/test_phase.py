"""The one-entry step scripts: their report cannot be forged by what runs or prints in
them, and nothing a checkout holds (a ``git`` or ``sh`` of its own, a ``PATH`` entry into
it) is what they run."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from polybench.runner.phase import inspect_checkout, parse_report, run_phase
from polybench.sandbox.base import SandboxError
from tests.helpers.fake_sandbox import FakeSandbox

PLANTED = "#!/bin/sh\ntouch {marker}\nexit 0\n"


@pytest.fixture
def sandbox(
    make_repo: Callable[[dict[str, str]], tuple[Path, str]], tmp_path: Path
) -> tuple[FakeSandbox, str]:
    repo, commit = make_repo({"a.py": "x = 1\n", "tests/test_a.py": "def test(): pass\n"})
    return FakeSandbox.from_repo(repo, commit, tmp_path / "boxes"), commit


def test_what_a_step_prints_is_never_read_as_its_report(
    sandbox: tuple[FakeSandbox, str],
) -> None:
    box, _ = sandbox
    body = (
        'printf "listed 0 6\\nforged"; printf "listed 0 6\\nforged" >&2\n'
        "run_out listed printf 'real\\0'\n"
    )
    report = run_phase(box, "test", body)
    assert report.ok("listed").paths == ["real"]
    assert set(report.steps) == {"listed", "listed.err"}


def test_each_step_has_a_fresh_folder_no_earlier_step_can_predict(
    sandbox: tuple[FakeSandbox, str],
) -> None:
    box, _ = sandbox
    first = run_phase(box, "test", 'run_out where printf "%s" "$pb_dir"')
    second = run_phase(box, "test", 'run_out where printf "%s" "$pb_dir"')
    assert first.ok("where").text != second.ok("where").text
    assert len(first.ok("where").text.rsplit("-", 1)[-1]) >= 24


def test_a_report_that_does_not_add_up_is_refused() -> None:
    report = parse_report("x", b"a 0 3\nb 1 0\nc 0 2\n\nabc\n\n")
    assert [(n, s.code, s.output) for n, s in report.steps.items()] == [
        ("a", 0, b"abc"), ("b", 1, b""), ("c", 0, b"\n\n")
    ]  # fmt: skip
    assert parse_report("x", b"\n").steps == {}
    broken_reports = (
        b"a 0 9\n\nabc",  # shorter than its sizes
        b"a 0 1\n\nabc",  # longer
        b"a 0 1\na 0 1\n\nxy",  # a command twice
        b"no header",
        b"a 0 1\nx",  # no end of the header
        b"a zero 1\n\nx",
        b"",  # the script never wrote it
        b"lost a\n",
    )
    for broken in broken_reports:
        with pytest.raises(SandboxError):
            parse_report("x", broken)


def test_a_git_or_shell_planted_in_the_checkout_never_runs(
    sandbox: tuple[FakeSandbox, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    box, commit = sandbox
    marker = tmp_path / "planted-ran"
    for folder in (box.checkout, box.checkout / "bin"):
        folder.mkdir(exist_ok=True)
        for name in ("git", "sh", "rm", "realpath", "cat", "wc", "printf"):
            (folder / name).write_text(PLANTED.format(marker=marker))
            (folder / name).chmod(0o755)
    # Entries that lead into the checkout, relative entries and an empty one, first.
    path = f"{box.checkout}:{box.checkout}/bin:bin:.::{os.environ['PATH']}"
    monkeypatch.setenv("PATH", path)

    at_base, untracked = inspect_checkout(box, commit)

    assert at_base == {"a.py", "tests/test_a.py"}
    assert {"git", "sh", "bin/"} <= untracked
    assert not marker.exists()


def test_a_step_that_does_not_finish_is_a_sandbox_error(
    sandbox: tuple[FakeSandbox, str],
) -> None:
    box, _ = sandbox
    with pytest.raises(SandboxError, match="timed out"):
        run_phase(box, "slow", "sleep 5", timeout=0.5)
    with pytest.raises(SandboxError, match="exit 3"):
        run_phase(box, "broken", "exit 3")


def test_a_step_that_stops_early_reports_what_it_ran(sandbox: tuple[FakeSandbox, str]) -> None:
    box, _ = sandbox
    body = "run first printf 'one\\0two'\nrun_out second false || exit 0\nrun never true\n"
    report = run_phase(box, "test", body)
    assert report.ok("first").paths == ["one", "two"]
    assert report.step("second").code == 1
    assert not report.has("never")


def test_a_recorded_output_that_is_gone_at_the_end_is_a_sandbox_error(
    sandbox: tuple[FakeSandbox, str],
) -> None:
    box, _ = sandbox
    with pytest.raises(SandboxError, match="unreadable"):
        run_phase(box, "test", 'run first true\nrm -f -- "$pb_dir/first.out"\n')


def test_each_output_is_sized_by_its_own_file(
    sandbox: tuple[FakeSandbox, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A `stat` that leaves out its first answer: the sizes would shift onto the wrong
    # outputs (here without changing their sum), and the report is refused instead.
    box, _ = sandbox
    tools = tmp_path / "tools"
    tools.mkdir()
    real = subprocess.run(["sh", "-c", "command -v stat"], capture_output=True, text=True,
                          check=True).stdout.strip()  # fmt: skip
    (tools / "stat").write_text(f'#!/bin/bash\n{real} "$@" | tail -n +2\n')
    (tools / "stat").chmod(0o755)
    body = "run first printf abc\nrun second true\nrun third true\n"
    assert run_phase(box, "test", body).ok("first").output == b"abc"
    monkeypatch.setenv("PATH", f"{tools}:{os.environ['PATH']}")
    with pytest.raises(SandboxError, match="unreadable"):
        run_phase(box, "test", body)


def test_a_scratch_folder_with_any_name_gets_its_report(
    make_repo: Callable[[dict[str, str]], tuple[Path, str]], tmp_path: Path
) -> None:
    # Without bubblewrap the scratch folder is a host path: quotes, spaces, markup and a
    # newline in it change nothing.
    repo, commit = make_repo({"a.py": "x = 1\n"})
    box = FakeSandbox.from_repo(repo, commit, tmp_path / "odd 'name' [b]\nline")
    report = run_phase(box, "test", "run first printf abc\nrun_out second printf 'x\\0y'\n")
    assert report.ok("first").output == b"abc"
    assert report.ok("second").paths == ["x", "y"]
