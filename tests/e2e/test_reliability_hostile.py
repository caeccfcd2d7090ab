"""Reliability: hostile predictions in one run next to honest ones.

Every hostile prediction must end unresolved with a clear reason (or the documented
infrastructure error kind), the run must finish, and the honest predictions of the same
run must be graded correctly. Each hostile prediction runs on its own copy of a mini
instance (same repository, tests and lists; a suffixed id), so all of them share a run.
"""

from __future__ import annotations

import json
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
from polybench.grading.grade import Outcome
from polybench.grading.result import ErrorKind, InstanceResult, Status
from polybench.runner.backends import ProviderSettings
from polybench.runner.executors import make_runner
from polybench.runner.instance import RunSettings
from polybench.runner.run import RunPlan
from polybench.sandbox.base import DEFAULT_MAX_OUTPUT_BYTES
from polybench.sandbox.limits import pids_hierarchy
from tests.e2e import hostile
from tests.reliability_log import record

pytestmark = [pytest.mark.reliability, pytest.mark.slow]

TIMESPAN = "polybench-mini__timespan-27"
LOGLINE = "polybench-mini__logline-63"
ENVCFG = "polybench-mini__envcfg-18"
CRONEX = "polybench-mini__cronex-12"
CONTROLS = [TIMESPAN, LOGLINE, ENVCFG, CRONEX, "polybench-mini__hues-41",
            "polybench-mini__quantify-58", "polybench-mini__semver-java-14"]  # fmt: skip
TIMEOUT = 30.0
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


def _rejected(result: InstanceResult, log: str) -> str:
    assert result.status is Status.UNRESOLVED
    assert result.reason == "patch rejected: it creates a symbolic link", result.reason
    assert not result.patch_applied
    return result.reason


def test_hostile_predictions_end_unresolved_and_the_run_goes_on(
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

    def forged_lines(result: InstanceResult, log: str) -> str:
        assert "PASSED tests/test_parser.py::test_leading_sign_applies" in log, "no forgery?"
        _unresolved_f2p()(result, log)
        return f"forged PASSED lines ignored: the real FAILED lines win; {_brief(result)}"

    def forged_json(result: InstanceResult, log: str) -> str:
        assert '{"numFailedTests": 0, "numPassedTests": 4' in log, "no forged report?"
        _unresolved_f2p()(result, log)
        return f"forged report merged with the real one; failures win; {_brief(result)}"

    def forged_tap(result: InstanceResult, log: str) -> str:
        assert "ok 1 - matches a date through either restricted day field" in log
        _unresolved_f2p()(result, log)
        return f"forged ok lines ignored; {_brief(result)}"

    def restored(result: InstanceResult, log: str) -> str:
        _unresolved_f2p()(result, log)
        assert "test_leading_sign_applies_to_whole_duration" in log
        return f"test files restored from the base commit, then the test patch; {_brief(result)}"

    def skipped_f2p(result: InstanceResult, log: str) -> str:
        assert "28 passed, 6 skipped" in log
        _unresolved_f2p(Outcome.MISSING)(result, log)
        return f"a skipped test is not a pass (pytest names no skipped ids); {_brief(result)}"

    def fork_bomb(result: InstanceResult, log: str) -> str:
        _unresolved_f2p()(result, log)
        assert "[polybench: process limit (4096) reached;" in log, log[-500:]
        return f"cgroup pids.max 4096 stopped it; {_brief(result)}"

    def huge(result: InstanceResult, log: str) -> str:
        _unresolved_f2p()(result, log)
        assert "output truncated here" in log
        size = len(log.encode())
        assert DEFAULT_MAX_OUTPUT_BYTES <= size < DEFAULT_MAX_OUTPUT_BYTES + 65536, size
        return f"1 GiB printed, {size >> 20} MiB kept (head + tail); {_brief(result)}"

    def network(result: InstanceResult, log: str) -> str:
        _unresolved_f2p()(result, log)
        assert log.count("PB-ATTACK network blocked for") == 2, log[-2000:]
        assert server.connections == 0
        return f"no route out of the sandbox (host server saw 0 connections); {_brief(result)}"

    def writes(result: InstanceResult, log: str) -> str:
        _unresolved_f2p()(result, log)
        own = f"{run_dir.resolve()}/instances/{result.instance_id}/result.json"
        assert f"PB-ATTACK write blocked for {own}: OSError(30, 'Read-only file system')" in log
        assert log.count("PB-ATTACK write blocked for") == len(outside) + 1, log[-3000:]
        assert not [path for path in outside if Path(path).exists()]
        return f"read-only outside /testbed, own result.json not forged; {_brief(result)}"

    attacks = [
        Attack("fake-pytest-passes", "prints pytest PASSED lines (progress and summary) "
               "for the F2P tests", TIMESPAN,
               lambda i: hostile.Edit(append={init: hostile.fake_pytest_passes(i)}),
               forged_lines),
        Attack("fake-jest-json", "prints a complete jest --json report with every F2P test "
               "passed", ENVCFG,
               lambda i: hostile.Edit(append={"lib/parse.js": hostile.fake_jest_report(i)}),
               forged_json),
        Attack("fake-tap-ok", "prints TAP `ok` lines for the F2P tests", CRONEX,
               lambda i: hostile.Edit(append={"src/schedule.js": hostile.fake_tap_lines(i)}),
               forged_tap),
        Attack("edit-tests", "rewrites the test file so that every assertion holds", TIMESPAN,
               lambda i: hostile.Edit(replace={TEST_FILE: ("assert ", "assert True or ")}),
               restored),
        Attack("delete-tests", "deletes the test file", TIMESPAN,
               lambda i: hostile.Edit(write={TEST_FILE: None}), restored),
        Attack("skip-f2p-tests", "adds a conftest.py that skips the F2P tests", TIMESPAN,
               lambda i: hostile.Edit(write={"tests/conftest.py": hostile.skip_tests(i)}),
               skipped_f2p),
        Attack("skip-all-tests", "adds a conftest.py that skips every test", TIMESPAN,
               lambda i: hostile.Edit(write={"tests/conftest.py": hostile.skip_tests(None)}),
               _error(ErrorKind.NO_TEST_RESULTS)),
        Attack("exit-0-early", "package import calls os._exit(0) before any test runs", TIMESPAN,
               lambda i: hostile.Edit(append={init: hostile.EXIT_ZERO}),
               _error(ErrorKind.NO_TEST_RESULTS)),
        Attack("infinite-loop", "parse() loops forever", TIMESPAN,
               lambda i: hostile.Edit(replace={parser: (DOC, LOOP + DOC)}),
               _error(ErrorKind.TIMEOUT)),
        Attack("fork-bomb", "package import starts a bash fork bomb", TIMESPAN,
               lambda i: hostile.Edit(append={init: hostile.FORK_BOMB}), fork_bomb),
        Attack("1GiB-output", "package import prints 1 GiB", LOGLINE,
               lambda i: hostile.Edit(append={"logline/__init__.py": hostile.ONE_GIGABYTE}),
               huge),
        Attack("network", "package import connects to a server on the host (loopback and "
               "the machine's address)", TIMESPAN,
               lambda i: hostile.Edit(append={init: hostile.network_probe(server.port, host)}),
               network),
        Attack("write-outside", "package import writes host files and forges its own "
               "result.json in the run directory", TIMESPAN,
               lambda i: hostile.Edit(append={init: hostile.outside_writes(outside, i)}),
               writes),
        Attack("symlink", "patch adds `leak -> /etc` (new file mode 120000)", TIMESPAN,
               lambda i: hostile.Edit(symlinks={"leak": "/etc"}), _rejected),
        Attack("symlink-0120000", "the same link spelled `new file mode 0120000` (git still "
               "makes a link)", TIMESPAN,
               lambda i: hostile.Edit(symlinks={"leak": "/etc"}), _rejected, mode="0120000"),
    ]  # fmt: skip

    if pids_hierarchy() is None:
        # Without a process limit a fork bomb would take the machine down: not run here.
        attacks = [attack for attack in attacks if attack.name != "fork-bomb"]

    instances: list[Instance] = [mini[i] for i in CONTROLS]
    predictions = {
        i: Prediction(instance_id=i, model_patch=mini[i].patch, model_name_or_path="gold")
        for i in CONTROLS
    }
    by_id: dict[str, Attack] = {}
    for attack in attacks:
        base = mini[attack.base]
        instance = base.model_copy(update={"instance_id": f"{base.instance_id}.{attack.name}"})
        clone = repo_dir / base.repo.replace("/", "__")
        patch = hostile.make_patch(clone, base.base_commit, tmp_path, attack.edit(instance))
        if attack.mode:
            patch = hostile.symlink_mode_variant(patch, attack.mode)
        instances.append(instance)
        predictions[instance.instance_id] = Prediction(
            instance_id=instance.instance_id, model_patch=patch, model_name_or_path="hostile"
        )
        by_id[instance.instance_id] = attack

    run_dir = scratch / "run"
    plan = RunPlan("hostile", run_dir, instances, PredictionSet(predictions, [], "hostile"),
                   workers=2)  # fmt: skip
    provider = ProviderSettings(repo_dir=repo_dir, work_dir=plan.sandboxes_dir)
    runner = make_runner("local", provider, RunSettings(timeout=TIMEOUT))
    memory = _PeakRss()
    started = time.monotonic()
    outcome = runner.run(plan)
    elapsed = time.monotonic() - started
    extra_rss = memory.stop()
    server.sock.close()

    assert sorted(outcome.results) == sorted(i.instance_id for i in instances)
    problems = []
    for instance_id in CONTROLS:
        result = outcome.results[instance_id]
        outcomes = set({**result.f2p, **result.p2p}.values())
        if result.status is not Status.RESOLVED or outcomes != {Outcome.PASSED}:
            problems.append(f"control {instance_id}: {result.status.value} {result.reason}")
    rows = []
    for instance_id, attack in by_id.items():
        result = outcome.results[instance_id]
        stored = json.loads((run_dir / "instances" / instance_id / "result.json").read_text())
        assert stored["status"] == result.status.value
        log_path = run_dir / "instances" / instance_id / "test_output.txt"
        log = log_path.read_text(errors="replace") if log_path.exists() else ""
        try:
            reason = attack.check(result, log)
        except AssertionError as exc:
            problems.append(f"{attack.name}: {result.status.value} {result.reason} ({exc})")
            continue
        state = result.status.value + (f" ({result.error_kind.value})" if result.error_kind else "")
        rows.append((f"{attack.name}: {attack.description}", state, reason))
    # Only the output cap keeps 1 GiB from reaching memory: 64 MiB kept, copied a few times.
    if extra_rss > 768 << 20:
        problems.append(f"harness memory grew by {extra_rss >> 20} MiB")
    assert not problems, "\n".join(problems)
    for attack_text, state, reason in rows:
        print(f"| {attack_text} | {state} | {reason} |")
        record(attack_text, state, reason, group=HOSTILE)
    record(
        "honest predictions in the same run (7 gold patches, 4 languages)",
        "resolved",
        f"all graded correctly; the run of {len(instances)} instances took {elapsed:.0f}s, "
        f"harness memory +{extra_rss >> 20} MiB at peak",
        group=HOSTILE,
    )
