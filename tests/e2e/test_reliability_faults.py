"""Reliability: the machine fails under a run (a sandbox killed mid-test, a full disk).

The driver killed mid-run (then resumed) is in ``test_eval_faults.py``; a Ray worker and
a Ray node lost mid-run are in ``test_ray_cluster.py``.
"""

# Fixtures imported from tests.helpers.docker_fixtures are used as test arguments.
# ruff: noqa: F811

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import signal
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

import polybench.atomic
from polybench.dataset.builtin import materialise_builtin_repos
from polybench.dataset.models import Instance
from polybench.dataset.predictions import load_predictions
from polybench.environments.backends import ProviderSettings
from polybench.environments.images.settings import ImageSettings
from polybench.grading.result import ErrorKind, InstanceResult, Status
from polybench.runner.executors import make_runner
from polybench.runner.instance import RunSettings
from polybench.runner.run import OutputDirectoryError, RunPlan
from tests.helpers.docker_fixtures import docker_bases, docker_settings  # noqa: F401
from tests.helpers.procfs import children, cmdline, descendants, live_pids
from tests.helpers.reliability_log import record

pytestmark = [pytest.mark.reliability, pytest.mark.slow]

JAVA = "polybench-mini__semver-java-14"
FAST = [
    "polybench-mini__timespan-27",
    "polybench-mini__logline-63",
    "polybench-mini__hues-41",
    "polybench-mini__cronex-12",
]


# The canary run (a sandbox of its own, before or after the graded run at random) runs the
# same test command and cannot be told apart from outside; these tests kill the graded run.
GRADED_ONLY = RunSettings(timeout=300, canaries=False)


def _repo_dir(cache: Path) -> Path:
    repo_dir = cache / "builtin" / "mini" / "repos"
    materialise_builtin_repos("mini", repo_dir)
    return repo_dir


def _plan(run_dir: Path, instances: list[Instance], max_attempts: int = 2) -> RunPlan:
    predictions = load_predictions("gold", instances)
    return RunPlan(run_dir.name, run_dir, instances, predictions, max_attempts=max_attempts)


class _Killer:
    """Watches in the background and kills, once, what :meth:`kill_once` finds running."""

    interval = 0.02

    def __init__(self) -> None:
        self.killed: list[object] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()

    def kill_once(self) -> None:
        """Kill the target if it runs now, recording it in ``killed``."""
        raise NotImplementedError

    def _watch(self) -> None:
        while not self._stop.wait(self.interval) and not self.killed:
            self.kill_once()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


class _TestKiller(_Killer):
    """Kills, once, the process tree running an eval script under ``sandboxes``."""

    def __init__(self, sandboxes: Path) -> None:
        self.sandboxes = str(sandboxes)
        super().__init__()

    def kill_once(self) -> None:
        # Only once the test command (Java) runs under the eval script: killed before its
        # start marker, the script would be the sandbox's failure to start, which is rerun.
        tree = children()
        for pid in live_pids():
            line = cmdline(pid)
            if self.sandboxes in line and "eval.sh" in line and _runs_java(pid, tree):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
                    self.killed.append(pid)


def _runs_java(root: int, tree: dict[int, list[int]]) -> bool:
    """Whether a process below ``root`` is a JVM. Its executable is what counts: the
    sandbox's own processes can carry the word in their command line from the start (the
    JDK's path among the environment variables and binds bubblewrap is given)."""
    below = descendants([root], tree)[1:]
    return any(cmdline(pid).split(" ", 1)[0].rsplit("/", 1)[-1] == "java" for pid in below)


def test_a_sandbox_killed_mid_test_is_an_infrastructure_error_and_is_retried(
    mini: dict[str, Instance], shared_cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("POLYBENCH_CACHE_DIR", str(shared_cache))
    repo_dir = _repo_dir(shared_cache)
    outcomes: dict[int, InstanceResult] = {}
    for attempts in (1, 2):
        plan = _plan(tmp_path / f"attempts-{attempts}", [mini[JAVA]], max_attempts=attempts)
        provider = ProviderSettings(repo_dir=repo_dir, work_dir=plan.sandboxes_dir)
        killer = _TestKiller(plan.sandboxes_dir)
        try:
            outcome = make_runner("local", provider, GRADED_ONLY).run(plan)
        finally:
            killer.stop()
        assert killer.killed, "the test command finished before it could be killed"
        outcomes[attempts] = outcome.results[JAVA]

    once = outcomes[1]
    assert once.status is Status.ERROR and once.error_kind is ErrorKind.NO_END_MARKER
    assert once.reason.startswith("the log has no end marker (exit -9)")
    retried = outcomes[2]
    assert retried.status is Status.RESOLVED and retried.attempts == 2, retried.reason
    record(
        "the sandbox running the tests is SIGKILLed mid-test (local executor)",
        "error (no_end_marker), then resolved on the retry",
        f"{once.reason}; infrastructure errors of this kind are retried once: "
        f"resolved on attempt {retried.attempts}",
    )


class _ContainerKiller(_Killer):
    """Kills, once, the container of ``instance_id`` as soon as it runs the eval script."""

    interval = 0.05

    def __init__(self, instance_id: str) -> None:
        from polybench.sandbox.docker import docker_client
        from polybench.sandbox.docker_client import INSTANCE_LABEL

        self.client = docker_client()
        self.selector = f"{INSTANCE_LABEL}={instance_id}"
        super().__init__()

    def _running_tests(self, container_id: str) -> bool:
        # Only once the test command (Java) runs: see ``_TestKiller``.
        rows = [" ".join(row) for row in self.client.api.top(container_id).get("Processes") or []]
        return any("eval.sh" in row for row in rows) and any("java" in row for row in rows)

    def kill_once(self) -> None:
        # Low-level calls: a container that goes away while being looked at (its run ended)
        # must not end the watch.
        for listed in self.client.api.containers(filters={"label": self.selector}):
            with contextlib.suppress(Exception):
                if self._running_tests(listed["Id"]):
                    self.client.api.kill(listed["Id"])
                    self.killed.append(listed["Names"][0].lstrip("/"))


@pytest.mark.docker
def test_a_container_killed_mid_test_is_an_infrastructure_error_and_is_retried(
    docker_bases: object,
    docker_settings: ImageSettings,
    mini: dict[str, Instance],
    shared_cache: Path,
    tmp_path: Path,
) -> None:
    repo_dir = _repo_dir(shared_cache)
    options = {
        "base_source": docker_settings.base_source,
        "trust_host_ca": docker_settings.trust_host_ca,
        "memory": "2g",
    }
    outcomes: dict[int, InstanceResult] = {}
    for attempts in (1, 2):
        plan = _plan(tmp_path / f"attempts-{attempts}", [mini[JAVA]], max_attempts=attempts)
        provider = ProviderSettings(
            backend="docker",
            repo_dir=repo_dir,
            work_dir=plan.sandboxes_dir,
            cache_dir=docker_settings.cache_dir.parent,
            options=options,
        )
        killer = _ContainerKiller(JAVA)
        try:
            outcome = make_runner("local", provider, GRADED_ONLY).run(plan)
        finally:
            killer.stop()
        assert killer.killed, "the test command finished before its container could be killed"
        outcomes[attempts] = outcome.results[JAVA]

    once = outcomes[1]
    assert once.status is Status.ERROR and once.error_kind is not None, once.reason
    assert once.error_kind in (ErrorKind.NO_END_MARKER, ErrorKind.SANDBOX_FAILED), once.reason
    retried = outcomes[2]
    assert retried.status is Status.RESOLVED and retried.attempts == 2, retried.reason
    record(
        "the container running the tests is killed mid-test (docker backend)",
        f"error ({once.error_kind.value}), then resolved on the retry",
        f"{once.reason}; retried once: resolved on attempt {retried.attempts}",
    )


@contextlib.contextmanager
def _small_disk(size: str) -> Iterator[Path | None]:
    """A tmpfs of ``size`` mounted on a fresh folder, or None where mounting is not allowed."""
    mount_point = Path(tempfile.mkdtemp(prefix="pb-full-", dir="/var/tmp"))
    try:
        mounted = (
            subprocess.run(
                ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(mount_point)],
                capture_output=True,
                check=False,
            ).returncode
            == 0
        )
    except OSError:
        mounted = False
    try:
        yield mount_point if mounted else None
    finally:
        if mounted:
            done = subprocess.run(["umount", str(mount_point)], capture_output=True, check=False)
            if done.returncode != 0:
                subprocess.run(["umount", "-l", str(mount_point)], check=False)
        shutil.rmtree(mount_point, ignore_errors=True)


def _fill(directory: Path) -> None:
    # Unbuffered: a buffered file would try its last partial block again when closed, and
    # that write would fail outside the suppression.
    with open(directory / "ballast", "wb", buffering=0) as ballast, contextlib.suppress(OSError):
        while True:
            if not ballast.write(b"\0" * 65536):
                return


def test_a_full_disk_stops_the_run_with_a_clear_error_and_no_corrupt_results(
    mini: dict[str, Instance], shared_cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("POLYBENCH_CACHE_DIR", str(shared_cache))
    repo_dir = _repo_dir(shared_cache)
    instances = [mini[i] for i in FAST]
    with _small_disk("4m") as disk:
        simulated = disk is None
        output = tmp_path if disk is None else disk
        full = threading.Event()
        if simulated:
            # No mount allowed here: the writer fails the way a full disk makes it fail.
            real_write = polybench.atomic.atomic_write_bytes

            def write(path: Path, data: bytes) -> None:
                if full.is_set() and str(path).startswith(str(output)):
                    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
                real_write(path, data)

            monkeypatch.setattr(polybench.atomic, "atomic_write_bytes", write)

        def on_result(result: InstanceResult) -> None:
            if not full.is_set():
                full.set()
                if not simulated:
                    _fill(output)

        plan = _plan(output / "run", instances)
        plan.workers = 1
        provider = ProviderSettings(repo_dir=repo_dir, work_dir=tmp_path / "sandboxes")
        settings = RunSettings(timeout=300)
        runner = make_runner("local", provider, settings, on_result=on_result)
        with pytest.raises(OutputDirectoryError) as stopped:
            runner.run(plan)
        message = str(stopped.value)
        assert "No space left on device" in message
        assert "run the same --run-id again to resume" in message

        finished = sorted(p.parent.name for p in plan.instances_dir.glob("*/result.json"))
        assert 1 <= len(finished) < len(FAST)
        leftovers = [p for p in plan.run_dir.rglob(".*") if p.is_file()]
        assert not leftovers, f"temporary files left behind: {leftovers}"
        for name in finished:
            stored = (plan.instances_dir / name / "result.json").read_text()
            InstanceResult.model_validate_json(stored)

        if not simulated:
            (output / "ballast").unlink()
        full.clear()
        resumed = make_runner("local", provider, settings).run(plan)
        assert sorted(resumed.reused) == finished
        assert sorted(resumed.results) == sorted(FAST)
        assert all(r.status is Status.RESOLVED for r in resumed.results.values())
        assert sorted(p.name for p in plan.instances_dir.iterdir()) == sorted(FAST)

    how = "simulated ENOSPC (no mount allowed)" if simulated else "4 MiB tmpfs filled mid-run"
    record(
        f"disk full on the output directory ({how})",
        "run stops with OutputDirectoryError",
        f"{len(finished)} finished result(s) intact, no partial or temporary files; "
        "the same run id resumed and completed",
    )
