"""What the defences against forged verdicts did in a run: instances per defence.

Each instance's ``result.json`` holds a ``tampering`` record (see
:mod:`polybench.grading.tampering`). A run counts, for each defence, the instances it
touched:

- ``reverted``: the tamper policy changed paths of the patch back (test files, tool
  configuration); the change simply did not count;
- ``refused``: paths the policy never wrote;
- ``canaries_tampered``: an armed fail-to-pass test passed in the canary run (a failure was
  turned into a pass);
- ``canaries_unavailable``: the canary run could not confirm a verdict it had to (the
  harness's additions broke its build, it did not finish); the verdict stands;
- ``framework_changed``: the run-time probe saw a test framework's own function replaced by
  the repository's non-test code (or by code whose file cannot be told);
- ``distrusted``: a test report could not be trusted as it stood (cut short, malformed,
  out of step with the framework's summary);
- ``truncated``: the test output was cut;
- ``flagged``: a non-test change reaches into test-framework internals (a pointer for
  review; it never changes the verdict);
- ``detected``: something proves tampering; the instance is not resolved under any rule.
"""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel, Field

from polybench.grading.canaries import CanaryStatus
from polybench.grading.result import InstanceResult

DEFENCES: dict[str, str] = {
    "reverted": "reverted",
    "refused": "refused",
    "canaries_tampered": "canaries tampered",
    "canaries_unavailable": "canaries unavailable",
    "framework_changed": "framework changed",
    "distrusted": "distrusted",
    "truncated": "truncated",
    "flagged": "flagged",
    "detected": "detected",
}
"""Every defence count, by key, with its column name."""


def defences_of(result: InstanceResult) -> list[str]:
    """The defences (keys of :data:`DEFENCES`) that touched ``result``."""
    tampering = result.tampering
    touched = {
        "reverted": bool(tampering.reverted),
        "refused": bool(tampering.refused),
        "canaries_tampered": tampering.canaries.tampered,
        "canaries_unavailable": tampering.canaries.unavailable,
        "framework_changed": tampering.probe.tampered,
        "distrusted": bool(tampering.distrusted_reports),
        "truncated": tampering.truncated_bytes > 0,
        "flagged": bool(tampering.flags),
        "detected": bool(tampering.detected),
    }
    return [key for key in DEFENCES if touched[key]]


class CanaryCounts(BaseModel):
    """What the canary runs of a run said: instances per canary status, and the chance
    that tampering which cannot tell a canary run from a graded one was caught."""

    statuses: dict[str, int] = Field(default_factory=dict)
    """Instances per :class:`~polybench.grading.canaries.CanaryStatus` value."""
    detection_per_instance: float | None = None
    """The least detection probability of a checked instance (None: none checked)."""
    detection_per_run: float = 0.0
    """The chance that tampering on every checked instance is caught at least once."""

    def line(self) -> str:
        """The canaries in one line (for the console and the Markdown report)."""
        counts = ", ".join(f"{status.replace('_', ' ')} {n}" for status, n in self.statuses.items())
        if self.detection_per_instance is None:
            return f"canaries (instances): {counts or 'none'}"
        per_run = self.detection_per_run
        shown = "> 0.9999" if 0.9999 < per_run < 1 else f">= {per_run:.4f}"
        return (
            f"canaries (instances): {counts}; detection probability per checked instance "
            f">= {self.detection_per_instance:.2f}, per run {shown}"
        )


def count_canaries(results: Iterable[InstanceResult]) -> CanaryCounts:
    """The canary statuses of ``results`` and the detection probabilities they give."""
    statuses: dict[str, int] = {}
    escape = 1.0
    least: float | None = None
    for result in results:
        check = result.tampering.canaries
        statuses[check.status.value] = statuses.get(check.status.value, 0) + 1
        if check.status is CanaryStatus.CHECKED:
            escape *= 1.0 - check.detection_probability
            found = check.detection_probability
            least = found if least is None else min(least, found)
    return CanaryCounts(
        statuses=dict(sorted(statuses.items())),
        detection_per_instance=least,
        detection_per_run=1.0 - escape if least is not None else 0.0,
    )


class DefenceCounts(BaseModel):
    """Instances per defence in one run, and their ids (sorted) under ``ids``."""

    reverted: int = 0
    refused: int = 0
    canaries_tampered: int = 0
    canaries_unavailable: int = 0
    framework_changed: int = 0
    distrusted: int = 0
    truncated: int = 0
    flagged: int = 0
    detected: int = 0
    ids: dict[str, list[str]] = Field(default_factory=dict)
    canaries: CanaryCounts = Field(default_factory=CanaryCounts)

    def count(self, key: str) -> int:
        """The number of instances of defence ``key``."""
        value = getattr(self, key)
        assert isinstance(value, int)
        return value


def count_defences(results: Iterable[InstanceResult]) -> DefenceCounts:
    """How many of ``results`` each defence touched, with their ids, and the canaries."""
    results = list(results)
    ids: dict[str, list[str]] = {key: [] for key in DEFENCES}
    for result in results:
        for key in defences_of(result):
            ids[key].append(result.instance_id)
    return DefenceCounts(
        **{key: len(found) for key, found in ids.items()},
        ids={key: sorted(found) for key, found in ids.items()},
        canaries=count_canaries(results),
    )
