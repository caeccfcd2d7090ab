"""Reading a saved test log as the grader read it: the same stream, the same section.

A test run keeps three logs: the merged output (``test_output.txt``; validation's
``<phase>-<n>.log``), stdout alone (``test_stdout.txt``; ``<phase>-<n>.stdout.txt``) and
stderr alone. The grader parses the part between the harness's markers, of stdout alone
when the parser reads a structured report that the framework writes there (jest
``--json``, mocha and vitest JSON), else of the merged output; it then takes out the
canary tests it planted. The merged output of such a run can read differently: stderr
lines inside the report make it unreadable, and a report a test printed to stderr is
there too. :func:`read_instance_folder` and :func:`read_log_file` give the text the
grader parsed, or say why they cannot.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from polybench.runner.spec import STDOUT_PARSERS
from polybench.sandbox.eval_script import split_log

MERGED_LOG = "test_output.txt"
STDOUT_LOG = "test_stdout.txt"
STDERR_LOG = "test_stderr.txt"
RESULT = "result.json"
_VALIDATION_LOG = re.compile(r"(?:before|after)-\d+\.log")


class SavedLogError(ValueError):
    """The folder or file cannot be read as a saved test run."""


@dataclass
class SavedReading:
    """The text to parse, where it came from, and what the reader should know."""

    text: str
    source: Path
    parser: str | None = None
    graded_tests: int | None = None
    """How many tests polybench graded from this run (``tests_in_log``), when known."""
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def reads_stdout(parser: str) -> bool:
    """True when the grader reads ``parser``'s report from stdout alone."""
    return parser in STDOUT_PARSERS


def graded_section(merged: str, stdout: str | None, parser: str) -> str:
    """The text the grader parses: the marked section of stdout for a parser that reads
    stdout (of the merged log when stdout was not kept), else of the merged log."""
    if reads_stdout(parser) and stdout is not None:
        return split_log(stdout).body
    return split_log(merged).body


def stdout_sibling(path: Path) -> Path | None:
    """Where the stdout of the merged log ``path`` was kept, when it is one (an eval's
    ``test_output.txt``, a validation's ``<phase>-<n>.log``)."""
    if path.name == MERGED_LOG:
        return path.with_name(STDOUT_LOG)
    if _VALIDATION_LOG.fullmatch(path.name):
        return path.with_name(path.stem + ".stdout.txt")
    return None


def _is_merged(path: Path) -> bool:
    sibling = stdout_sibling(path)
    return sibling is not None and sibling.is_file()


def read_instance_folder(folder: Path) -> SavedReading:
    """What the grader parsed in an instance folder of a run (``instances/<id>``), with
    its parser, from ``result.json`` and the logs beside it (the graded run holds only
    the repository's own tests: canaries run apart)."""
    result_path = folder / RESULT
    try:
        result = json.loads(result_path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise SavedLogError(f"{folder} holds no readable {RESULT}: {exc}") from exc
    parser = result.get("parser") if isinstance(result, dict) else None
    if not isinstance(parser, str) or not parser:
        raise SavedLogError(f"{result_path} names no parser: the tests did not run")
    merged_path = folder / MERGED_LOG
    if not merged_path.is_file():
        raise SavedLogError(f"{folder} holds no {MERGED_LOG}: the tests did not run")
    merged = merged_path.read_text(encoding="utf-8", errors="replace")
    stdout_path = folder / STDOUT_LOG
    stdout = (
        stdout_path.read_text(encoding="utf-8", errors="replace") if stdout_path.is_file() else None
    )
    reading = SavedReading(
        text=graded_section(merged, stdout, parser),
        source=merged_path,
        parser=parser,
    )
    if reads_stdout(parser):
        if stdout is not None:
            reading.source = stdout_path
            reading.notes.append(
                f"read {STDOUT_LOG}: polybench reads the {parser} report from stdout alone"
            )
        else:
            reading.warnings.append(
                f"no {STDOUT_LOG} in {folder}: the {parser} report is read from the merged "
                "log, where stderr can break it or add to it; polybench's answer may differ"
            )
    graded = result.get("tests_in_log")
    reading.graded_tests = graded if isinstance(graded, int) else None
    return reading


def read_log_file(path: Path, raw: str, parser: str) -> SavedReading:
    """What the grader parsed of the log file ``path`` (text ``raw``) with ``parser``:
    its marked section, and, for a parser that reads stdout, the stdout kept beside a
    merged log instead of the merged log."""
    return _read_log_file(path, raw, parser)


def _read_log_file(path: Path, raw: str, parser: str) -> SavedReading:
    if reads_stdout(parser) and _is_merged(path):
        sibling = stdout_sibling(path)
        assert sibling is not None
        stdout = sibling.read_text(encoding="utf-8", errors="replace")
        return SavedReading(
            text=split_log(stdout).body,
            source=sibling,
            parser=parser,
            notes=[
                f"read {sibling.name} beside {path.name}: polybench reads the {parser} "
                "report from stdout alone"
            ],
        )
    reading = SavedReading(text=split_log(raw).body, source=path, parser=parser)
    if reads_stdout(parser) and stdout_sibling(path) is not None:
        reading.warnings.append(
            f"{path.name} merges stdout and stderr, and no stdout was kept beside it: "
            f"polybench reads the {parser} report from stdout alone, so its answer may "
            "differ (stderr lines can break the report, and a report printed to stderr "
            "is read too)"
        )
    return reading
