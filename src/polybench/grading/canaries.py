"""Canaries: tests the harness plants next to the real ones, to catch a tampered framework.

Before the test command runs, a few ordinary-looking tests are written into the files that
hold the instance's fail-to-pass tests (see :mod:`polybench.grading.canary_source`): at
least one that must fail and one that must pass, with names made of the file's own words
and chosen afresh every run. After the run, each canary must have ended as planted. A
must-fail canary that passed, a canary that vanished while the real test next to it was
reported, or a must-pass canary that failed while its neighbour passed, can only mean the
framework or its report was tampered with: code under test patched the runner or the
assertions, a forged report replaced the real one, and so on. This is the layer that
catches what no other rule names.

Canary ids never leave this module's check: they are removed from the parsed results
before anything is graded, recorded or written in the official format.
"""

from __future__ import annotations

import dataclasses
import json
import random
import re
import shlex
from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum
from pathlib import PurePosixPath

from pydantic import BaseModel

from polybench.grading.canary_source import PlantedTest, plant
from polybench.grading.parsers.base import FAILING, ParseResult, TestStatus

MAX_FILES = 2
_CODE_SUFFIXES = (".py", ".java", ".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts")
_TESTBED = "/testbed/"

_STOP_AT_FIRST_FAILURE = frozenset({"-x", "--exitfirst", "--failfast", "-f", "--bail", "-b"})
_STOP_PREFIXES = ("--maxfail", "--bail=", "-Dsurefire.skipAfterFailureCount=")
_NAME_FLAGS = frozenset(
    {"-t", "--testNamePattern", "--grep", "-g", "--fgrep", "--test-name-pattern", "-k"}
)
_NAME_FLAG_PREFIXES = ("--testNamePattern=", "--grep=", "--fgrep=", "--test-name-pattern=")
_UNITTEST_METHOD = re.compile(r"^[\w.]*\.[A-Z]\w*\.test\w*$")
_MAVEN_KEEP_GOING = re.compile(
    r"maven\.test\.failure\.ignore=true|testFailureIgnore=true|(?:^|\s)(?:-fae|--fail-at-end"
    r"|-fn|--fail-never)(?=\s|$)"
)


class CanaryOutcome(str, Enum):
    """How one canary ended."""

    AS_PLANTED = "as_planted"
    WRONG = "wrong"
    """It ended the other way round (or was skipped while its neighbour ran)."""
    MISSING = "missing"
    """It is not in the results although the real test next to it is."""
    NOT_RUN = "not_run"
    """Neither it nor its neighbour is in the results: the file did not run."""


@dataclass(frozen=True)
class Canary:
    """One planted canary (kept by the harness only; never written into results)."""

    file: str
    name: str
    expect: str
    sibling: str


class CanaryRecord(BaseModel):
    """What ``result.json`` says of one canary: where, what it had to do, how it ended."""

    file: str
    expect: str
    outcome: CanaryOutcome
    observed: str


class CanaryCheck(BaseModel):
    """Every canary's outcome, and whether they prove tampering."""

    planted: int = 0
    not_planted_reason: str | None = None
    records: list[CanaryRecord] = []

    @property
    def tampered(self) -> bool:
        """True when a canary did not end as planted although its file ran."""
        return any(r.outcome in (CanaryOutcome.WRONG, CanaryOutcome.MISSING) for r in self.records)


def test_file_candidates(
    parser: str, f2p: Iterable[str], test_patch_files: Iterable[str]
) -> list[str]:
    """Files that hold F2P tests, most certain first (from the ids when they name files)."""
    found: list[str] = []
    patch_files = [p for p in test_patch_files if p.endswith(_CODE_SUFFIXES)]
    for test_id in f2p:
        path = _file_of_id(parser, test_id, patch_files)
        if path is not None and path not in found:
            found.append(path)
    for path in patch_files:
        if path not in found:
            found.append(path)
    return found


def _file_of_id(parser: str, test_id: str, patch_files: list[str]) -> str | None:
    if "->" in test_id and test_id.startswith(_TESTBED):
        return test_id.split("->", 1)[0][len(_TESTBED) :]
    if ".py:" in test_id:
        return test_id.split(":", 1)[0]
    if re.match(r"^[\w.]+:\w+:", test_id):  # unittest: module.Class:test:params
        module = test_id.split(":", 1)[0].rsplit(".", 1)[0]
        candidate = module.replace(".", "/") + ".py"
        return candidate
    if parser.startswith("junit") or re.match(r"^[\w.$]+\.\w+(?:\(.*\))?(?:\[.*\])?$", test_id):
        head = re.sub(r"(?:\(.*\))?(?:\[.*\])?$", "", test_id)
        class_path = head.rsplit(".", 1)[0].split("$", 1)[0].replace(".", "/")
        for path in patch_files:
            if path.endswith(f"/{class_path}.java") or path == f"{class_path}.java":
                return path
    return None


def leaf_names(f2p: Iterable[str]) -> list[str]:
    """The innermost name of each test id (what the test file itself spells)."""
    names = []
    for test_id in f2p:
        text = test_id.split("->", 1)[-1]
        text = re.sub(r"\[.*\]$", "", text)
        text = re.sub(r"\(.*\)$", "", text)
        if ":" in text and ".py:" not in test_id:
            parts = [p for p in text.split(":") if p]
            text = parts[1] if len(parts) > 1 else parts[0] if parts else text
        else:
            text = re.split(r"[:.]", text)[-1] if ".py:" in test_id or "." in text else text
        names.append(text.strip())
    return [n for n in names if n]


def _words(test_command: str) -> list[str]:
    try:
        return shlex.split(test_command)
    except ValueError:
        return test_command.split()


def skip_reason(test_command: str) -> str | None:
    """Why canaries cannot be planted for this command (None when they can): a command
    that picks tests by name would not run them."""
    words = _words(test_command)
    after_pytest = False
    after_unittest = False
    for word in words:
        name = PurePosixPath(word).name
        if name in ("pytest", "py.test") or name.endswith("pytest"):
            after_pytest = True
        if word == "unittest":
            after_unittest = True
        selects = (
            (word in _NAME_FLAGS and (word != "-k" or after_pytest))
            or (word == "-m" and after_pytest)
            or word.startswith(_NAME_FLAG_PREFIXES)
            or ("::" in word and ".py" in word)
            or (word.startswith("-Dtest=") and "#" in word)
            or (after_unittest and _UNITTEST_METHOD.match(word) is not None)
        )
        if selects:
            return "the test command selects tests by name, so planted tests would not run"
    return None


def must_fail_allowed(test_command: str) -> bool:
    """False when one failing test would stop later tests (``-x``, ``--bail``, Maven
    without ``-Dmaven.test.failure.ignore``): then only must-pass canaries are planted."""
    words = _words(test_command)
    if any(w in _STOP_AT_FIRST_FAILURE or w.startswith(_STOP_PREFIXES) for w in words):
        return False
    uses_build_tool = any(
        PurePosixPath(w).name in ("mvn", "mvnw", "gradle", "gradlew") for w in words
    )
    return not uses_build_tool or bool(_MAVEN_KEEP_GOING.search(test_command))


def plant_canaries(
    files: dict[str, str],
    f2p: list[str],
    test_command: str,
    unittest_style: bool,
    rng: random.Random,
) -> tuple[dict[str, str], list[Canary]]:
    """Plant canaries into up to :data:`MAX_FILES` of ``files`` (path -> text, best first).

    Returns the new texts of the files that changed and the canaries planted.
    """
    # Two must-fail canaries: code that turns each failure into a pass only now and then
    # (hoping to spare the canaries) must spare both, which makes such a gamble pay off
    # far less often than against one.
    expectations = ["fail", "fail", "pass"] if must_fail_allowed(test_command) else ["pass", "pass"]
    leaves = leaf_names(f2p)
    changed: dict[str, str] = {}
    canaries: list[Canary] = []
    for path, text in files.items():
        if len(changed) >= MAX_FILES:
            break
        if leaves and not any(_mentions(text, leaf) for leaf in leaves):
            continue
        rng.shuffle(expectations)
        new_text, planted = plant(path, text, list(expectations), rng, unittest_style, leaves)
        if not planted:
            continue
        changed[path] = new_text
        canaries += [_canary(path, test) for test in planted]
    return changed, canaries


def _mentions(text: str, leaf: str) -> bool:
    """True when ``text`` spells the test name ``leaf`` or its tail (a full title minus the
    names of the groups around the test)."""
    if leaf in text:
        return True
    words = leaf.split()
    return any(" ".join(words[start:]) in text for start in range(1, max(1, len(words) - 1)))


def canaries_json(canaries: list[Canary]) -> str:
    """The planted canaries as JSON (kept beside a run's logs, to regrade them later)."""
    return json.dumps([dataclasses.asdict(c) for c in canaries], indent=1)


def canaries_from_json(text: str) -> list[Canary]:
    """The canaries :func:`canaries_json` wrote (an empty list for anything else)."""
    try:
        data = json.loads(text)
        return [Canary(**item) for item in data]
    except (ValueError, TypeError):
        return []


def _canary(path: str, test: PlantedTest) -> Canary:
    return Canary(path, test.name, test.expect, test.sibling)


def _matches(test_id: str, name: str) -> bool:
    if test_id == name:
        return True
    for ending in (name, f"{name}:", f"{name}()"):
        if test_id.endswith(ending):
            before = test_id[: len(test_id) - len(ending)]
            if not before or before[-1] in " :.>/$#":
                return True
    # One case of a parametrized canary (pytest: ``name[case]``).
    start = test_id.rfind(f"{name}[")
    if start >= 0 and test_id.endswith("]"):
        before = test_id[:start]
        return not before or before[-1] in " :.>/$#"
    return False


def _status_of(name: str, statuses: dict[str, TestStatus]) -> tuple[TestStatus | None, set[str]]:
    ids = {test_id for test_id in statuses if _matches(test_id, name)}
    if not ids:
        return None, ids
    found = [statuses[i] for i in ids]
    for status in (TestStatus.FAILED, TestStatus.ERRORED, TestStatus.SKIPPED, TestStatus.XFAIL):
        if status in found:
            return status, ids
    return TestStatus.PASSED, ids


def check_canaries(
    canaries: list[Canary], statuses: dict[str, TestStatus]
) -> tuple[list[CanaryRecord], set[str]]:
    """How each canary ended, and every result id that belongs to a canary."""
    records: list[CanaryRecord] = []
    canary_ids: set[str] = set()
    for canary in canaries:
        status, ids = _status_of(canary.name, statuses)
        canary_ids |= ids
        sibling, _ = _status_of(canary.sibling, statuses)
        outcome = _outcome(canary.expect, status, sibling)
        observed = status.value if status is not None else "absent"
        records.append(
            CanaryRecord(file=canary.file, expect=canary.expect, outcome=outcome, observed=observed)
        )
    return records, canary_ids


def take_out_canaries(canaries: list[Canary], parsed: ParseResult) -> list[CanaryRecord]:
    """How each canary ended; then every canary id is taken out of ``parsed``. The
    failures they made stay counted (as failures without a test id), since the
    framework's own summary counted them: one per failing case of a parametrized one."""
    records, canary_ids = check_canaries(canaries, parsed.statuses)
    failing = sum(parsed.statuses.get(test_id) in FAILING for test_id in canary_ids)
    for canary_id in canary_ids:
        parsed.discard(canary_id)
    parsed.unnamed_failures += failing
    return records


def _outcome(expect: str, status: TestStatus | None, sibling: TestStatus | None) -> CanaryOutcome:
    if status is None:
        return CanaryOutcome.NOT_RUN if sibling is None else CanaryOutcome.MISSING
    if status is TestStatus.SKIPPED and sibling in (None, TestStatus.SKIPPED):
        return CanaryOutcome.NOT_RUN
    if expect == "fail":
        return CanaryOutcome.AS_PLANTED if status in FAILING else CanaryOutcome.WRONG
    if status is TestStatus.PASSED:
        return CanaryOutcome.AS_PLANTED
    if sibling is TestStatus.PASSED or status in (TestStatus.SKIPPED, TestStatus.XFAIL):
        return CanaryOutcome.WRONG
    # Both failed: the file broke for everything in it (an import error, a failing
    # fixture): not a sign of tampering, and the instance is not resolved anyway.
    return CanaryOutcome.AS_PLANTED
