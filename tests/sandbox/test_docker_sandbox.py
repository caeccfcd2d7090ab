"""What only the docker backend does: limits, network, labels, removal, hard kills."""

# Fixtures imported from tests.helpers.docker_fixtures are used as test arguments.
# ruff: noqa: F811

from __future__ import annotations

import contextlib
import multiprocessing
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from docker.errors import NotFound

from polybench.sandbox.base import SandboxError
from polybench.sandbox.docker import (
    KIND_LABEL,
    MANAGED_LABEL,
    ContainerLimits,
    DockerSandbox,
    docker_client,
)
from tests.helpers.docker_fixtures import (  # noqa: F401
    TEST_LABEL,
    docker_bases,
    docker_settings,
    python_base,
    run_label,
)

pytestmark = pytest.mark.docker


def _attrs(box: DockerSandbox) -> dict[str, object]:
    box.container.reload()
    return dict(box.container.attrs)


def test_containers_are_labelled_limited_and_removed(
    python_base: str, run_label: dict[str, str]
) -> None:
    limits = ContainerLimits(memory="256m", cpus=0.5, pids=100)
    box = DockerSandbox.create(python_base, limits, run_label)
    attrs = _attrs(box)
    labels = attrs["Config"]["Labels"]  # type: ignore[index]
    assert labels[MANAGED_LABEL] == "true" and labels[KIND_LABEL] == "container"
    assert labels[TEST_LABEL] == run_label[TEST_LABEL]
    host = attrs["HostConfig"]
    assert host["Memory"] == 256 * 1024 * 1024  # type: ignore[index]
    assert host["NanoCpus"] == 500_000_000  # type: ignore[index]
    assert host["PidsLimit"] == 100  # type: ignore[index]
    assert host["NetworkMode"] == "none"  # type: ignore[index]
    box.cleanup()
    with pytest.raises(NotFound):
        docker_client().containers.get(box.container_id)


def test_memory_limit_kills_a_greedy_command(python_base: str, run_label: dict[str, str]) -> None:
    box = DockerSandbox.create(python_base, ContainerLimits(memory="64m"), run_label)
    try:
        greedy = "python3 -c \"b = bytearray(400 * 1024 * 1024); print('allocated', len(b))\""
        result = box.exec(greedy, timeout=60)
        assert result.exit_code not in (0, None) and "allocated" not in result.output
        assert box.exec("echo alive").output == "alive\n"
    finally:
        box.cleanup()


def test_pids_limit_stops_a_fork_storm(python_base: str, run_label: dict[str, str]) -> None:
    box = DockerSandbox.create(python_base, ContainerLimits(pids=40), run_label)
    try:
        storm = (
            'python3 -c "import subprocess; '
            "ps = [subprocess.Popen(['sleep', '30']) for _ in range(200)]; print('spawned')\""
        )
        result = box.exec(storm, timeout=60)
        assert result.exit_code not in (0, None)
        assert "spawned" not in result.output
        assert "Resource temporarily unavailable" in result.output
    finally:
        box.cleanup()


def test_network_is_off_by_default_and_on_when_allowed(
    python_base: str, run_label: dict[str, str]
) -> None:
    closed = DockerSandbox.create(python_base, ContainerLimits(), run_label)
    opened = DockerSandbox.create(python_base, ContainerLimits(allow_network=True), run_label)
    try:
        assert "eth0" not in closed.exec("cat /proc/net/dev").output
        assert "eth0" in opened.exec("cat /proc/net/dev").output
        assert _attrs(opened)["HostConfig"]["NetworkMode"] == "bridge"  # type: ignore[index]
    finally:
        closed.cleanup()
        opened.cleanup()


def test_timeout_also_kills_processes_that_left_the_session(
    python_base: str, run_label: dict[str, str]
) -> None:
    box = DockerSandbox.create(python_base, ContainerLimits(), run_label)
    try:
        escaped = "setsid sh -c 'sleep 3; echo late > /polybench/escaped' >/dev/null 2>&1 &"
        result = box.exec(f"{escaped} sleep 60", timeout=1)
        assert result.timed_out
        time.sleep(3.5)
        assert box.exec("ls /polybench").output == ""
        assert box.exec("ps -e -o comm= | grep -c sleep").output.strip() == "1"  # the main one
    finally:
        box.cleanup()


def test_a_killed_container_is_an_error_not_a_hang(
    python_base: str, run_label: dict[str, str]
) -> None:
    box = DockerSandbox.create(python_base, ContainerLimits(), run_label)
    try:
        box.container.kill()
        with contextlib.suppress(NotFound):  # it removes itself once killed: gone is ended
            box.container.wait(timeout=600)
        with pytest.raises(SandboxError):
            box.exec("true", timeout=10)
    finally:
        box.cleanup()


def test_containers_remove_themselves_after_their_lifetime(
    python_base: str, run_label: dict[str, str]
) -> None:
    box = DockerSandbox.create(python_base, ContainerLimits(lifetime=2), run_label)
    deadline = time.monotonic() + 600  # a hang guard: the lifetime is 2 s
    while time.monotonic() < deadline:
        try:
            docker_client().containers.get(box.container_id)
        except NotFound:
            break
        time.sleep(0.5)
    else:
        pytest.fail("the container outlived its lifetime")
    box.cleanup()


def test_a_missing_image_is_a_sandbox_error(docker_bases: object) -> None:
    with pytest.raises(SandboxError, match="does not exist"):
        DockerSandbox.create("polybench-test/never-built:nope")


def _burn(stop: Any) -> None:
    while not stop.is_set():
        sum(range(10_000))


def test_output_of_quick_commands_is_never_lost_under_load(
    python_base: str, run_label: dict[str, str]
) -> None:
    """The docker SDK's raw exec socket loses output the HTTP client buffered with the
    response headers (docker-py issue 2042); the sandbox holds commands until it reads."""
    stop = multiprocessing.Event()
    burners = [multiprocessing.Process(target=_burn, args=(stop,)) for _ in range(4)]
    for burner in burners:
        burner.start()
    box = DockerSandbox.create(python_base, ContainerLimits(), run_label)
    try:
        outputs = [box.exec(["printf", "out-%s\\n", str(i)]).output for i in range(120)]
        assert outputs == [f"out-{i}\n" for i in range(120)]
    finally:
        stop.set()
        for burner in burners:
            burner.join()
        box.cleanup()


def test_mounted_folders_are_read_only_with_hidden_paths_masked_and_a_channel(
    python_base: str, run_label: dict[str, str], tmp_path: Path
) -> None:
    shared = tmp_path / "agent"
    (shared / "bin").mkdir(parents=True)
    (shared / "bin" / "tool").write_text("tool\n")
    (shared / "answers").mkdir()
    (shared / "answers" / "gold.diff").write_text("the fix\n")
    (shared / "notes.txt").write_text("secret\n")
    channel = tmp_path / "channel"
    channel.mkdir()
    (channel / "here").write_text("from the harness\n")
    box = DockerSandbox.create(
        python_base,
        ContainerLimits(),
        run_label,
        read_only_paths=(shared,),
        channel=channel,
        hidden_paths=(shared / "answers", shared / "notes.txt", tmp_path / "elsewhere"),
    )
    try:
        seen = box.exec(
            f"cat {shared}/bin/tool; ls -A {shared}/answers | wc -l; wc -c < {shared}/notes.txt; "
            "cat /run/polybench-channel/here; "
            f"touch {shared}/bin/new 2>/dev/null || echo refused; "
            "touch /run/polybench-channel/new 2>/dev/null || echo refused"
        )
        assert box.socket_folder() == (channel, "/run/polybench-channel")
    finally:
        box.cleanup()
    assert seen.output.split() == ["tool", "0", "0", "from", "the", "harness", "refused", "refused"]
    assert not channel.exists()  # the sandbox owned it
    assert (shared / "answers" / "gold.diff").read_text() == "the fix\n"


@pytest.fixture
def box(python_base: str, run_label: dict[str, str]) -> Iterator[DockerSandbox]:
    """A sandbox of the Python base image, removed after the test."""
    sandbox = DockerSandbox.create(python_base, ContainerLimits(), run_label)
    yield sandbox
    sandbox.cleanup()


def _round_trips(box: DockerSandbox) -> list[str]:
    """Count the engine calls of ``box`` that move files or start execs (a spy)."""
    calls: list[str] = []
    api = box.client.api
    for name in ("exec_create", "put_archive", "get_archive"):
        original = getattr(api, name)

        def spy(*args: Any, _name: str = name, _original: Any = original, **kw: Any) -> Any:
            calls.append(_name)
            return _original(*args, **kw)

        setattr(api, name, spy)
    return calls


def test_files_in_a_command_and_a_file_back_take_one_exec(box: DockerSandbox) -> None:
    """The files go in with the exec's arguments and the file comes back on the wrapper's
    own stderr: no upload or download of their own; the same result as the three apart."""
    calls = _round_trips(box)
    binary = bytes(range(256)) * 3
    files = {"/polybench/step/in.bin": binary, "/polybench/step/name": "é ü\n"}
    script = "cat /polybench/step/name; cp /polybench/step/in.bin /polybench/step/back"
    done, back = box.exec_with_files(
        ["bash", "-c", script], files, read_back="/polybench/step/back", timeout=60
    )
    assert done.ok and done.output == "é ü\n"
    assert back == binary
    assert calls == ["exec_create"]
    assert box.read_file("/polybench/step/back") == binary  # (what the download gives)
    # Nothing handed back when the file is not there.
    done, back = box.exec_with_files(["true"], {}, read_back="/polybench/step/missing", timeout=60)
    assert done.ok and back is None


def test_what_the_command_prints_cannot_pose_as_the_file_handed_back(box: DockerSandbox) -> None:
    """The command's stderr is merged into its output; only the wrapper writes to the
    channel the file comes back on, after the command and all it started ended."""
    forged = "printf 'polybench-back 6\\nforged' >&2; printf 'polybench-back 6\\nforged'"
    script = f"printf real > /polybench/r; {forged}; (sleep 1; {forged}) &"
    done, back = box.exec_with_files(
        ["bash", "-c", script], {}, read_back="/polybench/r", timeout=60
    )
    assert back == b"real", (done.exit_code, done.output)  # (what ran, if it did not come back)
    assert "forged" in done.output  # printed, and kept as output
    # A file removed by the command is not handed back, whatever was printed.
    script = f"rm -f /polybench/r; {forged}"
    done, back = box.exec_with_files(
        ["bash", "-c", script], {}, read_back="/polybench/r", timeout=60
    )
    assert back is None


def test_a_forged_cannot_unpack_note_does_not_run_the_command_again(box: DockerSandbox) -> None:
    """A command that writes the wrapper's own note to the wrapper's stderr (every fd of
    its parent) and exits as the wrapper would has run once, and its file comes back."""
    script = (
        "echo ran >> /polybench/count; printf real > /polybench/r; "
        "for f in /proc/$PPID/fd/*; do printf 'polybench-no-input\\n' > $f; done "
        "2>/dev/null; exit 124"
    )
    done, back = box.exec_with_files(
        ["bash", "-c", script], {"/polybench/in": "x"}, read_back="/polybench/r", timeout=60
    )
    assert done.exit_code == 124 and back == b"real"
    assert box.read_file("/polybench/count") == b"ran\n"
    calls = _round_trips(box)
    box.exec_with_files(["true"], {"/polybench/x": "y"}, timeout=60)
    assert calls == ["exec_create"]  # still one exec: nothing was taken for the note


def test_an_image_that_cannot_unpack_gets_its_files_uploaded(box: DockerSandbox) -> None:
    """Without ``base64`` and ``tar`` (here: off the PATH) the wrapper says so before the
    command runs, and the files are uploaded, the command run and the file read apart."""
    script = "/bin/cat /polybench/in > /polybench/out; echo ran >> /polybench/count"
    payload = b"payload"
    done, back = box.exec_with_files(
        ["/bin/bash", "-c", script],
        {"/polybench/in": payload},
        read_back="/polybench/out",
        timeout=60,
        env={"PATH": "/nowhere"},
    )
    assert done.ok and back == payload
    assert box.read_file("/polybench/count") == b"ran\n"  # the command ran once
    calls = _round_trips(box)
    box.exec_with_files(["/bin/true"], {"/polybench/x": "y"}, timeout=60)
    assert calls == ["put_archive", "exec_create"]  # and stays so for this sandbox


def test_files_beyond_what_arguments_hold_are_uploaded(box: DockerSandbox) -> None:
    calls = _round_trips(box)
    big = bytes(range(256)) * 1024  # 256 KiB
    done, back = box.exec_with_files(
        ["cat", "/polybench/big"], {"/polybench/big": big, "/polybench/small": "s"},
        read_back="/polybench/small", timeout=60,
    )  # fmt: skip
    assert done.ok and back == b"s"
    assert calls == ["put_archive", "exec_create"]
    assert box.read_file("/polybench/big") == big


def test_a_file_beyond_the_channel_is_read_back_by_download(
    box: DockerSandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    import polybench.sandbox.docker as docker_module

    monkeypatch.setattr(docker_module, "_SIDE_CHANNEL_BYTES", 1 << 10)
    script = "head -c 5000 /dev/urandom > /polybench/big"
    done, back = box.exec_with_files(
        ["bash", "-c", script], {}, read_back="/polybench/big", timeout=60
    )
    assert done.ok and back is not None and len(back) == 5000
    assert back == box.read_file("/polybench/big")
