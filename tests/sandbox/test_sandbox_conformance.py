"""The Sandbox contract, checked the same way on every backend (local and docker)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from polybench.environments.images.context import shallow_checkout
from polybench.sandbox.base import DEFAULT_MAX_OUTPUT_BYTES, Sandbox, SandboxError, write_files
from polybench.sandbox.docker import ContainerLimits, DockerSandbox
from polybench.sandbox.local import LocalSandbox, bubblewrap_available
from tests.helpers.docker_fixtures import (  # noqa: F401
    TEST_LABEL,
    docker_bases,
    docker_settings,
    python_base,
)

needs_bwrap = pytest.mark.skipif(not bubblewrap_available(), reason="bwrap cannot run here")
MakeRepo = Callable[[dict[str, str]], tuple[Path, str]]
MakeSandbox = Callable[..., Sandbox]
FILES = {"pkg/mod.py": "X = 1\n", "README": "hi\n"}


@pytest.fixture(
    params=[
        "local-none",
        pytest.param("local-bubblewrap", marks=needs_bwrap),
        pytest.param("docker", marks=pytest.mark.docker),
    ]
)
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def make_sandbox(
    backend: str, request: pytest.FixtureRequest, make_repo: MakeRepo, tmp_path: Path
) -> Iterator[MakeSandbox]:
    """Makes sandboxes holding a small repository at /testbed; all cleaned up afterwards."""
    made: list[Sandbox] = []
    image = request.getfixturevalue("python_base") if backend == "docker" else ""

    def make(
        max_output_bytes: int = DEFAULT_MAX_OUTPUT_BYTES, allow_network: bool = False
    ) -> Sandbox:
        repo, commit = make_repo(FILES)
        box: Sandbox
        if backend == "docker":
            limits = ContainerLimits(memory="1g", cpus=1, pids=512, allow_network=allow_network)
            docker_box = DockerSandbox.create(
                image, limits, {TEST_LABEL: "conformance"}, max_output_bytes=max_output_bytes
            )
            made.append(docker_box)
            checkout = tmp_path / f"checkout-{len(made)}"
            shallow_checkout(repo, commit, checkout)
            docker_box.copy_in(checkout)
            box = docker_box
        else:
            box = LocalSandbox.create(
                repo,
                commit,
                parent=tmp_path / "boxes",
                isolation=backend.removeprefix("local-"),
                allow_network=allow_network,
                max_output_bytes=max_output_bytes,
            )
            made.append(box)
        box.commit = commit  # type: ignore[attr-defined]
        return box

    yield make
    for box in made:
        box.cleanup()


@pytest.fixture
def sandbox(make_sandbox: MakeSandbox) -> Sandbox:
    return make_sandbox()


def test_satisfies_the_protocol(sandbox: Sandbox) -> None:
    assert isinstance(sandbox, Sandbox)
    assert sandbox.isolation in {"none", "bubblewrap", "docker"}


def test_the_repository_is_at_the_workdir_at_its_commit(sandbox: Sandbox) -> None:
    result = sandbox.exec("pwd; cat pkg/mod.py; git status --porcelain; git rev-parse HEAD")
    assert result.ok, result.output
    lines = result.output.splitlines()
    assert lines[0] in {"/testbed", sandbox.workdir}
    assert lines[1:] == ["X = 1", sandbox.commit]  # type: ignore[attr-defined]


def test_files_written_are_read_back_and_seen_by_commands(sandbox: Sandbox) -> None:
    sandbox.write_file(f"{sandbox.scratch_dir}/s.sh", "echo from-script $FOO\n")
    result = sandbox.exec(["bash", f"{sandbox.scratch_dir}/s.sh"], env={"FOO": "bar"}, timeout=30)
    assert result.output == "from-script bar\n"
    sandbox.write_file(f"{sandbox.workdir}/deep/new/file.bin", b"\x00\x01\xff")
    assert sandbox.read_file(f"{sandbox.workdir}/deep/new/file.bin") == b"\x00\x01\xff"
    assert sandbox.read_file("pkg/mod.py") == b"X = 1\n"
    assert sandbox.exec("wc -c < deep/new/file.bin").output.strip() == "3"


def test_replacing_a_file_keeps_its_mode(sandbox: Sandbox) -> None:
    assert sandbox.exec("printf old > run.sh && chmod 755 run.sh").ok
    sandbox.write_file(f"{sandbox.workdir}/run.sh", "new")
    assert sandbox.exec("stat -c %a run.sh; cat run.sh").output == "755\nnew"


def test_several_files_are_written_at_once_as_one_by_one(sandbox: Sandbox) -> None:
    assert sandbox.exec("printf old > run.sh && chmod 755 run.sh").ok
    write_files(
        sandbox,
        {
            f"{sandbox.scratch_dir}/batch/a.list": "x\0y\0",
            f"{sandbox.scratch_dir}/batch/sub/b.bin": b"\x00\xff",
            f"{sandbox.scratch_dir}/batch/empty": "",
            f"{sandbox.workdir}/run.sh": "new",
        },
    )
    assert sandbox.read_file(f"{sandbox.scratch_dir}/batch/a.list") == b"x\0y\0"
    assert sandbox.read_file(f"{sandbox.scratch_dir}/batch/sub/b.bin") == b"\x00\xff"
    assert sandbox.read_file(f"{sandbox.scratch_dir}/batch/empty") == b""
    assert sandbox.exec("stat -c %a run.sh; cat run.sh").output == "755\nnew"
    with pytest.raises(SandboxError, match="outside"):
        write_files(sandbox, {f"{sandbox.scratch_dir}/ok": "1", "/etc/evil": "x"})


def test_paths_outside_the_sandbox_are_refused(sandbox: Sandbox) -> None:
    with pytest.raises(SandboxError, match="outside"):
        sandbox.read_file("/etc/passwd")


def test_dot_dot_cannot_leave_the_sandbox(backend: str, sandbox: Sandbox) -> None:
    with pytest.raises(SandboxError, match="outside"):
        sandbox.write_file(f"{sandbox.workdir}/../../etc/evil", "x")


def test_a_missing_file_is_file_not_found(sandbox: Sandbox) -> None:
    with pytest.raises(FileNotFoundError):
        sandbox.read_file(f"{sandbox.workdir}/nope.txt")


def test_exit_codes_and_interleaved_output(sandbox: Sandbox) -> None:
    result = sandbox.exec("echo a; echo b >&2; echo c; exit 3", timeout=30)
    assert (result.exit_code, result.output, result.timed_out) == (3, "a\nb\nc\n", False)
    assert not result.ok


def test_argv_is_passed_unchanged_and_cwd_is_honoured(sandbox: Sandbox) -> None:
    assert sandbox.exec(["printf", "%s|", "a b", "$HOME", "c"]).output == "a b|$HOME|c|"
    result = sandbox.exec("pwd", cwd=f"{sandbox.workdir}/pkg")
    assert result.output.strip().endswith("/pkg")


def _wait_then_write(go: str, late: str) -> str:
    """A job that writes ``late`` once ``go`` exists: it outlives any deadline however
    slow the machine, until the test makes ``go``."""
    return f"(until [ -e {go} ]; do sleep 0.05; done; echo late > {late})"


def _still_writes(sandbox: Sandbox, go: str, late: str) -> bool:
    """Make ``go``, give a surviving job time to write ``late``, and say whether it did."""
    sandbox.write_file(go, "")
    time.sleep(2)
    try:
        sandbox.read_file(late)
    except FileNotFoundError:
        return False
    return True


def test_timeout_kills_the_whole_process_tree(sandbox: Sandbox) -> None:
    go, late = f"{sandbox.scratch_dir}/go", f"{sandbox.scratch_dir}/late.txt"
    result = sandbox.exec(f"{_wait_then_write(go, late)} & sleep 600", timeout=1)
    assert result.timed_out and result.exit_code is None
    assert not _still_writes(sandbox, go, late)
    assert sandbox.exec("echo still usable").output == "still usable\n"
    # Control: the same job, run to its end, writes the file the check looks for.
    assert sandbox.exec(_wait_then_write(go, late), timeout=60).ok
    assert sandbox.read_file(late) == b"late\n"


def test_processes_left_behind_die_with_the_command(sandbox: Sandbox) -> None:
    go, late = f"{sandbox.scratch_dir}/go", f"{sandbox.scratch_dir}/orphan.txt"
    result = sandbox.exec(f"{_wait_then_write(go, late)} >/dev/null 2>&1 & echo started")
    assert result.ok and result.output == "started\n"
    assert not _still_writes(sandbox, go, late)


def test_output_is_capped_keeping_head_and_tail(make_sandbox: MakeSandbox) -> None:
    box = make_sandbox(max_output_bytes=1000)
    result = box.exec("seq 1 100000", timeout=60)
    assert result.ok
    assert result.truncated_bytes > 500_000
    assert result.output.startswith("1\n2\n3\n")
    assert result.output.endswith("99999\n100000\n")
    assert "output truncated here" in result.output


def test_invalid_utf8_is_replaced(sandbox: Sandbox) -> None:
    result = sandbox.exec(["printf", "\\377\\376ok"])
    assert result.output.endswith("ok") and "\ufffd" in result.output


def test_cleanup_is_idempotent_and_final(make_sandbox: MakeSandbox) -> None:
    box = make_sandbox()
    box.cleanup()
    box.cleanup()
    with pytest.raises(SandboxError):
        box.exec("true")


def test_no_network_unless_allowed(backend: str, make_sandbox: MakeSandbox) -> None:
    if backend == "local-none":
        pytest.skip("the unisolated local backend cannot take the network away")
    probe = "python3 -c \"import socket; socket.create_connection(('1.1.1.1', 53), timeout=3)\""
    result = make_sandbox().exec(probe, timeout=30)
    assert result.exit_code not in (0, None), result.output
    assert "unreachable" in result.output.lower() or "error" in result.output.lower()
    interfaces = make_sandbox(allow_network=True).exec("cat /proc/net/dev").output
    assert any(
        line.strip() and not line.strip().startswith(("lo:", "Inter", "face"))
        for line in (interfaces.splitlines())
    ), interfaces
