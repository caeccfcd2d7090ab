"""Canaries: a second run of the same tests, with every fail-to-pass test armed to fail.

The graded run is the repository's own tests, exactly as the official harness runs them;
nothing is planted there. The canary run is separate: a fresh sandbox, the same patch
admitted the same way, the same test patch and the same command, but every fail-to-pass
(F2P) test the harness can arm has one of its own assertions inverted
(:mod:`polybench.grading.arming`). An armed test keeps its name, file, position, line
numbers, count and calls, so code under test sees the same tests in both runs. Whichever
run comes first is chosen at random, and nothing is carried from one to the other.

When the graded run resolves, every armed test must fail in the canary run: a patch that
really fixes it reaches the inverted assertion. An armed test that passed means a failure
was turned into a pass (a patched framework, a forged report): the instance is not
resolved. Code that cannot tell the two runs apart can only gamble: whatever it does, the
chance that it turns every F2P failure of the graded run and none of the canary run is at
most ``p(1-p) <= 1/4`` (:func:`detection_probability`), and tampering that does not
gamble is always caught.

What the harness adds must never cost an honest patch its verdict. The canary run cannot:
the verdict is the graded run's. When the armed tests break the canary run's build (the
log points at an armed line: a lint rule, ``-Werror``, a missing import), the run is
retried without the tests it points at, and when nothing is left the instance is recorded
with canaries *unavailable* and keeps its verdict.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from enum import Enum

from pydantic import BaseModel, field_validator, model_validator

from polybench.grading.arming import apply_inversions, choose, find_tests
from polybench.grading.parsers.base import FAILING, TestStatus

_CODE_SUFFIXES = (".py", ".java", ".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts")
_TESTBED = "/testbed/"
_FAILED_AS_ARMED = FAILING | {TestStatus.XFAIL}


class CanaryOutcome(str, Enum):
    """How one armed test ended in the canary run."""

    AS_PLANTED = "as_planted"
    """It failed, as an armed test must."""
    WRONG = "wrong"
    """It passed although one of its assertions was inverted."""
    NOT_RUN = "not_run"
    """It is not in the canary run's results (or was skipped)."""


class CanaryStatus(str, Enum):
    """Whether the canary run says anything about an instance."""

    CHECKED = "checked"
    """The canary run ran and every armed test was read."""
    UNAVAILABLE = "unavailable"
    """The canary run gave no answer (the harness's additions broke it, it did not finish);
    the verdict is the graded run's alone."""
    NOT_ARMED = "not_armed"
    """No F2P test has an assertion the harness can invert."""
    NOT_NEEDED = "not_needed"
    """The graded run did not resolve: nothing for the canary run to confirm."""
    OFF = "off"
    """Canaries are off for this run (``--canaries off``)."""


@dataclass(frozen=True)
class ArmedTest:
    """One F2P test armed for the canary run (kept beside the logs, never in results)."""

    file: str
    test: str
    """The test as its file names it (``Class > method``, ``describe > title``)."""
    line: int
    """1-based line of the inverted assertion."""
    form: str
    ids: tuple[str, ...]
    """The F2P ids this test reports as (one per case of a parametrized test)."""


@dataclass
class Arming:
    """The armed tests and the texts of their files, before and after arming."""

    armed: list[ArmedTest] = field(default_factory=list)
    originals: dict[str, str] = field(default_factory=dict)
    texts: dict[str, str] = field(default_factory=dict)


class CanaryRecord(BaseModel):
    """What ``result.json`` says of one armed test."""

    file: str
    test: str = ""
    form: str = ""
    line: int = 0
    outcome: CanaryOutcome
    observed: str

    @field_validator("outcome", mode="before")
    @classmethod
    def _planted_canary_missing(cls, value: object) -> object:
        # Results written when canaries were planted into the graded run: a canary missing
        # while its neighbour ran was tampering, as a passing armed test is now.
        return CanaryOutcome.WRONG.value if value == "missing" else value


class CanaryCheck(BaseModel):
    """The canary run's answer for one instance."""

    status: CanaryStatus = CanaryStatus.OFF
    reason: str | None = None
    runs: int = 0
    """Canary runs made (a retry after the armed tests broke the build counts)."""
    records: list[CanaryRecord] = []
    detection_probability: float = 0.0
    """The least chance that tampering which cannot tell the runs apart was caught
    (0 when the canary run did not check this instance)."""

    @model_validator(mode="before")
    @classmethod
    def _planted_in_the_graded_run(cls, data: object) -> object:
        # Results written when canaries were planted into the graded run say how many.
        if isinstance(data, dict) and "status" not in data and "planted" in data:
            status = CanaryStatus.CHECKED if data["planted"] else CanaryStatus.NOT_ARMED
            return {**data, "status": status.value, "reason": data.get("not_planted_reason")}
        return data

    @property
    def tampered(self) -> bool:
        """True when an armed test passed."""
        return any(r.outcome is CanaryOutcome.WRONG for r in self.records)

    @property
    def unavailable(self) -> bool:
        """True when the canary run should have checked this instance and could not."""
        return self.status is CanaryStatus.UNAVAILABLE


def detection_probability(runs: int) -> float:
    """The least chance that ``runs`` canary runs catch tampering that cannot tell them
    from the graded run: it escapes only by turning every F2P failure in the graded run
    (probability p) and none in each canary run (at most 1 - p each), and
    ``max p(1-p)^k = k^k / (k+1)^(k+1)``."""
    if runs <= 0:
        return 0.0
    return round(1.0 - float(runs**runs) / float((runs + 1) ** (runs + 1)), 4)


def test_file_candidates(
    parser: str, f2p: Iterable[str], test_patch_files: Iterable[str]
) -> list[str]:
    """Files that may hold F2P tests: those their ids name, then the test patch's."""
    found: list[str] = []
    patch_files = [p for p in test_patch_files if p.endswith(_CODE_SUFFIXES)]
    for test_id in f2p:
        path = _file_of_id(parser, test_id, patch_files)
        if path is not None and path not in found:
            found.append(path)
    return found + [p for p in patch_files if p not in found]


def _file_of_id(parser: str, test_id: str, patch_files: list[str]) -> str | None:
    if "->" in test_id and test_id.startswith(_TESTBED):
        return test_id.split("->", 1)[0][len(_TESTBED) :]
    if ".py:" in test_id:
        return test_id.split(":", 1)[0]
    if re.match(r"^[\w.]+:\w+:", test_id):  # unittest: module.Class:test:params
        return test_id.split(":", 1)[0].rsplit(".", 1)[0].replace(".", "/") + ".py"
    if parser.startswith("junit") or re.match(r"^[\w.$]+\.\w+(?:\(.*\))?(?:\[.*\])?$", test_id):
        head = re.sub(r"(?:\(.*\))?(?:\[.*\])?$", "", test_id)
        class_path = head.rsplit(".", 1)[0].split("$", 1)[0].replace(".", "/")
        for path in patch_files:
            if path.endswith(f"/{class_path}.java") or path == f"{class_path}.java":
                return path
    return None


def _names_match(test_id: str, path: str, names: tuple[str, ...]) -> bool:
    """True when ``test_id`` (an F2P id in any official format) is the test ``names`` of
    the file ``path``."""
    if "->" in test_id and test_id.startswith(_TESTBED):
        file_part, title = test_id.split("->", 1)
        if file_part[len(_TESTBED) :] != path:
            return False
        return _title_match(title, names)
    if ".py:" in test_id:
        file_part, owner, name = [*test_id.split(":", 2), "", ""][:3]
        name = re.sub(r"\[.*\]$", "", name)
        if file_part != path or names[-1] != name:
            return False
        return owner == "None" if len(names) == 1 else owner.split("::")[-1] == names[-2]
    match = re.match(r"^([\w.]+)\.(\w+):(\w+):", test_id)
    if match is not None:  # unittest
        module, owner, name = match.groups()
        return (
            path == module.replace(".", "/") + ".py"
            and names[-1] == name
            and len(names) > 1
            and names[-2] == owner
        )
    match = re.match(r"^([\w.$]+)\.(\w+)(?:\(.*\))?(?:\[.*\])?$", test_id)
    if match is not None and path.endswith(".java"):
        owner, name = match.groups()
        classes = owner.rsplit(".", 1)[-1].split("$")
        return names[-1] == name and list(names[:-1])[-len(classes) :] == classes
    return _title_match(test_id, names)


def _title_match(title: str, names: tuple[str, ...]) -> bool:
    return any(title == " ".join(names[start:]) for start in range(len(names)))


def arm(
    files: dict[str, str],
    f2p: list[str],
    rng: random.Random,
    exclude: frozenset[tuple[str, int]] = frozenset(),
) -> Arming:
    """Arm every F2P test of ``files`` (path -> text after the test patch) that has an
    assertion to invert; ``exclude`` holds (file, line) pairs not to use again."""
    arming = Arming()
    for path, text in files.items():
        chosen = []
        for test in find_tests(path, text):
            ids = tuple(i for i in f2p if _names_match(i, path, test.names))
            usable = [i for i in test.inversions if (path, i.line) not in exclude]
            if not ids or not usable:
                continue
            inversion = choose(test.__class__(test.names, tuple(usable)), rng)
            assert inversion is not None
            chosen.append(inversion)
            arming.armed.append(
                ArmedTest(path, " > ".join(test.names), inversion.line, inversion.form, ids)
            )
        if chosen:
            arming.originals[path] = text
            arming.texts[path] = apply_inversions(text, chosen)
    return arming


def check_armed(armed: list[ArmedTest], statuses: dict[str, TestStatus]) -> list[CanaryRecord]:
    """How each armed test ended in the canary run (worst case of its ids)."""
    records = []
    for test in armed:
        found = [statuses[i] for i in test.ids if i in statuses]
        if any(s is TestStatus.PASSED for s in found):
            outcome, observed = CanaryOutcome.WRONG, TestStatus.PASSED.value
        elif found and all(s in _FAILED_AS_ARMED for s in found):
            outcome, observed = CanaryOutcome.AS_PLANTED, found[0].value
        else:
            outcome = CanaryOutcome.NOT_RUN
            observed = found[0].value if found else "absent"
        records.append(
            CanaryRecord(
                file=test.file,
                test=test.test,
                form=test.form,
                line=test.line,
                outcome=outcome,
                observed=observed,
            )
        )
    return records


_LOCATION = re.compile(
    r"(?P<path>[\w./@+-]*[\w@+-]\.(?:py|java|[cm]?[jt]sx?))"
    r"(?:\", line |:\[|\(|:)(?P<line>\d+)"
)
_ESLINT_LINE = re.compile(r"^\s+(?P<line>\d+):\d+\s+(?:error|warning)\s")


def planted_failure(log: str, armed: list[ArmedTest], workdir: str) -> tuple[str, int, str] | None:
    """The armed location the log blames for a failed build or run, with the log line:
    a compiler, type checker or linter error (or a warning made fatal) at an armed line.
    None when the log blames nothing the harness armed."""
    where = {(test.file, test.line) for test in armed}
    prefixes = tuple({workdir.rstrip("/") + "/", _TESTBED, "./"})
    current_file: str | None = None
    for raw in log.splitlines():
        line = raw.strip()
        eslint = _ESLINT_LINE.match(raw)
        if eslint is not None and current_file is not None:
            if (current_file, int(eslint.group("line"))) in where:
                return current_file, int(eslint.group("line")), line[:300]
            continue
        current_file = None
        for match in _LOCATION.finditer(line):
            path = match.group("path")
            for prefix in prefixes:
                if path.startswith(prefix):
                    path = path[len(prefix) :]
            hits = [
                (file, number) for file, number in where
                if (file == path or file.endswith("/" + path) or path.endswith("/" + file))
                and number == int(match.group("line"))
            ]  # fmt: skip
            if hits:
                return hits[0][0], hits[0][1], line[:300]
        if line.endswith(_CODE_SUFFIXES):
            path = line
            for prefix in prefixes:
                if path.startswith(prefix):
                    path = path[len(prefix) :]
            current_file = next(
                (t.file for t in armed if t.file == path or path.endswith("/" + t.file)), None
            )
    return None


def armed_json(armed: list[ArmedTest]) -> str:
    """The armed tests as JSON (kept beside a run's logs, to regrade them later)."""
    return json.dumps([asdict(test) for test in armed], indent=1)


def armed_from_json(text: str) -> list[ArmedTest]:
    """The armed tests :func:`armed_json` wrote (an empty list for anything else)."""
    try:
        return [ArmedTest(**{**item, "ids": tuple(item["ids"])}) for item in json.loads(text)]
    except (ValueError, TypeError, KeyError):
        return []
