"""The local backend's process limit (cgroup pids) and its path checks on the host side."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from polybench.sandbox.base import SandboxError
from polybench.sandbox.limits import ProcessLimit, find_pids_hierarchy, pids_hierarchy
from polybench.sandbox.local import LocalSandbox, bubblewrap_available
from tests.helpers.procfs import still_running

V1_LINE = "35 25 0:30 / {mount} rw,nosuid shared:11 - cgroup cgroup rw,pids\n"
V2_LINE = "30 25 0:26 / {mount} rw,nosuid shared:9 - cgroup2 cgroup2 rw,nsdelegate\n"


def test_a_v2_hierarchy_gets_a_polybench_parent_with_pids_enabled(tmp_path: Path) -> None:
    (tmp_path / "cgroup.controllers").write_text("cpu io memory pids\n")
    (tmp_path / "cgroup.subtree_control").write_text("cpu\n")
    parent = tmp_path / "polybench"
    parent.mkdir()
    (parent / "cgroup.subtree_control").write_text("")
    found = find_pids_hierarchy(V2_LINE.format(mount=tmp_path))
    assert found is not None and (found.parent, found.version) == (parent, 2)
    # A plain directory stands in for cgroupfs: the writes land as they were sent.
    assert (tmp_path / "cgroup.subtree_control").read_text() == "+pids"
    assert (parent / "cgroup.subtree_control").read_text() == "+pids"


def test_v2_without_the_pids_controller_falls_back_to_v1(tmp_path: Path) -> None:
    v2, v1 = tmp_path / "unified", tmp_path / "pids"
    v2.mkdir()
    v1.mkdir()
    (v2 / "cgroup.controllers").write_text("hugetlb\n")
    (v1 / "polybench").mkdir()
    (v1 / "polybench" / "cgroup.procs").write_text("")
    mountinfo = V2_LINE.format(mount=v2) + V1_LINE.format(mount=v1)
    found = find_pids_hierarchy(mountinfo)
    assert found is not None and (found.parent, found.version) == (v1 / "polybench", 1)


def test_no_writable_hierarchy_means_no_limit(tmp_path: Path) -> None:
    other = "22 1 0:21 / /proc rw - proc proc rw\n"
    assert find_pids_hierarchy(other) is None
    assert find_pids_hierarchy(V1_LINE.format(mount=tmp_path / "missing")) is None


needs_cgroup = pytest.mark.skipif(
    pids_hierarchy() is None, reason="no writable cgroup pids controller on this machine"
)


@needs_cgroup
def test_a_command_cannot_exceed_its_process_limit_and_leaves_nothing_behind() -> None:
    limit = ProcessLimit.create(20)
    assert limit is not None
    # A shell gives up when a fork fails; this spawner counts the refusals and waits.
    spawner = (
        "import subprocess, sys, time\n"
        "started = refused = 0\n"
        "for _ in range(60):\n"
        "    try:\n"
        "        subprocess.Popen(['sleep', '600'])\n"
        "        started += 1\n"
        "    except OSError:\n"
        "        refused += 1\n"
        "print(started, refused, flush=True)\n"
        "time.sleep(600)\n"
    )
    process = subprocess.Popen(
        limit.wrap([sys.executable, "-c", spawner]),
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    started, refused = map(int, process.stdout.readline().split())
    assert started < 20 and refused > 40
    members = (limit.path / "cgroup.procs").read_text().split()
    assert 1 < len(members) <= 20
    assert limit.limit_hits() >= refused
    limit.close()
    assert process.wait(timeout=600) != 0, "the spawner was killed, not left to sleep"
    assert not limit.path.exists()
    assert still_running([int(pid) for pid in members]) == []


MakeBox = Callable[..., LocalSandbox]


@pytest.fixture
def make_box(
    make_repo: Callable[[dict[str, str]], tuple[Path, str]], tmp_path: Path
) -> Iterator[MakeBox]:
    repo, commit = make_repo({"a.txt": "a\n"})
    boxes: list[LocalSandbox] = []

    def make(**options: object) -> LocalSandbox:
        box = LocalSandbox.create(repo, commit, parent=tmp_path / "boxes", **options)
        boxes.append(box)
        return box

    yield make
    for box in boxes:
        box.cleanup()


@needs_cgroup
@pytest.mark.parametrize("isolation", ["none", "bubblewrap"])
def test_a_fork_bomb_in_the_sandbox_is_bounded_and_reported(
    make_box: MakeBox, isolation: str
) -> None:
    if isolation == "bubblewrap" and not bubblewrap_available():
        pytest.skip("bubblewrap cannot run here")
    box = make_box(isolation=isolation, max_processes=64)
    assert box.process_limit == 64
    # Whether the shell itself gets to fork again while the bomb lasts depends on the
    # machine's speed; what must hold is the bound, the report and a usable sandbox after.
    result = box.exec("bomb() { bomb | bomb & }; bomb; sleep 2", timeout=600)
    assert "[polybench: process limit (64) reached;" in result.output
    assert box.exec("echo next command").output.startswith("next command")


def test_host_paths_cannot_leave_the_sandbox(make_box: MakeBox, tmp_path: Path) -> None:
    box = make_box(isolation="none")
    with pytest.raises(SandboxError, match="outside"):
        box.write_file(f"{box.workdir}/../../escaped.txt", "x")
    with pytest.raises(SandboxError, match="outside"):
        box.read_file("sub/../../../etc/passwd")
    outside = tmp_path / "outside"
    outside.mkdir()
    os.symlink(outside, box.checkout / "link")
    with pytest.raises(SandboxError, match="symbolic link"):
        box.write_file(f"{box.workdir}/link/file.txt", "x")
    assert not (outside / "file.txt").exists()
    box.write_file(f"{box.workdir}/dir/../inside.txt", "ok")
    assert box.read_file("inside.txt") == b"ok"
