"""Probe a local sandbox the way hostile code under test would; prints what worked as JSON.

Run in the test process (harness as root) or, as ``python -m tests.helpers.boundary_probe
WORK``, by an unprivileged user (harness as anyone): the same probes either way.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import sys
import tempfile
from pathlib import Path
from typing import Any

from polybench.dataset.materialise import materialise_tree
from polybench.environments.hiding import package_paths
from polybench.paths import cache_root
from polybench.sandbox.local import LocalSandbox

CAPABILITY_SETS = ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb")
HIDDEN_NAMES = ("/root", "/home", "/opt", "/run", "/var/run", "/srv", "/mnt", "/sys")


def _status(box: LocalSandbox) -> dict[str, str]:
    text = box.exec("cat /proc/self/status; echo uid:$(id -u)", timeout=60).output
    return {k.strip(): v.strip() for k, v in (line.split(":", 1) for line in text.splitlines()
                                               if ":" in line)}  # fmt: skip


def _not_empty(box: LocalSandbox, path: str) -> bool:
    return _worked(box, f"ls -A {path} | grep -q .")


def _worked(box: LocalSandbox, command: str) -> bool:
    return box.exec(["sh", "-c", command], timeout=60).exit_code == 0


def probe(work: Path) -> dict[str, Any]:
    """Make a sandbox holding a small repository (an environment folder bound read-only,
    a secret folder inside it masked) and report what code inside it could do."""
    source = work / "source"
    (source / "pkg").mkdir(parents=True)
    (source / "pkg" / "mod.py").write_text("X = 1\n")
    commit = materialise_tree(source, work / "repo")
    environment = work / "environment"
    (environment / "secret").mkdir(parents=True)
    (environment / "tool").write_text("tool\n")
    (environment / "secret" / "answer").write_text("gold\n")
    for folder in (work, environment, environment / "secret"):
        folder.chmod(0o755)
    # Short: a socket's path is limited to about 108 bytes.
    listener_dir = Path(tempfile.mkdtemp(prefix="pb-sock-", dir="/var/tmp"))
    listener_dir.chmod(0o755)
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(listener_dir / "daemon.sock"))
    listener.listen(1)
    box = LocalSandbox.create(
        work / "repo",
        commit,
        parent=work / "boxes",
        isolation="bubblewrap",
        read_only_paths=(environment,),
        hidden_paths=(environment / "secret", *package_paths(), cache_root()),
    )
    try:
        status = _status(box)
        found: dict[str, Any] = {
            "uid": status.get("uid"),
            "capabilities": {k: status.get(k) for k in CAPABILITY_SETS},
            "no_new_privs": status.get("NoNewPrivs"),
            "seccomp": status.get("Seccomp"),
            "mount": _worked(box, "mount -t tmpfs x /tmp"),
            "remount": _worked(box, f"mount -o remount,bind,rw {environment}"),
            "umount": _worked(box, f"umount {environment}"),
            "user_namespace": _worked(box, "unshare -U true"),
            "mount_namespace": _worked(box, "unshare -m true"),
            "environment_seen": _worked(box, f"cat {environment}/tool"),
            "environment_written": _worked(box, f"echo x > {environment}/tool")
            or (environment / "tool").read_text() != "tool\n",
            "secret_seen": _worked(box, f"cat {environment}/secret/answer"),
            "host_folders_seen": [p for p in HIDDEN_NAMES if _not_empty(box, p)],
            "harness_paths_seen": [
                str(p) for p in (*package_paths(), cache_root()) if _not_empty(box, str(p))
            ],
            "host_socket_seen": _worked(box, f"[ -S {listener_dir}/daemon.sock ]")
            or _worked(box, "[ -S /var/run/docker.sock ] || [ -S /run/docker.sock ]"),
            "checkout_written": _worked(box, "echo x > /testbed/new && cat /testbed/new"),
        }
    finally:
        box.cleanup()
        listener.close()
        shutil.rmtree(listener_dir, ignore_errors=True)
    return found


if __name__ == "__main__":
    print(json.dumps(probe(Path(sys.argv[1]))))
    sys.stdout.flush()
    os._exit(0)
