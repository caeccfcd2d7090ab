"""The run-time probe: what happened to the test frameworks' own functions during a run.

Flags read a patch's text; one level of indirection (a computed module name,
``setattr``, an alias of the global object) hides it from them. The probe looks at the
effect instead. The harness puts two files of its own in every test run
(:mod:`polybench.grading.probe_files`): a ``sitecustomize`` for Python processes and a
preloaded module for Node processes. Each notes the frameworks' functions before code
under test runs (pytest's runner, reports and hook calls, unittest's case, result and
runner; node:assert, mocha's runner, each jest test context's globals, ``expect`` and
matchers) and, running last, writes which of
them were replaced by the end, and from which file where the language can tell.

A replacement made by the environment (a plugin installed there) or by the dataset's own
tests is not counted. One made by the repository's other code, or by code whose file
cannot be told, is evidence of tampering, as a canary that passed is. A probe that wrote
nothing (a process that never exits normally, a test command that sets its own
``PYTHONPATH``) says nothing. When the log shows the probe itself failing, the harness
runs the tests again without it (see :func:`probe_broke_run`), so the probe can never
cost an honest patch its verdict.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from enum import Enum
from importlib import resources

from pydantic import BaseModel

PROBE_FILES = ("sitecustomize.py", "probe.cjs")


class ProbeStatus(str, Enum):
    """Whether the probe said anything about a run."""

    READ = "read"
    """At least one process wrote its record."""
    SILENT = "silent"
    """No process wrote a record (nothing to say, or it could not run)."""
    UNAVAILABLE = "unavailable"
    """The probe broke the run; the tests ran again without it."""
    OFF = "off"


class ProbeFinding(BaseModel):
    """A framework function replaced during the run (or a hook added), and by which file."""

    name: str
    by: str | None = None
    kind: str = "replaced"


class ProbeCheck(BaseModel):
    """What the probe saw in one instance's runs."""

    status: ProbeStatus = ProbeStatus.OFF
    reason: str | None = None
    processes: int = 0
    findings: list[ProbeFinding] = []

    @property
    def tampered(self) -> bool:
        """True when a framework function was replaced by code the harness counts."""
        return bool(self.findings)

    def describe(self) -> str:
        """The findings in one line, for the verdict's reason."""
        shown = ", ".join(
            f"{f.name} ({'added' if f.kind == 'hook' else 'replaced'} by {f.by or 'unknown code'})"
            for f in self.findings[:3]
        )
        more = f" and {len(self.findings) - 3} more" if len(self.findings) > 3 else ""
        return f"the test framework's own functions were changed at run time: {shown}{more}"


def probe_sources() -> dict[str, str]:
    """The probe's files, by name."""
    folder = resources.files("polybench.grading") / "probe_files"
    return {name: (folder / name).read_text(encoding="utf-8") for name in PROBE_FILES}


def probe_env(env: dict[str, str], probe_dir: str, out_dir: str, workdir: str) -> dict[str, str]:
    """``env`` with the probe loaded into every Python and Node process."""
    python_path = env.get("PYTHONPATH", "")
    return {
        **env,
        "PYTHONPATH": f"{probe_dir}:{python_path}" if python_path else probe_dir,
        "NODE_OPTIONS": f"--require {probe_dir}/probe.cjs",
        "POLYBENCH_PROBE_OUT": out_dir,
        "POLYBENCH_PROBE_ROOT": workdir,
    }


def read_probe(
    records: Iterable[str], workdir: str, dataset_owned: Callable[[str], bool]
) -> ProbeCheck:
    """The findings of the probe's records (JSON texts). A replacement by a file outside
    the repository (the environment) or by a file ``dataset_owned`` accepts (its tests,
    ``conftest.py``) is left out; the rest are findings."""
    check = ProbeCheck(status=ProbeStatus.SILENT)
    prefix = workdir.rstrip("/") + "/"
    for text in records:
        try:
            record = json.loads(text)
            entries = [(e, "replaced") for e in record.get("replaced", [])]
            entries += [(e, "hook") for e in record.get("hooks", [])]
        except (ValueError, AttributeError, TypeError):
            continue
        check.status = ProbeStatus.READ
        check.processes += 1
        for entry, kind in entries:
            by = entry.get("by") if isinstance(entry, dict) else None
            name = str(entry.get("name", "?")) if isinstance(entry, dict) else "?"
            if isinstance(by, str):
                if not by.startswith(prefix):
                    continue  # the environment's own code (a plugin, the framework)
                if dataset_owned(by[len(prefix) :]):
                    continue
                by = by[len(prefix) :]
            finding = ProbeFinding(name=name, by=by if isinstance(by, str) else None, kind=kind)
            if finding not in check.findings:
                check.findings.append(finding)
    return check


_NODE_FRAME = re.compile(r"^\s+at ")
_PYTHON_FRAME = re.compile(r'^\s*File "')
_PYTHON_ERROR = re.compile(r"^[A-Za-z_][\w.]*(?:Error|Exception|Warning)\b")


def probe_broke_run(log: str, probe_dir: str) -> str | None:
    """The log line that shows the probe itself failing: the frame an error was raised in
    is one of its files (the first ``at`` line of a Node stack, the last ``File`` line of
    a Python traceback), or the interpreter could not load it. A probe frame further down
    a stack (it wraps module loading) blames nothing. None when nothing blames it."""
    files = tuple(f"{probe_dir.rstrip('/')}/{name}" for name in PROBE_FILES)
    last_python_frame: str | None = None
    previous = ""
    for line in log.splitlines():
        if "Error in sitecustomize" in line or f"Cannot find module '{probe_dir}" in line:
            return line.strip()[:300]
        top_node_frame = _NODE_FRAME.match(line) and not _NODE_FRAME.match(previous)
        if top_node_frame and any(name in line for name in files):
            return line.strip()[:300]
        if _PYTHON_FRAME.match(line):
            last_python_frame = line
        elif _PYTHON_ERROR.match(line) and last_python_frame is not None:
            if any(name in last_python_frame for name in files):
                return last_python_frame.strip()[:300]
            last_python_frame = None
        previous = line
    return None
