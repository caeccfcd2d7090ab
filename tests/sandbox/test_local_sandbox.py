"""The local sandbox: fresh checkout, /testbed, isolation, file access, cleanup."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from polybench.sandbox.base import Sandbox, SandboxError
from polybench.sandbox.local import LocalSandbox, bubblewrap_available

needs_bwrap = pytest.mark.skipif(not bubblewrap_available(), reason="bwrap cannot run here")
MakeRepo = Callable[[dict[str, str]], tuple[Path, str]]


@pytest.fixture(params=["none", pytest.param("bubblewrap", marks=needs_bwrap)])
def sandbox(request: pytest.FixtureRequest, make_repo: MakeRepo, tmp_path: Path) -> Sandbox:
    repo, commit = make_repo({"pkg/mod.py": "X = 1\n", "README": "hi\n"})
    box = LocalSandbox.create(repo, commit, parent=tmp_path / "boxes", isolation=request.param)
    yield box
    box.cleanup()


def test_sandbox_satisfies_the_protocol(sandbox: Sandbox) -> None:
    assert isinstance(sandbox, Sandbox)


def test_commands_see_the_repository_at_testbed(sandbox: Sandbox) -> None:
    result = sandbox.exec("pwd; cat pkg/mod.py; git status --porcelain", timeout=30)
    assert result.ok, result.output
    assert result.output.splitlines()[:2] == ["/testbed", "X = 1"]


def test_write_read_and_exec_in_scratch(sandbox: Sandbox) -> None:
    sandbox.write_file(f"{sandbox.scratch_dir}/s.sh", "echo from-script $FOO\n")
    result = sandbox.exec(["bash", f"{sandbox.scratch_dir}/s.sh"], env={"FOO": "bar"}, timeout=30)
    assert result.output.strip() == "from-script bar"
    sandbox.write_file(f"{sandbox.workdir}/new.txt", b"\x00\x01")
    assert sandbox.read_file(f"{sandbox.workdir}/new.txt") == b"\x00\x01"


def test_paths_outside_the_sandbox_are_refused(sandbox: Sandbox) -> None:
    with pytest.raises(SandboxError, match="outside"):
        sandbox.read_file("/etc/passwd")


def test_timeout_is_reported(sandbox: Sandbox) -> None:
    result = sandbox.exec("sleep 30", timeout=1)
    assert result.timed_out and result.exit_code is None


def test_cleanup_removes_everything(make_repo: MakeRepo, tmp_path: Path) -> None:
    repo, commit = make_repo({"a": "1\n"})
    box = LocalSandbox.create(repo, commit, parent=tmp_path, isolation="none")
    box.cleanup()
    box.cleanup()
    assert not box.root.exists()
    with pytest.raises(SandboxError, match="cleaned up"):
        box.exec("true")


def test_unknown_commit_is_a_sandbox_error(make_repo: MakeRepo, tmp_path: Path) -> None:
    repo, _ = make_repo({"a": "1\n"})
    with pytest.raises(SandboxError, match="checkout"):
        LocalSandbox.create(repo, "f" * 40, parent=tmp_path, isolation="none")
    assert list(tmp_path.glob("polybench-*")) == []


@needs_bwrap
def test_bubblewrap_blocks_network_and_writes_outside(make_repo: MakeRepo, tmp_path: Path) -> None:
    repo, commit = make_repo({"a": "1\n"})
    box = LocalSandbox.create(repo, commit, parent=tmp_path / "b", isolation="bubblewrap")
    try:
        in_tmp = tmp_path / "outside.txt"
        box.exec(f"echo pwned > {in_tmp}", timeout=30)
        assert not in_tmp.exists(), "a write to the host's /tmp went through"
        in_home = Path.home() / f".polybench-test-{uuid.uuid4().hex}"
        result = box.exec(f"echo pwned > {in_home}", timeout=30)
        assert result.exit_code != 0 and not in_home.exists()
        assert "No such file or directory" in result.output  # home folders are not there
        result = box.exec("echo pwned > /usr/polybench-pwned", timeout=30)
        assert result.exit_code != 0 and not Path("/usr/polybench-pwned").exists()
        assert "Read-only file system" in result.output
        result = box.exec(
            "python3 -c \"import socket; socket.create_connection(('1.1.1.1', 53), timeout=3)\"",
            timeout=30,
        )
        assert result.exit_code != 0
        assert "unreachable" in result.output.lower() or "error" in result.output.lower()
        assert box.exec(f"touch {repo}/.git/pwned", timeout=30).exit_code != 0
        assert not (repo / ".git" / "pwned").exists()
        assert box.isolation == "bubblewrap"
    finally:
        box.cleanup()
