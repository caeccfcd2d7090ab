"""The local sandbox is a boundary whoever runs the harness: root, or a user without rights.

The same probes (:mod:`tests.helpers.boundary_probe`) run with the harness as root (this
test process) and as an unprivileged user; each line of the boundary holds either way.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from polybench.sandbox.local import bubblewrap_available
from polybench.sandbox.seccomp import filter_program
from tests.helpers.boundary_probe import probe
from tests.helpers.unprivileged import UID, needs_root, run_unprivileged, work_folder

pytestmark = pytest.mark.skipif(not bubblewrap_available(), reason="bwrap cannot run here")
REPO_ROOT = Path(__file__).resolve().parents[2]


def _probe_as(who: str, tmp_path: Path) -> dict[str, Any]:
    if who == "root":
        work = tmp_path / "work"
        work.mkdir()
        return probe(work)
    work = work_folder(tmp_path)
    done = run_unprivileged(
        [sys.executable, "-m", "tests.helpers.boundary_probe", str(work)],
        work,
        env={"PYTHONPATH": os.pathsep.join(filter(None, [str(REPO_ROOT),
                                                         os.environ.get("PYTHONPATH")]))},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


@pytest.fixture(params=["root", pytest.param("unprivileged", marks=needs_root)])
def found(request: pytest.FixtureRequest, tmp_path: Path) -> dict[str, Any]:
    if request.param == "root" and os.geteuid() != 0:
        pytest.skip("the harness does not run as root here")
    found = _probe_as(request.param, tmp_path)
    found["who"] = request.param
    return found


def test_no_capability_no_privilege_and_a_seccomp_filter(found: dict[str, Any]) -> None:
    assert set(found["capabilities"].values()) == {"0000000000000000"}, found
    assert found["no_new_privs"] == "1"
    if filter_program() is not None:
        assert found["seccomp"] == "2"
    assert found["uid"] != "0"
    if found["who"] == "unprivileged":
        assert found["uid"] == str(UID)


def test_mounts_and_namespaces_are_refused(found: dict[str, Any]) -> None:
    attempts = ("mount", "remount", "umount", "user_namespace", "mount_namespace")
    assert {name: found[name] for name in attempts} == dict.fromkeys(attempts, False)


def test_the_environment_is_seen_read_only_and_its_secrets_masked(
    found: dict[str, Any],
) -> None:
    assert found["environment_seen"] and not found["environment_written"]
    assert not found["secret_seen"]
    assert found["checkout_written"]


def test_nothing_of_the_host_but_the_allow_list_is_there(found: dict[str, Any]) -> None:
    assert found["host_folders_seen"] == []
    assert found["harness_paths_seen"] == []
    assert not found["host_socket_seen"]
