"""The sandbox contract, checked on any backend: ``polybench backends check NAME``.

Every verdict rests on what a sandbox promises: the repository at the base commit and
nothing newer, files read and written only inside it, commands that end when their
time is up (with every process they started), output decoded the same way, no network
and no host secrets unless asked for. :func:`run_conformance` asks a backend's own
provider for a sandbox holding a real instance and checks each promise, so a backend
added by another package (``polybench.backends`` entry points) is held to the same
contract as the built-in ones before any run trusts it.

The boundary checks (:data:`BOUNDARY_CHECKS`) try what hostile code under test would: keep
or regain a capability, mount or unmount, write outside the checkout and scratch folder
(the environment among others) and find it again in the next sandbox, reach a socket of
this machine, see the harness's folders, the package's source or a git directory but
the checkout's own. A backend without isolation fails them: it is not a boundary.

Checks never assert how fast something was, only what happened.
"""

from __future__ import annotations

import os
import secrets
import shlex
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from polybench.dataset.models import Instance
from polybench.environments.backends.registry import build_provider, get_backend
from polybench.environments.backends.settings import ProviderSettings
from polybench.environments.boundary_checks import BOUNDARY_CHECKS
from polybench.environments.errors import ProvisionError, one_line
from polybench.environments.hiding import answer_paths
from polybench.environments.probe import CheckFailed, CheckSkipped, Probe, expect, run_ok
from polybench.sandbox.base import Sandbox, SandboxError

DEFAULT_INSTANCE = "polybench-mini__timespan-34"
"""The built-in instance the checks run on unless another is given (a small Python one)."""

CheckStatus = Literal["passed", "failed", "skipped"]


@dataclass(frozen=True)
class CheckResult:
    """The outcome of one check."""

    name: str
    status: CheckStatus
    detail: str = ""


@dataclass
class ConformanceReport:
    """Every check run on one backend."""

    backend: str
    instance_id: str
    isolation: str = ""
    problems: list[str] = field(default_factory=list)
    """What the backend's self-check reported (then no sandbox was made)."""
    checks: list[CheckResult] = field(default_factory=list)

    @property
    def failures(self) -> list[CheckResult]:
        """The checks that failed."""
        return [check for check in self.checks if check.status == "failed"]

    @property
    def ok(self) -> bool:
        """True when the backend is usable here and no check failed."""
        return not self.problems and bool(self.checks) and not self.failures

    @property
    def boundary_failures(self) -> list[CheckResult]:
        """The boundary checks that failed: what code under test could do here."""
        return [check for check in self.failures if check.name.startswith("boundary-")]


def check_protocol(probe: Probe) -> str:
    """The object is a :class:`Sandbox` with absolute paths and a named isolation."""
    box = probe.sandbox
    expect(isinstance(box, Sandbox), f"{type(box).__name__} does not implement Sandbox")
    expect(box.workdir.startswith("/"), f"workdir {box.workdir!r} is not absolute")
    expect(box.scratch_dir.startswith("/"), f"scratch_dir {box.scratch_dir!r} is not absolute")
    expect(not box.scratch_dir.startswith(box.workdir.rstrip("/") + "/"),
            "scratch_dir is inside the repository")  # fmt: skip
    expect(bool(box.isolation), "isolation is empty")
    return f"isolation {box.isolation}"


def check_checkout(probe: Probe) -> str:
    """Commands start in the repository, at the base commit, with a clean work tree."""
    workdir = shlex.quote(probe.sandbox.workdir)
    script = f"[ . -ef {workdir} ] && echo here; git rev-parse HEAD; git status --porcelain"
    lines = run_ok(probe, script).splitlines()
    expect(len(lines) >= 2, f"unexpected output {lines!r}")
    expect(lines[0] == "here", "commands do not start in the repository")
    expect(lines[1] == probe.instance.base_commit, f"HEAD is {lines[1]}")
    expect(lines[2:] == [], f"the work tree is not clean: {lines[2:][:5]}")
    return ""


def check_history(probe: Probe) -> str:
    """The repository holds no commit but the base commit and its ancestors (so no later
    commit, branch or tag can hand code under test the fix), and borrows no objects."""
    alternates = probe.sandbox.exec("test -s .git/objects/info/alternates", timeout=60)
    expect(alternates.exit_code != 0, "the repository borrows objects (.git alternates)")
    listed = run_ok(
        probe,
        "git cat-file --batch-all-objects --batch-check='%(objecttype) %(objectname)'"
        " | awk '$1 == \"commit\" {print $2}'",
    )
    present = set(listed.split())
    ancestors = set(run_ok(probe, ["git", "rev-list", probe.instance.base_commit]).split())
    later = sorted(present - ancestors)
    expect(not later, f"{len(later)} commit(s) beyond the base commit, e.g. {later[:3]}")
    return f"{len(present)} commit(s), none newer than the base"


def check_files(probe: Probe) -> str:
    """Files written are read back byte for byte and seen by commands; parents are made."""
    box = probe.sandbox
    box.write_file(f"{box.scratch_dir}/probe.sh", "echo from-script $PROBE\n")
    out = run_ok(probe, ["bash", f"{box.scratch_dir}/probe.sh"], env={"PROBE": "seen"})
    expect(out == "from-script seen\n", f"script printed {out!r}")
    binary = bytes(range(256))
    box.write_file(f"{box.workdir}/deep/new/probe.bin", binary)
    expect(box.read_file(f"{box.workdir}/deep/new/probe.bin") == binary, "bytes changed")
    size = run_ok(probe, "wc -c < deep/new/probe.bin").strip()
    expect(size == "256", f"commands see {size} bytes")
    run_ok(probe, "rm -rf deep")
    return ""


def check_file_mode(probe: Probe) -> str:
    """Replacing a repository file keeps its mode (an executable script stays executable)."""
    box = probe.sandbox
    run_ok(probe, "printf old > probe-run.sh && chmod 755 probe-run.sh")
    box.write_file(f"{box.workdir}/probe-run.sh", "new")
    out = run_ok(probe, "stat -c %a probe-run.sh; cat probe-run.sh; rm probe-run.sh")
    expect(out == "755\nnew", f"after replacing: {out!r}")
    return ""


def check_outside_paths(probe: Probe) -> str:
    """Paths outside the sandbox, and ``..`` that climbs out of it, are refused."""
    box = probe.sandbox
    for attempt in (
        lambda: box.read_file("/etc/passwd"),
        lambda: box.write_file(f"{box.workdir}/../../etc/polybench-escape", "x"),
        lambda: box.read_file(f"{box.workdir}/../../../etc/passwd"),
    ):
        try:
            attempt()
        except SandboxError:
            continue
        raise CheckFailed("a path outside the sandbox was not refused with SandboxError")
    return ""


def check_missing_file(probe: Probe) -> str:
    """Reading a file that does not exist raises FileNotFoundError."""
    try:
        probe.sandbox.read_file(f"{probe.sandbox.workdir}/polybench-no-such-file")
    except FileNotFoundError:
        return ""
    raise CheckFailed("reading a missing file did not raise FileNotFoundError")


def check_exit_and_output(probe: Probe) -> str:
    """Exit codes come back; stdout and stderr are interleaved as written."""
    result = probe.sandbox.exec("echo a; echo b >&2; echo c; exit 3", timeout=60)
    seen = (result.exit_code, result.output, result.timed_out, result.ok)
    expect(seen == (3, "a\nb\nc\n", False, False), f"got {seen!r}")
    return ""


def check_streams(probe: Probe) -> str:
    """With ``streams=True`` stdout and stderr are also kept apart."""
    result = probe.sandbox.exec("echo out; echo err >&2", timeout=60, streams=True)
    seen = (result.stdout, result.stderr)
    expect(seen == ("out\n", "err\n"), f"streams were {seen!r}")
    return ""


def check_argv_cwd_env(probe: Probe) -> str:
    """An argv list reaches the program unchanged; ``cwd`` and ``env`` are honoured."""
    box = probe.sandbox
    out = box.exec(["printf", "%s|", "a b", "$HOME", "'q'"], timeout=60).output
    expect(out == "a b|$HOME|'q'|", f"argv arrived as {out!r}")
    run_ok(probe, "mkdir -p probe-dir")
    inside = shlex.quote(f"{box.workdir}/probe-dir")
    here = run_ok(probe, f"[ . -ef {inside} ] && echo here", cwd=f"{box.workdir}/probe-dir")
    expect(here == "here\n", "cwd was not honoured")
    run_ok(probe, "rmdir probe-dir")
    value = run_ok(probe, 'printf %s "$PROBE_VALUE"', env={"PROBE_VALUE": "x y"})
    expect(value == "x y", f"env value arrived as {value!r}")
    return ""


def check_host_environment(probe: Probe) -> str:
    """A variable of the host process (an API key, say) does not reach commands."""
    name = "POLYBENCH_CONFORMANCE_SECRET"
    token = secrets.token_hex(8)
    before = os.environ.get(name)
    os.environ[name] = token
    try:
        seen = probe.sandbox.exec("env", timeout=60).output
    finally:
        if before is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = before
    expect(token not in seen, f"{name} of the host reached the command")
    return ""


def check_timeout(probe: Probe) -> str:
    """A command past its timeout is killed with every process it started, and the
    sandbox stays usable."""
    box = probe.sandbox
    late = f"{box.scratch_dir}/late-timeout"
    result = box.exec(f"(sleep 3; echo late > {late}) & sleep 600", timeout=1)
    expect(result.timed_out and result.exit_code is None,
            f"timed_out={result.timed_out}, exit_code={result.exit_code}")  # fmt: skip
    time.sleep(4)
    expect(_missing(box, late), "a process of the timed-out command kept running")
    expect(box.exec("echo usable", timeout=60).output == "usable\n", "sandbox unusable")
    return ""


def check_orphans(probe: Probe) -> str:
    """Processes a command leaves in the background die when it returns."""
    box = probe.sandbox
    late = f"{box.scratch_dir}/late-orphan"
    result = box.exec(f"(sleep 3; echo late > {late}) >/dev/null 2>&1 & echo started", timeout=60)
    expect(result.ok and result.output == "started\n", f"got {result.output!r}")
    time.sleep(4)
    expect(_missing(box, late), "a background process outlived its command")
    return ""


def _missing(box: Sandbox, path: str) -> bool:
    try:
        box.read_file(path)
    except FileNotFoundError:
        return True
    return False


def check_invalid_utf8(probe: Probe) -> str:
    """Bytes that are not UTF-8 become replacement characters, not an exception."""
    out = probe.sandbox.exec(["printf", "\\377\\376ok"], timeout=60).output
    expect(out.endswith("ok") and "\ufffd" in out, f"got {out!r}")
    return ""


def check_network(probe: Probe) -> str:
    """Without ``allow_network`` commands see no network interface but loopback."""
    if probe.allow_network:
        raise CheckSkipped("the network was allowed")
    if probe.sandbox.isolation == "none":
        raise CheckSkipped("isolation 'none' cannot take the network away")
    table = run_ok(probe, "cat /proc/net/dev")
    names = [line.split(":")[0].strip() for line in table.splitlines() if ":" in line]
    others = [name for name in names if name != "lo"]
    expect(not others, f"network interfaces reachable: {others}")
    return ""


CHECKS: dict[str, Callable[[Probe], str]] = {
    "protocol": check_protocol,
    "checkout": check_checkout,
    "history": check_history,
    "files": check_files,
    "file-mode": check_file_mode,
    "outside-paths": check_outside_paths,
    "missing-file": check_missing_file,
    "exit-and-output": check_exit_and_output,
    "streams": check_streams,
    "argv-cwd-env": check_argv_cwd_env,
    "host-environment": check_host_environment,
    "timeout": check_timeout,
    "orphans": check_orphans,
    "invalid-utf8": check_invalid_utf8,
    "network": check_network,
}
"""The contract's checks, in the order they run; then :data:`BOUNDARY_CHECKS`; ``cleanup``
runs last, on its own."""

ALL_CHECKS: dict[str, Callable[[Probe], str]] = {**CHECKS, **BOUNDARY_CHECKS}
"""Every check, contract and boundary, in the order they run."""


def _run_check(name: str, check: Callable[[Probe], str], probe: Probe) -> CheckResult:
    try:
        detail = check(probe)
    except CheckSkipped as skipped:
        return CheckResult(name, "skipped", str(skipped))
    except Exception as exc:  # a broken backend may raise anything; that is the finding
        return CheckResult(name, "failed", f"{type(exc).__name__}: {exc}")
    return CheckResult(name, "passed", detail)


def _check_cleanup(box: Sandbox) -> CheckResult:
    """Cleanup can be called twice, and a cleaned-up sandbox refuses commands."""
    try:
        box.cleanup()
        box.cleanup()
    except Exception as exc:
        return CheckResult("cleanup", "failed", f"{type(exc).__name__}: {exc}")
    try:
        box.exec("true", timeout=30)
    except SandboxError:
        return CheckResult("cleanup", "passed")
    except Exception as exc:
        return CheckResult("cleanup", "failed", f"raised {type(exc).__name__}, not SandboxError")
    return CheckResult("cleanup", "failed", "a command ran after cleanup")


def default_instance() -> Instance:
    """The built-in instance the checks use by default (:data:`DEFAULT_INSTANCE`)."""
    from polybench.dataset.builtin import load_builtin

    return next(i for i in load_builtin("mini") if i.instance_id == DEFAULT_INSTANCE)


def run_conformance(
    settings: ProviderSettings,
    instance: Instance | None = None,
    only: list[str] | None = None,
) -> ConformanceReport:
    """Check the backend ``settings.backend`` names against the sandbox contract.

    The backend's self-check runs first; when it reports problems no sandbox is made.
    Otherwise the backend's provider makes a sandbox for ``instance`` (default: the
    built-in :data:`DEFAULT_INSTANCE`, whose repositories are made when
    ``settings.repo_dir`` is unset) and each check of :data:`ALL_CHECKS` (or those named
    in ``only``) runs on it, then cleanup is checked.
    """
    if instance is None:
        instance = default_instance()
        if settings.repo_dir is None:
            from polybench.dataset.builtin import repo_dir_for

            settings = settings.model_copy(update={"repo_dir": repo_dir_for("mini", None)})
    report = ConformanceReport(settings.backend, instance.instance_id)
    unknown = sorted(set(only or []) - set(ALL_CHECKS))
    if unknown:
        raise ValueError(f"unknown check(s) {unknown}; known: {', '.join(ALL_CHECKS)}")
    report.problems = get_backend(settings.backend).self_check(settings)
    if report.problems:
        return report
    with tempfile.TemporaryDirectory(prefix="polybench-conformance-") as scratch:
        work_dir = settings.work_dir or Path(scratch) / "sandboxes"
        settings = settings.model_copy(update={"work_dir": work_dir})
        if not settings.hide:
            hidden = answer_paths(None, work_dir.parent, settings.repo_dir)
            settings = settings.model_copy(update={"hide": hidden})
        provider = build_provider(settings)
        try:
            ready = provider.provide(instance)
        except ProvisionError as exc:
            report.problems.append(f"no sandbox for {instance.instance_id}: {exc.summary()}")
            return report
        except SandboxError as exc:
            report.problems.append(f"no sandbox for {instance.instance_id}: {one_line(str(exc))}")
            return report
        box = ready.sandbox
        report.isolation = box.isolation
        probe = Probe(box, instance, settings.allow_network, ready, provider, settings)
        try:
            for name, check in ALL_CHECKS.items():
                if only is None or name in only:
                    report.checks.append(_run_check(name, check, probe))
        finally:
            report.checks.append(_check_cleanup(box))
    return report
