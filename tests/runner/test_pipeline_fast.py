"""The per-instance pipeline end to end on a scripted sandbox: step order, verdict rules,
infrastructure errors, patch admission.

The sandbox's checkout is a real git repository in a temporary folder (git and the shell
commands run for real); the test run and the Python probe are scripted
(:mod:`tests.helpers.fake_sandbox`).
"""

from __future__ import annotations

import difflib
import errno
import json
import os
import shutil
import sys
import types
from collections.abc import Callable
from pathlib import Path
from unittest import mock

import pytest

import polybench.runner.instance as instance_module
from polybench.dataset.materialise import materialise_tree
from polybench.dataset.models import Instance, Language, Prediction
from polybench.environments.errors import ProvisionError
from polybench.environments.manager import EnvironmentSetupError, EnvironmentUnavailable
from polybench.environments.provider import ReadySandbox
from polybench.grading.canaries import CanaryOutcome, CanaryStatus
from polybench.grading.grade import Outcome
from polybench.grading.parsers.registry import parse_log
from polybench.grading.result import ErrorKind, InstanceResult, Status
from polybench.runner.artifacts import InstanceArtifacts
from polybench.runner.instance import InstanceRunner, RunSettings
from polybench.sandbox.base import ExecResult, Sandbox, SandboxError
from polybench.sandbox.cancel import Cancelled
from polybench.sandbox.eval_script import END_MARKER, START_MARKER
from tests.helpers.fake_sandbox import (
    ExecCall,
    FakeProvider,
    FakeSandbox,
    ScriptedRun,
    is_phase,
    is_python_probe,
    is_test_run,
)

TEST_FILE = "tests/test_calc.py"
CALC_BASE = "def add(a, b):\n    return a - b\n"
CALC_FIXED = "def add(a, b):\n    return a + b\n"
TESTS_BASE = "from calc import add\n\n\ndef test_add_zero():\n    assert add(2, 0) == 2\n"
TESTS_PATCHED = TESTS_BASE + "\n\ndef test_add_two():\n    assert add(2, 3) == 5\n"
F2P = f"{TEST_FILE}:None:test_add_two"
P2P = f"{TEST_FILE}:None:test_add_zero"
F2P_NODE = f"{TEST_FILE}::test_add_two"
P2P_NODE = f"{TEST_FILE}::test_add_zero"
APPLY_FAILED = "the patch did not apply (git apply, git apply --3way, patch)"


def diff(path: str, old: str | None, new: str) -> str:
    """A git-style diff of one file (``old`` None: the file is new)."""
    before = "/dev/null" if old is None else f"a/{path}"
    lines = difflib.unified_diff(
        (old or "").splitlines(keepends=True), new.splitlines(keepends=True), before, f"b/{path}"
    )
    head = f"diff --git a/{path} b/{path}\n" + ("new file mode 100644\n" if old is None else "")
    return head + "".join(lines)


FIX = diff("calc.py", CALC_BASE, CALC_FIXED)
TEST_PATCH = diff(TEST_FILE, TESTS_BASE, TESTS_PATCHED)


def pytest_log(
    passed: list[str], failed: tuple[str, ...] | list[str] = (), tally: str | None = None
) -> str:
    """A ``pytest -rA`` log of the given node ids, its final line counting them (or
    ``tally``, to forge it)."""
    counts = [f"{len(failed)} failed"] if failed else []
    counts += [f"{len(passed)} passed"] if passed else []
    summary = [f"PASSED {node}" for node in passed]
    summary += [f"FAILED {node} - AssertionError" for node in failed]
    return "\n".join(
        [
            "============================= test session starts ==============================",
            f"collected {len(passed) + len(failed)} items",
            "",
            f"{TEST_FILE} {'.' * len(passed)}{'F' * len(failed)}",
            "",
            "=========================== short test summary info ============================",
            *summary,
            f"========================= {tally or ', '.join(counts)} in 0.01s ==================",
            "",
        ]
    )


ALL_PASS = pytest_log([P2P_NODE, F2P_NODE])
F2P_FAILS = pytest_log([P2P_NODE], [F2P_NODE])


def honest_run(sandbox: FakeSandbox) -> ScriptedRun:
    """Run every ``test_*`` function of the test file in this process, against the
    checkout's ``calc.py``, and report them as ``pytest -rA`` would: an honest framework,
    canaries included."""
    calc = types.ModuleType("calc")
    exec((sandbox.checkout / "calc.py").read_text(), calc.__dict__)
    namespace: dict[str, object] = {}
    with mock.patch.dict(sys.modules, {"calc": calc}):
        exec((sandbox.checkout / TEST_FILE).read_text(), namespace)
    passed: list[str] = []
    failed: list[str] = []
    for name, function in namespace.items():
        if name.startswith("test_") and callable(function):
            try:
                function()
            except AssertionError:
                failed.append(f"{TEST_FILE}::{name}")
            else:
                passed.append(f"{TEST_FILE}::{name}")
    return ScriptedRun(stdout=pytest_log(passed, failed), exit_code=1 if failed else 0)


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The repository at its base commit, made once (each sandbox clones it)."""
    source = tmp_path_factory.mktemp("calc-source")
    for name, text in {
        "calc.py": CALC_BASE,
        "tests/__init__.py": "",
        TEST_FILE: TESTS_BASE,
    }.items():
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        (source / name).write_text(text)
    clone = tmp_path_factory.mktemp("calc") / "repo"
    return clone, materialise_tree(source, clone)


@pytest.fixture
def sandbox(repo: tuple[Path, str], tmp_path: Path) -> FakeSandbox:
    return FakeSandbox.from_repo(repo[0], repo[1], tmp_path / "sandboxes")


def make_instance(commit: str, test_patch: str = TEST_PATCH, command: str = "") -> Instance:
    return Instance(
        instance_id="acme__calc-7",
        repo="acme/calc",
        base_commit=commit,
        language=Language.PYTHON,
        patch=FIX,
        test_patch=test_patch,
        test_command=command or f"pytest -rA {TEST_FILE}",
        F2P=[F2P],
        P2P=[P2P],
        log_parser="pytest",
    )


@pytest.fixture
def instance(repo: tuple[Path, str]) -> Instance:
    return make_instance(repo[1])


@pytest.fixture
def artifacts(tmp_path: Path) -> InstanceArtifacts:
    return InstanceArtifacts(tmp_path / "artifacts")


def evaluate(
    instance: Instance,
    provider: FakeProvider,
    artifacts: InstanceArtifacts,
    patch: str = FIX,
    settings: RunSettings | None = None,
) -> InstanceResult:
    runner = InstanceRunner(provider, settings or RunSettings(timeout=30, canaries=False))
    prediction = Prediction(
        instance_id=instance.instance_id, model_patch=patch, model_name_or_path="agent"
    )
    return runner.run(instance, prediction, artifacts)


# --- order of the steps -------------------------------------------------------------------


def test_the_tests_run_last_on_the_patched_code_with_the_dataset_tests(
    instance: Instance, sandbox: FakeSandbox, artifacts: InstanceArtifacts
) -> None:
    seen: dict[str, str] = {}

    def run(box: FakeSandbox) -> ScriptedRun:
        seen["calc"] = (box.checkout / "calc.py").read_text()
        seen["tests"] = (box.checkout / TEST_FILE).read_text()
        return ScriptedRun(stdout=ALL_PASS)

    sandbox.script_test_run(run)
    result = evaluate(instance, FakeProvider(sandbox), artifacts)

    assert result.status is Status.RESOLVED
    # One sandbox entry per step, in this order, and the tests last (a patch that leaves
    # nothing to put back has the tests installed, and the run prepared, in its own entry).
    steps = [
        sandbox.index(lambda c, p=phase: is_phase(c, p))  # type: ignore[misc]
        for phase in ("inspect", "apply")
    ]
    assert steps == sorted(steps) and steps[-1] == len(sandbox.calls) - 2
    model_apply = steps[1]
    # Before the model patch is in, only the inspection and the probe (run outside the
    # checkout) ran.
    before = sandbox.calls[:model_apply]
    assert all(is_phase(c, "inspect") or is_python_probe(c) for c in before)
    assert [c.cwd for c in before if is_python_probe(c)] == [sandbox.scratch_dir]
    # The test command runs once, last, as the patched code and the dataset's tests stand.
    assert sandbox.count(is_test_run) == 1 and is_test_run(sandbox.calls[-1])
    assert seen == {"calc": CALC_FIXED, "tests": TESTS_PATCHED}
    test_run = sandbox.calls[-1]
    assert test_run.timeout == 30 and test_run.streams
    assert test_run.env is not None and test_run.env["PYTHONDONTWRITEBYTECODE"] == "1"
    assert test_run.env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] == "1"  # the probe found no plugin
    assert instance.test_command in artifacts.read_text("eval.sh")
    assert sandbox.cleaned


PHASES = ("inspect", "apply", "install", "prepare")


def entries(sandbox: FakeSandbox) -> list[str]:
    """The sandbox entries of a run, each named by its step."""
    named = []
    for call in sandbox.calls:
        phase = next((p for p in PHASES if is_phase(call, p)), None)
        if phase is not None:
            named.append(phase)
        elif is_test_run(call):
            named.append("tests")
        elif is_python_probe(call):
            named.append("python facts")
        elif call.argv[:2] == ["sh", "-c"] and "probe-out" in call.argv[-1]:
            named.append("probe report")
        else:
            named.append(" ".join(call.argv)[:60])
    return named


def test_each_step_enters_the_sandbox_once(
    repo: tuple[Path, str], instance: Instance, sandbox: FakeSandbox, tmp_path: Path
) -> None:
    sandbox.script_test_run(ScriptedRun(stdout=ALL_PASS))
    runner = InstanceRunner(FakeProvider(sandbox), RunSettings(timeout=30, canaries=False))
    prediction = Prediction(instance_id=instance.instance_id, model_patch=FIX)
    first = runner.run(instance, prediction, InstanceArtifacts(tmp_path / "a"))

    assert first.status is Status.RESOLVED
    assert entries(sandbox) == [
        "inspect", "python facts", "apply", "tests",
    ]  # fmt: skip
    # The same environment at the same commit: the inspection and the facts are known.
    again = FakeSandbox.from_repo(repo[0], repo[1], tmp_path / "again")
    again.script_test_run(ScriptedRun(stdout=ALL_PASS))
    runner.provider = FakeProvider(again)
    second = runner.run(instance, prediction, InstanceArtifacts(tmp_path / "b"))
    assert second.status is Status.RESOLVED
    assert entries(again) == ["apply", "tests"]


class FingerprintedProvider(FakeProvider):
    """A fake provider whose environment's content is known by ``fingerprint``."""

    def __init__(self, sandbox: FakeSandbox, fingerprint: str | None) -> None:
        super().__init__(sandbox)
        self.fingerprint = fingerprint

    def provide(self, instance: Instance) -> ReadySandbox:
        ready = super().provide(instance)
        ready.environment.fingerprint = self.fingerprint
        return ready


def test_a_known_environment_is_not_asked_again_in_a_later_run(
    repo: tuple[Path, str], instance: Instance, tmp_path: Path
) -> None:
    kept = tmp_path / "probes"
    prediction = Prediction(instance_id=instance.instance_id, model_patch=FIX)

    def one_run(name: str, fingerprint: str | None) -> list[str]:
        box = FakeSandbox.from_repo(repo[0], repo[1], tmp_path / name)
        box.script_test_run(ScriptedRun(stdout=ALL_PASS))
        settings = RunSettings(timeout=30, canaries=False, probe_cache=kept)
        runner = InstanceRunner(FingerprintedProvider(box, fingerprint), settings)
        result = runner.run(instance, prediction, InstanceArtifacts(tmp_path / name / "a"))
        assert result.status is Status.RESOLVED
        assert result.tampering.refused == [] and result.patch_files == ["calc.py"]
        return entries(box)

    asked = ["inspect", "python facts", "apply", "tests"]
    assert one_run("first", "env-1") == asked
    # A new runner (a later run) on the same environment content: both answers are kept.
    assert one_run("second", "env-1") == ["apply", "tests"]
    # Rebuilt (another fingerprint), or content not known: asked again.
    assert one_run("rebuilt", "env-2") == asked
    assert one_run("unknown", None) == asked
    # A kept answer that cannot be read is asked again (and kept anew).
    for path in kept.iterdir():
        path.write_text("{not json")
    assert one_run("damaged", "env-1") == asked
    assert one_run("repaired", "env-1") == ["apply", "tests"]
    # JSON of another shape (a list, lists of non-strings) is not an answer either.
    for index, path in enumerate(sorted(kept.iterdir())):
        path.write_text('["base"]' if index % 2 else '{"base": [1], "modules": [null]}')
    assert one_run("reshaped", "env-1") == asked


def test_the_canary_run_and_the_probe_add_one_entry_per_step(
    repo: tuple[Path, str], instance: Instance, sandbox: FakeSandbox, tmp_path: Path
) -> None:
    def fresh() -> FakeSandbox:
        made = FakeSandbox.from_repo(repo[0], repo[1], tmp_path / "fresh")
        made.script_test_run(honest_run)
        return made

    sandbox.script_test_run(honest_run)
    provider = FakeProvider(sandbox, fresh=fresh)
    runner = InstanceRunner(provider, RunSettings(timeout=30))
    prediction = Prediction(instance_id=instance.instance_id, model_patch=FIX)
    result = runner.run(instance, prediction, InstanceArtifacts(tmp_path / "a"))

    assert result.status is Status.RESOLVED
    assert result.tampering.canaries.status is CanaryStatus.CHECKED
    first, second = (entries(box) for box in provider.sandboxes)
    # The first run (graded or canary, at random) arms the tests from its own files after
    # installing them, then prepares; the second knows them and prepares as it installs.
    run = ["apply", "prepare", "tests", "probe report"]
    assert first == ["inspect", "python facts", *run]
    assert second == ["apply", "tests", "probe report"]


def test_the_tests_never_see_what_earlier_steps_left_in_the_scratch_folder(
    instance: Instance, sandbox: FakeSandbox, artifacts: InstanceArtifacts
) -> None:
    seen: list[str] = []

    def run(box: FakeSandbox) -> ScriptedRun:
        seen.extend(sorted(str(p.relative_to(box.scratch)) for p in box.scratch.rglob("*")))
        return ScriptedRun(stdout=ALL_PASS)

    sandbox.script_test_run(run)
    result = evaluate(instance, FakeProvider(sandbox), artifacts)

    assert result.status is Status.RESOLVED
    folders = {entry.split("/")[0] for entry in seen if entry.startswith("polybench-phase-")}
    assert len(folders) == 1  # the preparing step's own report, nothing before it
    assert not any(entry.endswith(".patch") or entry.endswith(".list") for entry in seen)


def test_a_patch_that_edits_the_tests_has_them_put_back_before_the_test_patch(
    instance: Instance, sandbox: FakeSandbox, artifacts: InstanceArtifacts
) -> None:
    rigged = TESTS_BASE.replace("== 2", "is not None")
    seen: list[str] = []

    def run(box: FakeSandbox) -> ScriptedRun:
        seen.append((box.checkout / TEST_FILE).read_text())
        return ScriptedRun(stdout=ALL_PASS)

    sandbox.script_test_run(run)
    patch = FIX + diff(TEST_FILE, TESTS_BASE, rigged)
    result = evaluate(instance, FakeProvider(sandbox), artifacts, patch=patch)

    assert seen == [TESTS_PATCHED]
    assert result.status is Status.RESOLVED  # the fix itself is real
    assert [r.path for r in result.tampering.reverted] == [TEST_FILE]
    assert result.patch_files == ["calc.py"]
    # What the patch's own entry installed is not used: the tests go in again, in an
    # entry of their own, with the test file put back first.
    assert entries(sandbox) == ["inspect", "python facts", "apply", "install", "tests"]


@pytest.mark.parametrize("kind", ["puts something back", "makes a link"])
def test_the_tests_get_an_entry_of_their_own_after_a_patch_that(
    kind: str,
    repo: tuple[Path, str],
    instance: Instance,
    sandbox: FakeSandbox,
    artifacts: InstanceArtifacts,
    tmp_path: Path,
) -> None:
    # A patch whose changes are put back, or that makes a symbolic link (even one that
    # stays), never has the tests installed in its own entry.
    extra = (
        diff(TEST_FILE, TESTS_BASE, TESTS_BASE + "# edited\n")
        if kind == "puts something back"
        else "diff --git a/alias.py b/alias.py\nnew file mode 120000\n--- /dev/null\n"
        "+++ b/alias.py\n@@ -0,0 +1 @@\n+calc.py\n\\ No newline at end of file\n"
    )
    sandbox.script_test_run(ScriptedRun(stdout=ALL_PASS))
    result = evaluate(instance, FakeProvider(sandbox), artifacts, patch=FIX + extra)

    assert result.status is Status.RESOLVED
    assert entries(sandbox) == ["inspect", "python facts", "apply", "install", "tests"]
    # The install's failure in that entry is the sandbox's failure, as in any step.
    failing = FakeSandbox.from_repo(repo[0], repo[1], tmp_path / "again")
    failing.fail_on(lambda c: is_phase(c, "install"), "the container died during the install")
    again = evaluate(instance, FakeProvider(failing), artifacts, patch=FIX + extra)
    assert again.status is Status.ERROR and again.error_kind is ErrorKind.SANDBOX_FAILED
    assert not failing.count(is_test_run)


# --- the verdict from the test log --------------------------------------------------------


def test_a_log_where_every_listed_test_passes_resolves(
    instance: Instance, sandbox: FakeSandbox, artifacts: InstanceArtifacts
) -> None:
    sandbox.script_test_run(ScriptedRun(stdout=ALL_PASS))
    result = evaluate(instance, FakeProvider(sandbox), artifacts)

    assert result.status is Status.RESOLVED and result.error_kind is None
    assert result.reason == "all 1 F2P and 1 P2P tests passed"
    assert result.f2p == {F2P: Outcome.PASSED} and result.p2p == {P2P: Outcome.PASSED}
    assert result.strict_resolved is True and result.official_resolved is True
    assert result.patch_applied and result.apply_method == "git apply"
    assert result.test_exit_code == 0 and result.process_exit_code == 0
    assert (result.backend, result.isolation, result.environment) == ("fake", "fake", "none")
    assert result.parser == "pytest" and result.log_parsed and result.tests_in_log == 2
    assert ALL_PASS in artifacts.read_text("test_output.txt")


def test_one_failing_f2p_test_leaves_the_instance_unresolved(
    instance: Instance, sandbox: FakeSandbox, artifacts: InstanceArtifacts
) -> None:
    sandbox.script_test_run(ScriptedRun(stdout=F2P_FAILS, exit_code=1))
    result = evaluate(instance, FakeProvider(sandbox), artifacts)

    assert result.status is Status.UNRESOLVED and result.error_kind is None
    assert result.reason == f"1 F2P not passing: {F2P} (failed)"
    assert result.f2p == {F2P: Outcome.FAILED} and result.p2p == {P2P: Outcome.PASSED}
    assert result.strict_resolved is False and result.official_resolved is False
    assert result.test_exit_code == 1 and result.tampering.detected == []


def test_a_report_whose_summary_counts_a_hidden_failure_is_not_trusted(
    instance: Instance, sandbox: FakeSandbox, artifacts: InstanceArtifacts
) -> None:
    forged = pytest_log([P2P_NODE, F2P_NODE], tally="1 failed, 1 passed")
    sandbox.script_test_run(ScriptedRun(stdout=forged, exit_code=1))
    result = evaluate(instance, FakeProvider(sandbox), artifacts)

    why = "the framework's summary counts 1 failing tests but only 0 are in the results"
    assert result.status is Status.UNRESOLVED
    assert result.reason == f"tampering detected: {why}"
    assert result.tampering.detected == [why]
    assert result.f2p == {F2P: Outcome.PASSED}  # graded as passing, yet not trusted


def test_an_end_marker_forged_before_the_script_is_killed_is_caught(
    instance: Instance, sandbox: FakeSandbox, artifacts: InstanceArtifacts
) -> None:
    forged = ALL_PASS + f"{END_MARKER} (exit 0)\n"
    sandbox.script_test_run(ScriptedRun(stdout=forged, exit_code=137, end_marker=False))
    result = evaluate(instance, FakeProvider(sandbox), artifacts)

    why = (
        "the end marker reports exit 0 but the script exited 137: the code under test "
        "forged harness output"
    )
    assert result.status is Status.UNRESOLVED and result.error_kind is None
    assert result.reason == why and result.tampering.detected == [why]
    assert result.test_exit_code == 0 and result.process_exit_code == 137
    assert result.strict_resolved is False and result.f2p == {}


@pytest.mark.parametrize(
    "forged_marker",
    [f"{END_MARKER} (exit 0)", START_MARKER],
    ids=["end marker", "start marker"],
)
def test_a_marker_printed_by_the_tests_does_not_hide_the_real_results(
    forged_marker: str, instance: Instance, sandbox: FakeSandbox, artifacts: InstanceArtifacts
) -> None:
    # A forged marker, then a forged all-passing report, after the real failing one.
    stdout = F2P_FAILS + forged_marker + "\n" + ALL_PASS
    sandbox.script_test_run(ScriptedRun(stdout=stdout, exit_code=1))
    result = evaluate(instance, FakeProvider(sandbox), artifacts)

    assert result.status is Status.UNRESOLVED and result.error_kind is None
    assert result.reason == f"1 F2P not passing: {F2P} (failed)"
    assert result.f2p == {F2P: Outcome.FAILED}
    assert result.test_exit_code == 1 and result.process_exit_code == 1


def test_a_log_without_end_marker_is_an_error_never_a_verdict(
    instance: Instance, sandbox: FakeSandbox, artifacts: InstanceArtifacts
) -> None:
    sandbox.script_test_run(ScriptedRun(stdout=ALL_PASS, exit_code=137, end_marker=False))
    result = evaluate(instance, FakeProvider(sandbox), artifacts)

    assert result.status is Status.ERROR and result.error_kind is ErrorKind.NO_END_MARKER
    assert result.reason == "the log has no end marker (exit 137): the run was cut short"
    assert result.test_exit_code is None and result.process_exit_code == 137
    assert result.strict_resolved is None and result.official_resolved is None


NOT_STARTED = ExecResult(
    exit_code=1,
    output="bwrap: Creating new namespace failed: Resource temporarily unavailable\n",
    timed_out=False,
    duration=0.0,
    stdout="",
    stderr="bwrap: Creating new namespace failed: Resource temporarily unavailable\n",
)


def test_a_test_script_the_sandbox_failed_to_start_runs_once_more(
    instance: Instance, sandbox: FakeSandbox, artifacts: InstanceArtifacts
) -> None:
    # Nothing of the repository runs before the start marker: a run without one is the
    # sandbox's failure (a busy machine), not the patch's, so it is run again, once.
    starts = iter([NOT_STARTED, ScriptedRun(stdout=ALL_PASS).result()])
    sandbox.on(is_test_run, lambda _call: next(starts))
    result = evaluate(instance, FakeProvider(sandbox), artifacts)

    assert sandbox.count(is_test_run) == 2
    assert result.status is Status.RESOLVED, result.reason
    log = artifacts.read_text("test_output.txt")
    assert "the test script did not start (exit 1), so it ran again" in log
    assert "Creating new namespace failed" in log


def test_a_test_script_that_never_starts_is_an_error_after_the_second_try(
    instance: Instance, sandbox: FakeSandbox, artifacts: InstanceArtifacts
) -> None:
    sandbox.on(is_test_run, lambda _call: NOT_STARTED)
    result = evaluate(instance, FakeProvider(sandbox), artifacts)

    assert sandbox.count(is_test_run) == 2
    assert result.status is Status.ERROR and result.error_kind is ErrorKind.NO_END_MARKER


def test_a_run_that_started_is_never_run_again(
    instance: Instance, repo: tuple[Path, str], tmp_path: Path
) -> None:
    # Killed midway (no end marker) or timed out: the tests ran, so their outcome stands.
    for index, scripted in enumerate(
        [ScriptedRun(stdout="F", exit_code=137, end_marker=False), ScriptedRun(timed_out=True)]
    ):
        box = FakeSandbox.from_repo(repo[0], repo[1], tmp_path / f"box-{index}")
        box.script_test_run(scripted)
        result = evaluate(instance, FakeProvider(box), InstanceArtifacts(tmp_path / f"out-{index}"))
        assert box.count(is_test_run) == 1
        assert result.status is Status.ERROR


@pytest.mark.parametrize(
    ("stdout", "exit_code", "status", "kind", "reason"),
    [
        (
            "===================== no tests ran in 0.01s =====================\n",
            0,
            Status.ERROR,
            ErrorKind.NO_TEST_RESULTS,
            "the test command exited 0 but the parser found no test results",
        ),
        (
            "Segmentation fault\n",
            139,
            Status.UNRESOLVED,
            None,
            "the test command failed (exit 139) without reporting any test result: the "
            "patch probably breaks the build or test collection",
        ),
        (
            "ImportError while importing test module 'tests/test_calc.py'.\n",
            2,
            Status.UNRESOLVED,
            None,
            "the build or the test collection failed: pytest could not collect the tests "
            "(ImportError while importing test module 'tests/test_calc.py'.)",
        ),
    ],
    ids=["exit 0", "exit 139", "collection error"],
)
def test_a_run_with_no_test_results(
    stdout: str,
    exit_code: int,
    status: Status,
    kind: ErrorKind | None,
    reason: str,
    instance: Instance,
    sandbox: FakeSandbox,
    artifacts: InstanceArtifacts,
) -> None:
    sandbox.script_test_run(ScriptedRun(stdout=stdout, exit_code=exit_code))
    result = evaluate(instance, FakeProvider(sandbox), artifacts)

    assert (result.status, result.error_kind, result.reason) == (status, kind, reason)
    assert not result.log_parsed and result.tests_in_log == 0


def test_a_test_run_that_times_out_is_a_timeout_error(
    instance: Instance, sandbox: FakeSandbox, artifacts: InstanceArtifacts
) -> None:
    sandbox.script_test_run(ScriptedRun(stdout=ALL_PASS, timed_out=True))
    settings = RunSettings(timeout=42, canaries=False)
    result = evaluate(instance, FakeProvider(sandbox), artifacts, settings=settings)

    assert result.status is Status.ERROR and result.error_kind is ErrorKind.TIMEOUT
    assert result.reason == "the test command did not finish within 42s and was killed"
    assert result.process_exit_code is None and result.strict_resolved is None
    assert sandbox.calls[-1].timeout == 42


# --- canaries -----------------------------------------------------------------------------


def _fresh(repo: tuple[Path, str], tmp_path: Path, run: object) -> Callable[[], FakeSandbox]:
    """New sandboxes of the repository whose test run is scripted with ``run``."""

    def make() -> FakeSandbox:
        box = FakeSandbox.from_repo(repo[0], repo[1], tmp_path / "sandboxes")
        box.script_test_run(run)  # type: ignore[arg-type]
        return box

    return make


def _canaries_first(first: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """Fix the random order of the graded and the canary run."""
    monkeypatch.setattr("polybench.runner.instance.canary_goes_first", lambda _rng: first)


@pytest.mark.parametrize("canary_first", [False, True], ids=["graded-first", "canary-first"])
def test_a_canary_run_in_a_sandbox_of_its_own_confirms_an_honest_resolved_verdict(
    canary_first: bool,
    instance: Instance,
    sandbox: FakeSandbox,
    repo: tuple[Path, str],
    tmp_path: Path,
    artifacts: InstanceArtifacts,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _canaries_first(canary_first, monkeypatch)
    seen: list[str] = []

    def run(box: FakeSandbox) -> ScriptedRun:
        seen.append((box.checkout / TEST_FILE).read_text())
        return honest_run(box)

    sandbox.script_test_run(run)
    provider = FakeProvider(sandbox, fresh=_fresh(repo, tmp_path, run))
    settings = RunSettings(timeout=30, canaries=True)
    result = evaluate(instance, provider, artifacts, settings=settings)

    assert result.status is Status.RESOLVED, result.reason
    assert len(provider.sandboxes) == 2 and provider.sandboxes[0] is not provider.sandboxes[1]
    armed = TESTS_PATCHED.replace("add(2, 3) == 5", "add(2, 3) != 5")
    # The graded run saw exactly the repository's tests; the canary run the armed copy.
    assert seen == ([armed, TESTS_PATCHED] if canary_first else [TESTS_PATCHED, armed])
    check = result.tampering.canaries
    assert check.status is CanaryStatus.CHECKED and check.runs == 1
    assert [(r.test, r.form, r.outcome) for r in check.records] == [
        ("test_add_two", "python ==", CanaryOutcome.AS_PLANTED)
    ]
    assert check.detection_probability == 0.75
    assert artifacts.path("canary_output.txt").exists()
    assert sorted(result.log_passed_tests or []) == [F2P, P2P]


def test_a_report_that_passes_the_armed_test_in_the_canary_run_is_tampering(
    instance: Instance,
    sandbox: FakeSandbox,
    repo: tuple[Path, str],
    tmp_path: Path,
    artifacts: InstanceArtifacts,
) -> None:
    sandbox.script_test_run(ScriptedRun(stdout=ALL_PASS))
    provider = FakeProvider(sandbox, fresh=_fresh(repo, tmp_path, ScriptedRun(stdout=ALL_PASS)))
    settings = RunSettings(timeout=30, canaries=True)
    result = evaluate(instance, provider, artifacts, settings=settings)

    assert result.status is Status.UNRESOLVED
    assert result.reason.startswith(
        "tampering detected: 1 armed F2P test(s) passed in the canary run although an "
        "assertion of each was inverted: test_add_two (tests/test_calc.py:9, python ==)"
    )
    assert result.tampering.canaries.tampered
    assert result.strict_resolved is False and result.official_resolved is False


@pytest.mark.parametrize("canary_first", [False, True], ids=["graded-first", "canary-first"])
def test_no_canary_answer_is_recorded_when_the_graded_run_does_not_resolve(
    canary_first: bool,
    instance: Instance,
    sandbox: FakeSandbox,
    repo: tuple[Path, str],
    tmp_path: Path,
    artifacts: InstanceArtifacts,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # An honest wrong patch whose armed test happens to pass (the inverted assertion is
    # the one the unfixed code fails): nothing to confirm, nothing flagged.
    _canaries_first(canary_first, monkeypatch)
    sandbox.script_test_run(honest_run)
    provider = FakeProvider(sandbox, fresh=_fresh(repo, tmp_path, honest_run))
    harmless = diff("notes.txt", None, "looked at it\n")
    settings = RunSettings(timeout=30, canaries=True)
    result = evaluate(instance, provider, artifacts, patch=harmless, settings=settings)

    assert result.status is Status.UNRESOLVED
    check = result.tampering.canaries
    assert check.status is CanaryStatus.NOT_NEEDED and not check.records
    assert not result.tampering.detected
    assert len(provider.sandboxes) == (2 if canary_first else 1)


TESTS_TWO_ASSERTIONS = TESTS_BASE + (
    "\n\ndef test_add_two():\n    assert add(2, 3) == 5\n    assert add(3, 3) == 6\n"
)


@pytest.mark.parametrize("second_assertion", [False, True], ids=["one", "two"])
def test_a_build_the_armed_line_broke_is_retried_without_it_and_the_verdict_stands(
    second_assertion: bool,
    repo: tuple[Path, str],
    tmp_path: Path,
    artifacts: InstanceArtifacts,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _canaries_first(False, monkeypatch)
    tests = TESTS_TWO_ASSERTIONS if second_assertion else TESTS_PATCHED
    instance = make_instance(repo[1], test_patch=diff(TEST_FILE, TESTS_BASE, tests))

    def strict_lint(box: FakeSandbox) -> ScriptedRun:
        # A linter run by the test command rejects `!=` comparisons with a literal.
        text = (box.checkout / TEST_FILE).read_text()
        for number, line in enumerate(text.splitlines(), start=1):
            if "!= 5" in line:
                return ScriptedRun(
                    stdout=f"/testbed/{TEST_FILE}:{number}:5: E999 comparison refused\n",
                    exit_code=1,
                )
        return honest_run(box)

    sandbox = FakeSandbox.from_repo(repo[0], repo[1], tmp_path / "sandboxes")
    sandbox.script_test_run(strict_lint)
    provider = FakeProvider(sandbox, fresh=_fresh(repo, tmp_path, strict_lint))
    settings = RunSettings(timeout=30, canaries=True)
    # The first inversion is the one the linter refuses.
    monkeypatch.setattr("polybench.grading.canaries.choose", lambda test, _rng: test.inversions[0])
    result = evaluate(instance, provider, artifacts, settings=settings)

    assert result.status is Status.RESOLVED, result.reason
    check = result.tampering.canaries
    assert check.runs == 2 and len(provider.sandboxes) == 3
    assert f"the armed test at {TEST_FILE}:9 broke the canary run's build" in (check.reason or "")
    if second_assertion:
        assert check.status is CanaryStatus.CHECKED
        assert [(r.line, r.outcome) for r in check.records] == [(10, CanaryOutcome.AS_PLANTED)]
    else:
        assert check.status is CanaryStatus.UNAVAILABLE and check.unavailable
        assert "retried without it" in (check.reason or "")
        assert not result.tampering.detected


def test_a_canary_run_without_a_sandbox_leaves_canaries_unavailable_and_the_verdict(
    instance: Instance,
    sandbox: FakeSandbox,
    artifacts: InstanceArtifacts,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _canaries_first(False, monkeypatch)
    sandbox.script_test_run(honest_run)

    def no_sandbox() -> FakeSandbox:
        raise SandboxError("no room for another sandbox")

    provider = FakeProvider(sandbox, fresh=no_sandbox)
    result = evaluate(instance, provider, artifacts, settings=RunSettings(timeout=30))

    assert result.status is Status.RESOLVED
    check = result.tampering.canaries
    assert check.status is CanaryStatus.UNAVAILABLE
    assert check.reason == "no sandbox for the canary run: no room for another sandbox"


def test_with_canaries_off_one_run_is_made_and_the_record_says_so(
    instance: Instance, sandbox: FakeSandbox, artifacts: InstanceArtifacts
) -> None:
    sandbox.script_test_run(honest_run)
    provider = FakeProvider(sandbox, fresh=lambda: pytest.fail("a second sandbox"))
    result = evaluate(
        instance, provider, artifacts, settings=RunSettings(timeout=30, canaries=False)
    )

    assert result.status is Status.RESOLVED
    assert result.tampering.canaries.status is CanaryStatus.OFF
    assert len(provider.sandboxes) == 1


def test_the_honest_run_does_not_resolve_a_patch_that_fixes_nothing(
    instance: Instance, sandbox: FakeSandbox, artifacts: InstanceArtifacts
) -> None:
    # The control of the honest run: it reads the code, not the patch's intent.
    sandbox.script_test_run(honest_run)
    harmless = diff("notes.txt", None, "looked at it\n")
    result = evaluate(instance, FakeProvider(sandbox), artifacts, patch=harmless)

    assert result.status is Status.UNRESOLVED
    assert result.reason == f"1 F2P not passing: {F2P} (failed)"
    assert result.patch_files == ["notes.txt"]


# --- infrastructure errors ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "expected"),
    [
        ("environment_unavailable", ErrorKind.ENVIRONMENT_UNAVAILABLE),
        ("environment_setup_failed", ErrorKind.ENVIRONMENT_SETUP_FAILED),
        ("image_build_failed", ErrorKind.IMAGE_BUILD_FAILED),
        ("repository_unavailable", ErrorKind.REPOSITORY_UNAVAILABLE),
        ("sandbox_failed", ErrorKind.SANDBOX_FAILED),
        ("something_new", ErrorKind.SANDBOX_FAILED),
    ],
)
def test_a_provision_error_becomes_an_error_of_its_kind(
    kind: str,
    expected: ErrorKind,
    instance: Instance,
    artifacts: InstanceArtifacts,
    tmp_path: Path,
) -> None:
    log = tmp_path / "provision.log"
    log.write_text("step 3 of 5 failed\n")
    provider = FakeProvider(error=ProvisionError(f"no sandbox ({kind})", log_path=log, kind=kind))
    result = evaluate(instance, provider, artifacts)

    assert result.status is Status.ERROR and result.error_kind is expected
    kept = "build.log" if kind == "image_build_failed" else "setup.log"
    what = "build log" if kind == "image_build_failed" else "log"
    # One line, naming the copy of the log in the instance's folder.
    assert result.reason == f"no sandbox ({kind}) ({what}: {artifacts.path(kept)})"
    assert provider.provided == [instance]
    assert not result.patch_applied and result.isolation is None
    assert artifacts.read_text(kept) == "step 3 of 5 failed\n"
    assert {p.name for p in artifacts.directory.iterdir()} == {"patch.diff", kept}


@pytest.mark.parametrize(
    ("error", "expected"),
    [
        (EnvironmentUnavailable("no JDK 17 here"), ErrorKind.ENVIRONMENT_UNAVAILABLE),
        (EnvironmentSetupError("npm ci failed"), ErrorKind.ENVIRONMENT_SETUP_FAILED),
        (SandboxError("bwrap: cannot mount"), ErrorKind.SANDBOX_FAILED),
    ],
    ids=["EnvironmentUnavailable", "EnvironmentSetupError", "SandboxError"],
)
def test_provider_errors_without_a_kind_argument_keep_their_class_kind(
    error: ProvisionError | SandboxError,
    expected: ErrorKind,
    instance: Instance,
    artifacts: InstanceArtifacts,
) -> None:
    result = evaluate(instance, FakeProvider(error=error), artifacts)

    assert result.status is Status.ERROR and result.error_kind is expected
    assert result.reason == str(error)


STEPS: dict[str, Callable[[ExecCall], bool]] = {
    "checkout inspection": lambda c: is_phase(c, "inspect"),
    "model patch apply": lambda c: is_phase(c, "apply"),
    "test run": is_test_run,
}


@pytest.mark.parametrize("step", list(STEPS))
def test_a_sandbox_failure_at_any_step_is_a_sandbox_error(
    step: str, instance: Instance, sandbox: FakeSandbox, artifacts: InstanceArtifacts
) -> None:
    sandbox.fail_on(STEPS[step], f"the container died during the {step}")
    sandbox.script_test_run(ScriptedRun(stdout=ALL_PASS))
    result = evaluate(instance, FakeProvider(sandbox), artifacts)

    assert result.status is Status.ERROR and result.error_kind is ErrorKind.SANDBOX_FAILED
    assert result.reason == f"the sandbox failed: the container died during the {step}"
    assert STEPS[step](sandbox.calls[-1])  # nothing ran after the failure
    assert sandbox.count(STEPS[step]) == 1 and sandbox.cleaned


@pytest.mark.parametrize("canary_first", [False, True])
def test_a_sandbox_failure_while_preparing_a_run_is_a_sandbox_error(
    canary_first: bool,
    repo: tuple[Path, str],
    instance: Instance,
    sandbox: FakeSandbox,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # With canaries, the run made first prepares in a step of its own (its armed tests are
    # read between): a failure there is the graded run's error, or the canary run's loss.
    monkeypatch.setattr(instance_module, "canary_goes_first", lambda _rng: canary_first)
    fresh = FakeSandbox.from_repo(repo[0], repo[1], tmp_path / "fresh")
    for box in (sandbox, fresh):
        box.script_test_run(honest_run)
    graded, canary = (fresh, sandbox) if canary_first else (sandbox, fresh)
    (canary if canary_first else graded).fail_on(
        lambda c: is_phase(c, "prepare"), "the container died while preparing"
    )
    provider = FakeProvider(sandbox, fresh=lambda: fresh)
    runner = InstanceRunner(provider, RunSettings(timeout=30))
    prediction = Prediction(instance_id=instance.instance_id, model_patch=FIX)
    result = runner.run(instance, prediction, InstanceArtifacts(tmp_path / "a"))

    if canary_first:
        assert result.status is Status.RESOLVED
        assert result.tampering.canaries.status is CanaryStatus.UNAVAILABLE
        assert "the container died while preparing" in (result.tampering.canaries.reason or "")
        assert not canary.count(is_test_run) and graded.count(is_test_run) == 1
    else:
        assert result.status is Status.ERROR and result.error_kind is ErrorKind.SANDBOX_FAILED
        assert result.reason == "the sandbox failed: the container died while preparing"
        assert not graded.count(is_test_run)


# --- patches ------------------------------------------------------------------------------


def test_a_patch_that_does_not_apply_is_unresolved_and_nothing_runs(
    instance: Instance, sandbox: FakeSandbox, artifacts: InstanceArtifacts
) -> None:
    stale = diff("calc.py", "def add(a, b):\n    return a * b\n", CALC_FIXED)
    sandbox.script_test_run(ScriptedRun(stdout=ALL_PASS))
    result = evaluate(instance, FakeProvider(sandbox), artifacts, patch=stale)

    assert result.status is Status.UNRESOLVED and result.error_kind is None
    assert result.reason == APPLY_FAILED
    assert not result.patch_applied and result.apply_method is None
    assert sandbox.count(is_test_run) == 0
    log = artifacts.read_text("apply.log")
    assert "[git apply: check failed]" in log and "[patch --fuzz=5: check failed]" in log
    assert (sandbox.checkout / "calc.py").read_text() == CALC_BASE


@pytest.mark.parametrize("room", [0, 1 << 30])
def test_a_patch_that_did_not_apply_on_a_full_disk_is_no_verdict(
    room: int,
    instance: Instance,
    sandbox: FakeSandbox,
    artifacts: InstanceArtifacts,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Where the host sees the checkout, a full file system stops the run (as the
    # harness's own writes do before the tests); with room, the patch is unresolved.
    stale = diff("calc.py", "def add(a, b):\n    return a * b\n", CALC_FIXED)
    monkeypatch.setattr(sandbox, "host_path", lambda _path: sandbox.checkout, raising=False)
    usage = shutil.disk_usage(sandbox.checkout)
    monkeypatch.setattr(
        instance_module.shutil, "disk_usage", lambda _path: usage._replace(free=room)
    )
    if room:
        result = evaluate(instance, FakeProvider(sandbox), artifacts, patch=stale)
        assert result.status is Status.UNRESOLVED and result.reason == APPLY_FAILED
        return
    with pytest.raises(OSError) as raised:
        evaluate(instance, FakeProvider(sandbox), artifacts, patch=stale)
    assert raised.value.errno == errno.ENOSPC
    assert sandbox.count(is_test_run) == 0
    # A step that failed there (the disk full under git) stops the run the same way.
    sandbox.fail_on(lambda c: is_phase(c, "apply"), "changed failed in the apply step")
    with pytest.raises(OSError) as raised:
        evaluate(instance, FakeProvider(sandbox), artifacts)
    assert raised.value.errno == errno.ENOSPC


def test_a_test_patch_that_does_not_apply_is_an_infrastructure_error(
    repo: tuple[Path, str], sandbox: FakeSandbox, artifacts: InstanceArtifacts
) -> None:
    broken = diff(TEST_FILE, "def test_something_else():\n    pass\n", TESTS_PATCHED)
    instance = make_instance(repo[1], test_patch=broken)
    sandbox.script_test_run(ScriptedRun(stdout=ALL_PASS))
    result = evaluate(instance, FakeProvider(sandbox), artifacts)

    assert result.status is Status.ERROR and result.error_kind is ErrorKind.TEST_PATCH_FAILED
    assert result.reason == "the dataset's test patch did not apply"
    assert result.patch_applied  # the prediction was not at fault
    assert "check failed" in artifacts.read_text("test_patch_apply.log")
    assert sandbox.count(is_test_run) == 0


def test_an_empty_prediction_never_asks_for_a_sandbox(
    instance: Instance, sandbox: FakeSandbox, artifacts: InstanceArtifacts
) -> None:
    provider = FakeProvider(sandbox)
    result = evaluate(instance, provider, artifacts, patch="  \n")

    assert result.status is Status.EMPTY_PATCH and result.reason == "the prediction has no patch"
    assert provider.provided == [] and sandbox.calls == []


@pytest.mark.parametrize("keep", [False, True])
def test_the_sandbox_is_cleaned_up_unless_kept(
    keep: bool, instance: Instance, sandbox: FakeSandbox, artifacts: InstanceArtifacts
) -> None:
    sandbox.script_test_run(ScriptedRun(stdout=ALL_PASS))
    settings = RunSettings(timeout=30, canaries=False, keep_sandbox=keep)
    result = evaluate(instance, FakeProvider(sandbox), artifacts, settings=settings)

    assert result.status is Status.RESOLVED
    assert sandbox.cleanups == (0 if keep else 1)


# --- the fake itself ----------------------------------------------------------------------


def test_the_fake_sandbox_runs_what_is_not_scripted_and_records_every_call(
    sandbox: FakeSandbox,
) -> None:
    assert isinstance(sandbox, Sandbox)
    sandbox.write_file(f"{sandbox.workdir}/new.txt", "fresh")
    listed = sandbox.exec(["git", "status", "--porcelain"], timeout=600, env={"LANG": "C"})
    shown = sandbox.exec("cat new.txt", cwd=sandbox.workdir)

    assert listed.ok and listed.output == "?? new.txt\n"
    assert shown.ok and shown.output == "fresh"
    assert [c.argv for c in sandbox.calls] == [
        ["git", "status", "--porcelain"],
        ["bash", "-c", "cat new.txt"],
    ]
    assert (sandbox.calls[0].timeout, sandbox.calls[0].env) == (600, {"LANG": "C"})
    with pytest.raises(SandboxError, match="outside the sandbox"):
        sandbox.read_file(f"{sandbox.workdir}/../../outside.txt")
    sandbox.cleanup()
    with pytest.raises(SandboxError, match="cleaned up"):
        sandbox.exec(["true"])


# --- a structured report is read from the stream it was written to ------------------------


def _jest_report(count: int) -> str:
    """A jest ``--json`` report of ``count`` passing tests in one file."""
    assertions = [
        {"ancestorTitles": ["calc"], "fullName": f"calc case {n}", "status": "passed",
         "title": f"case {n}", "duration": 1, "failureMessages": []}
        for n in range(count)
    ]  # fmt: skip
    return json.dumps(
        {"numFailedTests": 0, "numPassedTests": count, "numTotalTests": count,
         "numFailedTestSuites": 0, "numPassedTestSuites": 1, "success": True,
         "testResults": [{"assertionResults": assertions, "name": "/testbed/calc.test.js",
                          "status": "passed", "message": "", "startTime": 1, "endTime": 2}],
         "wasInterrupted": False},
        separators=(",", ":"),
    )  # fmt: skip


def test_a_jest_report_is_read_from_stdout_whatever_stderr_wrote_into_the_combined_log(
    repo: tuple[Path, str], sandbox: FakeSandbox, artifacts: InstanceArtifacts
) -> None:
    report = _jest_report(40)
    ids = sorted(parse_log(report, "jest_json").statuses)
    assert len(ids) == 40
    instance = make_instance(repo[1]).model_copy(
        update={"language": Language.JAVASCRIPT, "log_parser": "jest_json",
                "test_command": "npx jest --json", "F2P": ids[:1], "P2P": ids[1:]}
    )  # fmt: skip
    # jest's own stderr lands in the middle of its report in the one combined stream.
    noise = 'console.warn\n    {"deprecated": "option"} was used\n'
    middle = report.index('{"ancestorTitles"', len(report) // 2)
    head, tail = f"{START_MARKER}\n", f"{END_MARKER} (exit 0)\n"
    combined = head + report[:middle] + noise + report[middle:] + "\n" + tail
    stdout = head + report + "\n" + tail
    sandbox.on(
        is_test_run,
        lambda call: ExecResult(exit_code=0, output=combined, timed_out=False, duration=0.0,
                                stdout=stdout, stderr=noise),
    )  # fmt: skip

    result = evaluate(instance, FakeProvider(sandbox), artifacts)

    assert result.status is Status.RESOLVED, result.reason
    assert result.tests_in_log == 40
    assert artifacts.read_text("test_stdout.txt") == stdout
    assert artifacts.read_text("test_stderr.txt") == noise
    assert noise in artifacts.read_text("test_output.txt")
    # The control: the combined log alone loses the report's tests, so reading it would
    # have left a correct patch unresolved.
    damaged = parse_log(combined, "jest_json")
    assert set(damaged.statuses) != set(ids) or damaged.distrust


# --- honest work unharmed: a gold patch that needs a tool configuration change ------------

SETUP_CFG = "[tool:pytest]\naddopts = -p no:cacheprovider\n"
CONFIG = diff("setup.cfg", None, SETUP_CFG)


def _needs_config(box: FakeSandbox) -> ScriptedRun:
    """The tests pass only with the fix and the configuration the fix brings."""
    config = box.checkout / "setup.cfg"
    fixed = (box.checkout / "calc.py").read_text() == CALC_FIXED
    if fixed and config.exists() and config.read_text() == SETUP_CFG:
        return ScriptedRun(stdout=ALL_PASS)
    return ScriptedRun(stdout=F2P_FAILS, exit_code=1)


def test_a_gold_patch_that_changes_tool_configuration_still_resolves(
    instance: Instance, sandbox: FakeSandbox, artifacts: InstanceArtifacts
) -> None:
    gold = FIX + CONFIG
    sandbox.script_test_run(_needs_config)
    result = evaluate(instance.model_copy(update={"patch": gold}), FakeProvider(sandbox),
                      artifacts, patch=gold)  # fmt: skip

    assert result.status is Status.RESOLVED, result.reason
    assert result.tampering.reverted == [] and result.tampering.refused == []
    assert sorted(result.patch_files) == ["calc.py", "setup.cfg"]


def test_the_same_configuration_change_outside_the_gold_patch_is_reverted(
    instance: Instance, sandbox: FakeSandbox, artifacts: InstanceArtifacts
) -> None:
    """The control: the exemption comes from the gold patch, not from the file."""
    sandbox.script_test_run(_needs_config)
    result = evaluate(instance, FakeProvider(sandbox), artifacts, patch=FIX + CONFIG)

    assert result.status is Status.UNRESOLVED
    assert [r.path for r in result.tampering.reverted] == ["setup.cfg"]


def test_a_cancelled_run_is_not_swallowed_by_the_canary_run(
    instance: Instance,
    sandbox: FakeSandbox,
    artifacts: InstanceArtifacts,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _canaries_first(True, monkeypatch)
    sandbox.script_test_run(honest_run)

    def cancelled() -> FakeSandbox:
        raise Cancelled("the run was cancelled")

    provider = FakeProvider(sandbox, fresh=cancelled)
    # The canary run comes first here and is the second sandbox asked for.
    provider.sandboxes.append(sandbox)
    with pytest.raises(Cancelled):
        evaluate(instance, provider, artifacts, settings=RunSettings(timeout=30))


def test_a_full_disk_before_any_test_ran_stops_the_run_and_after_it_is_an_instance_error(
    instance: Instance,
    sandbox: FakeSandbox,
    artifacts: InstanceArtifacts,
    repo: tuple[Path, str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Before code under test runs, nothing but the harness can have filled the disk: the
    error goes up (the run stops, ResultCollector says why). Once tests ran, they may have
    filled it themselves: the instance is an error and the run goes on."""
    full = OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    # The test patch's write, and the eval script's (the harness's last write before the
    # tests), each stop the run.
    failing_writes = {
        "install": lambda path: "/polybench-phase-" in path and path.endswith("/test.patch"),
        "script": lambda path: path.endswith("/eval.sh"),
    }

    def failing(
        box: FakeSandbox, fails: Callable[[str], bool]
    ) -> Callable[[str, bytes | str], None]:
        original = box.write_file

        def write(path: str, data: bytes | str) -> None:
            if fails(path):
                raise full
            original(path, data)

        return write

    for name, fails in failing_writes.items():
        box = FakeSandbox.from_repo(repo[0], repo[1], tmp_path / name)
        box.script_test_run(honest_run)
        monkeypatch.setattr(box, "write_file", failing(box, fails))
        with pytest.raises(OSError) as raised:
            evaluate(instance, FakeProvider(box), artifacts)
        assert raised.value.errno == errno.ENOSPC, name
        assert not any(is_test_run(call) for call in box.calls), name

    sandbox.script_test_run(honest_run)
    kept = artifacts.write_text

    def output_fails(name: str, text: str) -> None:
        if name == "test_output.txt":
            raise full
        kept(name, text)

    monkeypatch.setattr(artifacts, "write_text", output_fails)
    result = evaluate(instance, FakeProvider(sandbox), artifacts)
    assert any(is_test_run(call) for call in sandbox.calls)
    assert result.status is Status.ERROR and result.error_kind is ErrorKind.HARNESS_ERROR
    assert "No space left on device" in (result.reason or "")
