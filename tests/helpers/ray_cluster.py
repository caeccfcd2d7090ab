"""A real multi-node Ray cluster on this machine, started with ``ray start``, for tests.

Every process of the cluster is started inside a cgroup of its own where the machine
allows it, so teardown kills exactly those processes (``ray stop`` would stop every Ray
cluster of the machine, including ones other tests started). Without a writable cgroup,
teardown kills the processes whose command line names the cluster's private temp
directory and their descendants.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from polybench.sandbox.limits import ProcessLimit
from tests.helpers.procfs import cmdline, descendants, live_pids

RAY = str(Path(sys.executable).with_name("ray"))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class RayCluster:
    """A head and extra nodes; ``env`` is what a driver needs to connect to it."""

    temp_dir: Path
    port: int
    env: dict[str, str]
    limit: ProcessLimit | None
    nodes: list[str] = field(default_factory=list)

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def _ray_start(self, args: list[str]) -> None:
        argv = [RAY, "start", *args, "--disable-usage-stats"]
        if self.limit is not None:
            argv = self.limit.wrap(argv)
        done = subprocess.run(argv, env=self.env, capture_output=True, text=True, timeout=600)
        if done.returncode != 0:
            raise RuntimeError(f"ray start failed:\n{done.stdout}\n{done.stderr}")

    def start_head(self, num_cpus: int, resources: dict[str, float]) -> None:
        self._ray_start(
            [
                "--head",
                "--port",
                str(self.port),
                "--num-cpus",
                str(num_cpus),
                "--resources",
                json.dumps(resources),
                "--include-dashboard=false",
                "--temp-dir",
                str(self.temp_dir),
                "--ray-client-server-port",
                str(free_port()),
                "--dashboard-agent-listen-port",
                str(free_port()),
            ]
        )
        self.nodes.append("head")

    def add_node(self, num_cpus: int, resources: dict[str, float]) -> None:
        self._ray_start(
            [
                "--address",
                self.address,
                "--num-cpus",
                str(num_cpus),
                "--resources",
                json.dumps(resources),
                "--dashboard-agent-listen-port",
                str(free_port()),
            ]
        )
        self.nodes.append(next(iter(resources)))

    def raylet_of(self, resource: str) -> int | None:
        """The pid of the raylet of the node started with custom ``resource``."""
        for pid in self.pids():
            line = cmdline(pid)
            if "raylet/raylet " in line and f"--static_resource_list={resource}," in line:
                return pid
        return None

    def node_id_of(self, resource: str) -> str | None:
        """The Ray node id of the node started with custom ``resource``."""
        raylet = self.raylet_of(resource)
        found = re.search(r"--node_id=([0-9a-f]+)", cmdline(raylet)) if raylet else None
        return found.group(1) if found else None

    def pids(self) -> list[int]:
        """Every live process of this cluster."""
        if self.limit is not None:
            procs = self.limit.path / "cgroup.procs"
            with contextlib.suppress(OSError):
                return [int(p) for p in procs.read_text().split()]
            return []
        roots = [pid for pid in live_pids() if str(self.temp_dir) in cmdline(pid)]
        return sorted(descendants(roots))

    def stop(self) -> None:
        """Kill every process of the cluster, then remove its files."""
        for _ in range(3):
            for pid in self.pids():
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.3)
        if self.limit is not None:
            self.limit.close()
        shutil.rmtree(self.temp_dir, ignore_errors=True)


def new_cluster() -> RayCluster:
    """A cluster handle with a private temp directory and its own auth token (not started)."""
    temp_dir = Path(tempfile.mkdtemp(prefix="pbray-", dir="/tmp"))
    env = dict(
        os.environ,
        RAY_AUTH_MODE="token",
        RAY_AUTH_TOKEN=uuid.uuid4().hex,
        RAY_USAGE_STATS_ENABLED="0",
    )
    env.pop("RAY_ADDRESS", None)
    return RayCluster(temp_dir, free_port(), env, ProcessLimit.create(1_000_000))
