"""The per-instance steps after the model patch, shared by eval, validate and the agent
runner: the test patch, the canaries, the test run and the reading of its results.

Each step works on a sandbox through the :class:`~polybench.sandbox.base.Sandbox`
protocol, so every backend gets the same defences.
"""

from __future__ import annotations

import json
import random
import shlex
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace

from polybench.environments.manager import EnvironmentSetupError, activation_text
from polybench.environments.provider import ReadySandbox
from polybench.grading.canaries import Arming, CanaryCheck, arm, test_file_candidates
from polybench.grading.parsers import ParseResult, get_parser
from polybench.grading.probe import (
    ProbeCheck,
    ProbeStatus,
    probe_broke_run,
    probe_env,
    probe_sources,
    read_probe,
)
from polybench.grading.testpaths import TestPathRules
from polybench.grading.verdict import Rule, RunFacts, Verdict, decide
from polybench.patches.apply import strategies
from polybench.runner.phase import (
    PhaseReport,
    ScriptPart,
    chain_result,
    chain_script,
    run_phase,
)
from polybench.runner.spec import InstanceSpec
from polybench.sandbox.base import ExecResult, Sandbox, SandboxError, write_files
from polybench.sandbox.eval_script import MarkedLog, eval_script, split_log

_STEP_TIMEOUT = 300.0
_PATCH_PLACEHOLDER = "__POLYBENCH_PATCH__"
_CLEAR_BYTECODE = (
    "find . -path ./node_modules -prune -o -name __pycache__ -type d -prune "
    "-exec rm -rf {} + ; find . -path ./node_modules -prune -o -name '*.pyc' -delete"
)
_FACTS_SCRIPT = """
import json, pkgutil, sys
try:
    from importlib.metadata import entry_points
    plugins = sorted({e.name for e in entry_points(group="pytest11")})
except Exception:
    plugins = []
modules = sorted({m.name for m in pkgutil.iter_modules()} | set(sys.builtin_module_names))
print("POLYBENCH-FACTS " + json.dumps({"modules": modules, "pytest_plugins": plugins}))
"""


class TestPatchFailed(Exception):
    """The dataset's test patch did not apply (an infrastructure error)."""

    __test__ = False


class RestoreFailed(Exception):
    """Files put back to the base commit do not match it afterwards (tampering)."""


@dataclass(frozen=True)
class PythonFacts:
    """What a Python environment holds: its importable top-level modules, its plugins."""

    modules: frozenset[str] = frozenset()
    pytest_plugins: tuple[str, ...] = ()


@dataclass
class TestRun:
    """One execution of the eval script and what the harness saw of it."""

    __test__ = False

    executed: ExecResult
    marked: MarkedLog
    stdout: str
    facts: RunFacts
    script: str

    @property
    def combined_body(self) -> str:
        """The combined log between the markers."""
        return self.marked.body


@dataclass
class Judgement:
    """The verdict and what it was based on."""

    verdict: Verdict
    parsed: ParseResult
    canaries: CanaryCheck = field(default_factory=CanaryCheck)


def _facts_from(output: str) -> PythonFacts:
    for line in output.splitlines():
        if line.startswith("POLYBENCH-FACTS "):
            data = json.loads(line[len("POLYBENCH-FACTS ") :])
            return PythonFacts(frozenset(data["modules"]), tuple(data["pytest_plugins"]))
    return PythonFacts()


def python_facts(sandbox: Sandbox, env: dict[str, str]) -> PythonFacts:
    """The environment's modules and pytest plugins, asked of its own interpreter, from
    outside the checkout (so the repository's files are not counted as installed)."""
    for interpreter in ("python", "python3"):
        done = sandbox.exec(
            [interpreter, "-c", _FACTS_SCRIPT],
            timeout=_STEP_TIMEOUT,
            env=env,
            cwd=sandbox.scratch_dir,
        )
        if done.ok:
            return _facts_from(done.output)
    return PythonFacts()


_INSTALL = r"""
readlist remove; chunked rm rm -rf -- || exit 0
readlist checkout; chunked checkout g checkout -q "$1" -- || exit 0
readlist tracked1; chunked diff1 g diff --no-ext-diff --no-textconv --name-only -z "$1" -- || exit 0
readlist absent1; present exists1
if [ -s "$pb_dir/diff1.out" ] || [ -s "$pb_dir/exists1.out" ]; then exit 0; fi
if [ -f "$pb_dir/test.patch" ]; then
__CHAIN__
  rm -f -- "$pb_dir/test.patch"
  if [ -z "$applied" ]; then exit 0; fi
  readlist tracked2
  chunked diff2 g diff --no-ext-diff --no-textconv --name-only -z "$1" -- || exit 0
  readlist absent2; present exists2
fi
"""


def _mismatched(report: PhaseReport, which: str) -> list[str]:
    return sorted(set(report.ok(f"diff{which}").paths) | set(report.step(f"exists{which}").paths))


class TestInstall:
    """The install of the tests (see :func:`install_tests`): its script, and the reading
    of the report of the sandbox entry that ran it."""

    __test__ = False

    def __init__(
        self,
        spec: InstanceSpec,
        at_base: set[str],
        restored: set[str],
        then: Preparation | None = None,
    ) -> None:
        self.spec = spec
        self.then = then
        test_files = set(spec.test_patch_files)
        back = sorted(restored | test_files)
        again = sorted(restored - test_files)
        self._chain = strategies(_PATCH_PLACEHOLDER)
        chain = chain_script("t.", self._chain, None)
        lists = {
            "remove": back,
            "checkout": [path for path in back if path in at_base],
            "tracked1": [path for path in back if path in at_base],
            "absent1": [path for path in back if path not in at_base],
            "tracked2": [path for path in again if path in at_base],
            "absent2": [path for path in again if path not in at_base],
        }
        files = {"test.patch": spec.test_patch} if spec.test_patch.strip() else {}
        body = _INSTALL.replace("__CHAIN__", chain).replace(
            _PATCH_PLACEHOLDER, '"$pb_dir/test.patch"'
        )
        if then is not None:
            body += _PREPARE
            lists.update(then.lists)
            files.update(then.files)
        self.script = ScriptPart(body, lists, files)

    def check(self, report: PhaseReport) -> None:
        """Raise what went wrong, as :func:`install_tests` says."""
        report.ok("rm")
        report.ok("checkout")
        mismatched = _mismatched(report, "1")
        if mismatched:
            shown = ", ".join(mismatched[:3])
            raise RestoreFailed(f"files put back to the base commit do not match it: {shown}")
        if self.spec.test_patch.strip():
            applied, _ = chain_result(report, "t.", self._chain, None)
            if not applied.applied:
                raise TestPatchFailed(applied.log)
            mismatched = _mismatched(report, "2")
            if mismatched:
                shown = ", ".join(mismatched[:3])
                raise RestoreFailed(f"files put back to the base commit changed again: {shown}")
        if self.then is not None:
            self.then.check(report)


def install_tests(
    sandbox: Sandbox,
    spec: InstanceSpec,
    at_base: set[str],
    restored: set[str],
    then: Preparation | None = None,
) -> None:
    """Put the test patch's files and ``restored`` back to the base commit, verify that
    they match it, apply the test patch, and verify again every path the harness put back
    that the test patch leaves alone: in one sandbox entry, which also makes ``then``
    (see :func:`prepare`) once all of that went well.

    Raises :class:`RestoreFailed` (a mismatch: tampering) or :class:`TestPatchFailed`, and
    what :func:`prepare` raises."""
    install = TestInstall(spec, at_base, restored, then)
    script = install.script
    report = run_phase(
        sandbox, "install", script.body, [spec.base_commit], script.lists, script.files
    )
    install.check(report)


def test_files(sandbox: Sandbox, spec: InstanceSpec) -> dict[str, str]:
    """The texts of the files that may hold F2P tests, as the test patch left them."""
    texts: dict[str, str] = {}
    for path in test_file_candidates(spec.parser, spec.f2p, spec.test_patch_files):
        try:
            texts[path] = sandbox.read_file(f"{sandbox.workdir}/{path}").decode("utf-8")
        except (OSError, SandboxError, UnicodeDecodeError):
            continue
    return texts


def arm_tests(
    sandbox: Sandbox,
    spec: InstanceSpec,
    rng: random.Random,
    exclude: frozenset[tuple[str, int]] = frozenset(),
) -> Arming:
    """Arm the F2P tests for the canary run (read from this sandbox's files)."""
    return arm(test_files(sandbox, spec), list(spec.f2p), rng, exclude)


def write_test_files(sandbox: Sandbox, texts: dict[str, str]) -> None:
    """Write the armed files (the canary run), or the same files unchanged (the graded
    run), the same way: so the two checkouts differ in the inverted assertions alone."""
    for path, text in texts.items():
        sandbox.write_file(f"{sandbox.workdir}/{path}", text)


_PREPARE = r"""
readlist targets; pb_i=0; : > "$pb_dir/write.out"
for p in ${L[@]+"${L[@]}"}; do
  if ! cat -- "$pb_dir/text.$pb_i" > "$p" 2>> "$pb_dir/write.out"; then
    pb_record write 1 "$pb_dir/write.out"; exit 0
  fi
  pb_i=$((pb_i + 1))
done
pb_record write 0 "$pb_dir/write.out"
if [ -f "$pb_dir/activate.sh" ]; then run activate bash "$pb_dir/activate.sh" || exit 0; fi
run clear bash -c __CLEAR_BYTECODE__
readlist folders; run folders mkdir -p -- . ${L[@]+"${L[@]}"} || exit 0
for d in "${pb_dir%/*}"/polybench-phase-*; do
  if [ "$d" != "$pb_dir" ]; then rm -rf -- "$d"; fi
done
rm -f -- "$pb_dir"/*.list "$pb_dir"/text.* "$pb_dir/activate.sh"
""".replace("__CLEAR_BYTECODE__", shlex.quote(_CLEAR_BYTECODE))


@dataclass(frozen=True)
class Preparation:
    """The inputs of the last step before the tests run (see :func:`prepare`)."""

    lists: dict[str, list[str]]
    files: dict[str, str]

    def check(self, report: PhaseReport) -> None:
        """Raise what went wrong in the step, as :func:`prepare` says."""
        written = report.step("write")
        if written.code != 0:
            raise SandboxError(f"writing the test files failed: {written.text.strip()[:500]}")
        if "activate.sh" in self.files:
            done = report.step("activate")
            if done.code != 0:
                raise EnvironmentSetupError(
                    f"could not activate the environment: {done.text.strip()}"
                )
        report.step("clear")
        report.ok("folders")


def preparation(
    ready: ReadySandbox, texts: dict[str, str] | None = None, folders: tuple[str, ...] = ()
) -> Preparation:
    """What :func:`prepare` does, to be done on its own or after :func:`install_tests`."""
    sandbox = ready.sandbox
    files: dict[str, str] = {}
    targets = []
    for index, (path, text) in enumerate((texts or {}).items()):
        files[f"text.{index}"] = text
        targets.append(f"{sandbox.workdir}/{path}")
    activation = activation_text(sandbox, ready.environment)
    if activation is not None:
        files["activate.sh"] = activation
    return Preparation({"targets": targets, "folders": list(folders)}, files)


def prepare(
    ready: ReadySandbox, texts: dict[str, str] | None = None, folders: tuple[str, ...] = ()
) -> None:
    """In one sandbox entry: write ``texts`` over the checkout's files (see
    :func:`write_test_files`), put the environment in, clear stale bytecode (after every
    file change), make ``folders`` and remove what earlier steps left in the scratch
    directory (the test patch, path lists), so the tests see none of it."""
    inputs = preparation(ready, texts, folders)
    report = run_phase(ready.sandbox, "prepare", _PREPARE, (), inputs.lists, inputs.files)
    inputs.check(report)


def harness_env(ready: ReadySandbox, facts: PythonFacts | None) -> dict[str, str]:
    """Environment variables for the test command: the environment's own tools first."""
    env = ready.environment.exec_env(ready.sandbox.workdir)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["NODE_OPTIONS"] = ""
    if facts is not None and not facts.pytest_plugins:
        env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    return env


def harness_command(ready: ReadySandbox, spec: InstanceSpec) -> str:
    """The instance's test command as its environment runs it (an ``nvm.sh`` it sources
    is the environment's own on the local backend)."""
    return ready.environment.test_command(spec.test_command)


def run_tests(
    sandbox: Sandbox,
    spec: InstanceSpec,
    env: dict[str, str],
    timeout: float,
    command: str | None = None,
    files: Mapping[str, str] | None = None,
    on_start: Callable[[], None] | None = None,
) -> TestRun:
    """Run the eval script with stdout and stderr captured apart.

    ``command`` is the test command as the environment runs it (see
    :func:`harness_command`); the instance's own by default. ``files`` (path: text) are
    written with the script, in the same operation. ``on_start`` is called once the
    script is written, right before it starts (from then on code under test runs).

    A script that never printed its start marker did not get to run anything of the
    repository (the sandbox failed to start it: a namespace or process could not be made
    on a busy machine), so it runs once more; the log keeps a note of the failed start.
    """
    script_path = f"{sandbox.scratch_dir}/eval.sh"
    script = eval_script(sandbox.workdir, command if command is not None else spec.test_command)
    write_files(sandbox, {**(files or {}), script_path: script})
    if on_start is not None:
        on_start()
    argv = ["bash", script_path]
    executed = sandbox.exec(argv, timeout=timeout, env=env, streams=True)
    marked = split_log(executed.output)
    if not executed.timed_out and not marked.started:
        failed = executed
        executed = sandbox.exec(argv, timeout=timeout, env=env, streams=True)
        note = (
            f"[polybench: the test script did not start (exit {failed.exit_code}), so it ran "
            f"again; what the first start printed:]\n{failed.output}\n[polybench: end]\n"
        )
        executed = replace(executed, output=note + executed.output)
        marked = split_log(executed.output)
    stdout = executed.stdout if executed.stdout is not None else executed.output
    facts = RunFacts(
        timed_out=executed.timed_out,
        timeout_seconds=timeout,
        ended=marked.ended,
        marker_exit_code=marked.exit_code,
        process_exit_code=executed.exit_code,
        truncated_bytes=executed.truncated_bytes,
    )
    return TestRun(executed, marked, stdout, facts, script)


def probe_folders(sandbox: Sandbox) -> tuple[str, str]:
    """Where the probe's files go, and where it writes what it saw (made by
    :func:`prepare`)."""
    return f"{sandbox.scratch_dir}/probe", f"{sandbox.scratch_dir}/probe-out"


def run_probed(
    sandbox: Sandbox,
    spec: InstanceSpec,
    env: dict[str, str],
    timeout: float,
    command: str | None = None,
    on_start: Callable[[], None] | None = None,
) -> tuple[TestRun, ProbeCheck]:
    """Run the tests with the harness's probe in every Python and Node process, and read
    what it saw. When the log shows the probe itself failing, the tests run again without
    it and the probe is unavailable for this run (so it never changes a verdict).
    ``on_start`` is as :func:`run_tests` takes it."""
    probe_dir, out_dir = probe_folders(sandbox)
    sources = {f"{probe_dir}/{name}": text for name, text in probe_sources().items()}
    probed = probe_env(env, probe_dir, out_dir, sandbox.workdir)
    run = run_tests(sandbox, spec, probed, timeout, command, sources, on_start)
    broke = probe_broke_run(run.executed.output, probe_dir)
    if broke is not None:
        reason = f"the probe failed in this run ({broke}); the tests ran again without it"
        return run_tests(sandbox, spec, env, timeout, command), ProbeCheck(
            status=ProbeStatus.UNAVAILABLE, reason=reason
        )
    listed = sandbox.exec(["sh", "-c", 'cat "$0"/*.json 2>/dev/null', out_dir], timeout=60)
    rules = TestPathRules()
    test_files = set(spec.test_patch_files)

    def dataset_owned(path: str) -> bool:
        return (
            path in test_files
            or path.rsplit("/", 1)[-1] == "conftest.py"
            or rules.is_test(path, spec.language)
        )

    return run, read_probe(listed.output.splitlines(), sandbox.workdir, dataset_owned)


def read_results(spec: InstanceSpec, run: TestRun) -> ParseResult:
    """Parse a run's log: stdout alone for a structured report there, else both streams."""
    text = split_log(run.stdout).body if spec.report_stream == "stdout" else run.combined_body
    return get_parser(spec.parser)(text)


def judge(
    spec: InstanceSpec,
    run: TestRun,
    canaries: CanaryCheck | None = None,
    rule: Rule = Rule.STRICT,
    parsed: ParseResult | None = None,
    probe: ProbeCheck | None = None,
) -> Judgement:
    """Parse the run's log (unless ``parsed`` is its parse already) and apply every
    verdict rule, the canary run's answer included."""
    parsed = parsed if parsed is not None else read_results(spec, run)
    check = canaries or CanaryCheck()
    verdict = decide(
        list(spec.f2p), list(spec.p2p), run.facts, parsed, run.combined_body, check, rule, probe
    )
    return Judgement(verdict=verdict, parsed=parsed, canaries=check)
