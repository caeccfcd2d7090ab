"""Reliability: containment of hostile predictions (network, writes outside the
checkout, a test command that never ends), next to honest ones.

The attacks on the verdict itself are in ``test_hostile_local.py``/``test_hostile_docker.py``.
Each hostile prediction runs on its own copy of a mini instance (same repository, tests
and lists; a suffixed id). The runs' timeouts are generous, except the one of the run
that holds only the endless loop, so outcomes do not depend on the machine's load.
"""

from __future__ import annotations

import shutil
import socket
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from polybench.dataset.builtin import materialise_builtin_repos
from polybench.dataset.models import Instance, Prediction
from polybench.dataset.predictions import PredictionSet
from polybench.environments.backends import ProviderSettings
from polybench.grading.grade import Outcome
from polybench.grading.result import ErrorKind, InstanceResult, Status
from polybench.runner.executors import make_runner
from polybench.runner.instance import RunSettings
from polybench.runner.run import RunPlan
from tests.e2e import hostile
from tests.helpers.reliability_log import record

pytestmark = [pytest.mark.reliability, pytest.mark.slow]

TIMESPAN = "polybench-mini__timespan-27"
LOGLINE = "polybench-mini__logline-63"
ENVCFG = "polybench-mini__envcfg-18"
CRONEX = "polybench-mini__cronex-12"
CONTROLS = [TIMESPAN, LOGLINE, ENVCFG, CRONEX, "polybench-mini__hues-41",
            "polybench-mini__quantify-58", "polybench-mini__semver-java-14"]  # fmt: skip
TIMEOUT = 1200.0
LOOP_TIMEOUT = 20.0
HOSTILE = "hostile predictions"
TEST_FILE = "tests/test_parser.py"
DOC = '    """Parse ``text``'
LOOP = "    while True:\n        pass\n"


@dataclass
class Attack:
    name: str
    description: str
    base: str
    edit: Callable[[Instance], hostile.Edit]
    check: Callable[[InstanceResult, str], str]
    """Raises AssertionError when the outcome is wrong; returns the reason to show."""
    mode: str | None = None


class _Server:
    """A TCP server on every address of the host that counts who connects."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("0.0.0.0", 0))
        self.port = self.sock.getsockname()[1]
        self.connections = 0
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.connections += 1
            conn.close()


def _host_ip() -> str:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # no packet is sent: this only picks a route
            return str(probe.getsockname()[0])
        except OSError:
            return socket.gethostbyname(socket.gethostname())


class _PeakRss:
    """Samples this process's resident memory while a run goes on."""

    def __init__(self) -> None:
        self.peak = self.start = self._rss()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()

    @staticmethod
    def _rss() -> int:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
        return 0

    def _sample(self) -> None:
        while not self._stop.wait(0.05):
            self.peak = max(self.peak, self._rss())

    def stop(self) -> int:
        self._stop.set()
        self._thread.join()
        return self.peak - self.start


def _brief(result: InstanceResult) -> str:
    """The grade in a few words: how many F2P tests did not pass, and how."""
    if not result.f2p:
        return result.reason
    failing = [o.value for o in result.f2p.values() if o is not Outcome.PASSED]
    kinds = "/".join(sorted(set(failing)))
    return f"{len(failing)} of {len(result.f2p)} F2P tests not passing ({kinds})"


def _unresolved_f2p(outcome: Outcome | None = None) -> Callable[[InstanceResult, str], str]:
    """Unresolved, and no F2P test passed (each one ``outcome``, when given)."""

    def check(result: InstanceResult, log: str) -> str:
        assert result.status is Status.UNRESOLVED, result.reason
        assert result.f2p and Outcome.PASSED not in result.f2p.values(), result.f2p
        if outcome is not None:
            assert set(result.f2p.values()) == {outcome}, result.f2p
        return _brief(result)

    return check


def _error(kind: ErrorKind) -> Callable[[InstanceResult, str], str]:
    def check(result: InstanceResult, log: str) -> str:
        assert result.status is Status.ERROR and result.error_kind is kind, result.reason
        return f"{kind.value}: {result.reason}"

    return check


def _run(
    instances: list[Instance],
    predictions: dict[str, Prediction],
    run_dir: Path,
    timeout: float,
    repo_dir: Path,
) -> dict[str, InstanceResult]:
    plan = RunPlan(run_dir.name, run_dir, instances, PredictionSet(predictions, [], "hostile"),
                   workers=2)  # fmt: skip
    provider = ProviderSettings(repo_dir=repo_dir, work_dir=plan.sandboxes_dir)
    return make_runner("local", provider, RunSettings(timeout=timeout)).run(plan).results


def test_hostile_predictions_are_contained_and_the_run_goes_on(
    mini: dict[str, Instance],
    shared_cache: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    request: pytest.FixtureRequest,
) -> None:
    monkeypatch.setenv("POLYBENCH_CACHE_DIR", str(shared_cache))
    repo_dir = shared_cache / "builtin" / "mini" / "repos"
    materialise_builtin_repos("mini", repo_dir)
    server = _Server()
    token = uuid.uuid4().hex[:10]
    # Outside /tmp: the sandbox has a private /tmp, where writes succeed harmlessly.
    scratch = Path(tempfile.mkdtemp(prefix="pb-reliability-", dir="/var/tmp"))
    request.addfinalizer(lambda: shutil.rmtree(scratch, ignore_errors=True))
    outside_dir = scratch / "outside"
    outside_dir.mkdir()
    outside = [
        str(outside_dir / "pwned.txt"),
        f"/var/tmp/pb-pwned-{token}",
        f"/root/pb-pwned-{token}",
        f"/etc/pb-pwned-{token}",
    ]
    init = "src/timespan/__init__.py"
    parser = "src/timespan/parser.py"
    host = _host_ip()
    run_dir = scratch / "run"

    def network(result: InstanceResult, log: str) -> str:
        _unresolved_f2p()(result, log)
        assert log.count("PB-ATTACK network blocked for") == 2, log[-2000:]
        assert server.connections == 0
        return f"no route out of the sandbox (host server saw 0 connections); {_brief(result)}"

    def writes(result: InstanceResult, log: str) -> str:
        _unresolved_f2p()(result, log)
        # Each target is refused (read-only, or absent from the sandbox) or lands in the
        # sandbox's private /var/tmp; none reaches this machine. The run folder is not in
        # the sandbox, so its result.json is seldom even found.
        tried = log.count("PB-ATTACK write blocked for") + log.count("PB-ATTACK wrote ")
        assert tried >= len(outside), log[-3000:]
        assert not [path for path in outside if Path(path).exists()]
        return (
            "nothing written outside /testbed reaches the host, own result.json not "
            f"forged; {_brief(result)}"
        )

    attacks = [
        Attack("network", "package import connects to a server on the host (loopback and "
               "the machine's address)", TIMESPAN,
               lambda i: hostile.Edit(append={init: hostile.network_probe(server.port, host)}),
               network),
        Attack("write-outside", "package import writes host files and forges its own "
               "result.json in the run directory", TIMESPAN,
               lambda i: hostile.Edit(append={init: hostile.outside_writes(outside, i)}),
               writes),
    ]  # fmt: skip
    loop = Attack("infinite-loop", "parse() loops forever", TIMESPAN,
                  lambda i: hostile.Edit(replace={parser: (DOC, LOOP + DOC)}),
                  _error(ErrorKind.TIMEOUT))  # fmt: skip

    def prepare(chosen: list[Attack]) -> tuple[list[Instance], dict[str, Prediction]]:
        instances, predictions = [], {}
        for attack in chosen:
            base = mini[attack.base]
            instance = base.model_copy(update={"instance_id": f"{base.instance_id}.{attack.name}"})
            clone = repo_dir / base.repo.replace("/", "__")
            patch = hostile.make_patch(clone, base.base_commit, tmp_path, attack.edit(instance))
            instances.append(instance)
            predictions[instance.instance_id] = Prediction(
                instance_id=instance.instance_id, model_patch=patch, model_name_or_path="hostile"
            )
        return instances, predictions

    instances, predictions = prepare(attacks)
    for instance_id in CONTROLS:
        instances.append(mini[instance_id])
        predictions[instance_id] = Prediction(
            instance_id=instance_id, model_patch=mini[instance_id].patch, model_name_or_path="gold"
        )
    memory = _PeakRss()
    started = time.monotonic()
    results = _run(instances, predictions, run_dir, TIMEOUT, repo_dir)
    elapsed = time.monotonic() - started
    extra_rss = memory.stop()
    server.sock.close()
    loop_instances, loop_predictions = prepare([loop])
    loop_results = _run(loop_instances, loop_predictions, scratch / "loop", LOOP_TIMEOUT, repo_dir)

    problems = []
    for instance_id in CONTROLS:
        result = results[instance_id]
        outcomes = set({**result.f2p, **result.p2p}.values())
        if result.status is not Status.RESOLVED or outcomes != {Outcome.PASSED}:
            problems.append(f"control {instance_id}: {result.status.value} {result.reason}")
    rows = []
    checked = [(a, results, run_dir) for a in attacks] + [(loop, loop_results, scratch / "loop")]
    for attack, found, where in checked:
        instance_id = f"{mini[attack.base].instance_id}.{attack.name}"
        result = found[instance_id]
        log_path = where / "instances" / instance_id / "test_output.txt"
        log = log_path.read_text(errors="replace") if log_path.exists() else ""
        try:
            reason = attack.check(result, log)
        except AssertionError as exc:
            problems.append(f"{attack.name}: {result.status.value} {result.reason} ({exc})")
            continue
        state = result.status.value + (f" ({result.error_kind.value})" if result.error_kind else "")
        rows.append((f"{attack.name}: {attack.description}", state, reason))
    if extra_rss > 768 << 20:
        problems.append(f"harness memory grew by {extra_rss >> 20} MiB")
    assert not problems, "\n".join(problems)
    for attack_text, state, reason in rows:
        record(attack_text, state, reason, group=HOSTILE)
    record(
        "honest predictions in the same run (7 gold patches, 4 languages)",
        "resolved",
        f"all graded correctly; the run of {len(instances)} instances took {elapsed:.0f}s, "
        f"harness memory +{extra_rss >> 20} MiB at peak",
        group=HOSTILE,
    )
