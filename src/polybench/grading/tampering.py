"""The ``tampering`` record of ``result.json``: everything the defences did or saw.

It holds the paths the tamper policy reverted or refused, how the canaries ended, reports
that could not be trusted, output truncation, and flags on suspicious non-test changes.
``detected`` lists what proves tampering (a canary not as planted, a forged or blinded
report, a truncated log): any of it keeps the instance from being resolved. Reverted
paths and flags alone do not change the verdict: the reverted change simply did not
count, and a flag is a pointer for review.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from polybench.grading.canaries import CanaryCheck
from polybench.grading.probe import ProbeCheck


class PathRecord(BaseModel):
    """A path the policy changed back or kept out, and why."""

    path: str
    reason: str


class Flag(BaseModel):
    """A non-test change that reaches into test-framework internals."""

    path: str
    rule: str
    line: str


class Tampering(BaseModel):
    """The defences' record for one instance (see the module docstring)."""

    reverted: list[PathRecord] = Field(default_factory=list)
    refused: list[PathRecord] = Field(default_factory=list)
    canaries: CanaryCheck = Field(default_factory=CanaryCheck)
    probe: ProbeCheck = Field(default_factory=ProbeCheck)
    distrusted_reports: list[str] = Field(default_factory=list)
    truncated_bytes: int = 0
    flags: list[Flag] = Field(default_factory=list)
    detected: list[str] = Field(default_factory=list)

    @property
    def any(self) -> bool:
        """True when a defence had anything to do or to say for this instance."""
        return bool(
            self.reverted
            or self.refused
            or self.distrusted_reports
            or self.truncated_bytes
            or self.flags
            or self.detected
            or self.canaries.tampered
            or self.probe.tampered
        )
