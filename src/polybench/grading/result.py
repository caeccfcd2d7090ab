"""The per-instance result record written to ``result.json``."""

from __future__ import annotations

from enum import Enum

from pydantic import BaseModel, Field

from polybench.grading.grade import Outcome
from polybench.grading.tampering import Tampering


class Status(str, Enum):
    """Final state of one instance in a run."""

    RESOLVED = "resolved"
    UNRESOLVED = "unresolved"
    EMPTY_PATCH = "empty_patch"
    ERROR = "error"


class ErrorKind(str, Enum):
    """Infrastructure failures: the harness could not judge the prediction."""

    ENVIRONMENT_UNAVAILABLE = "environment_unavailable"
    ENVIRONMENT_SETUP_FAILED = "environment_setup_failed"
    IMAGE_BUILD_FAILED = "image_build_failed"
    REPOSITORY_UNAVAILABLE = "repository_unavailable"
    SANDBOX_FAILED = "sandbox_failed"
    TEST_PATCH_FAILED = "test_patch_failed"
    TIMEOUT = "timeout"
    NO_END_MARKER = "no_end_marker"
    NO_TEST_RESULTS = "no_test_results"
    DEPENDENCY_UNAVAILABLE = "dependency_unavailable"
    UNKNOWN_PARSER = "unknown_parser"
    HARNESS_ERROR = "harness_error"
    UNISOLATED_REFUSED = "unisolated_refused"
    """The sandbox was not isolated and the prediction is not the dataset's own."""


class InstanceResult(BaseModel):
    """Everything known about one instance after a run; the content of ``result.json``."""

    instance_id: str
    repo: str
    language: str
    model_name_or_path: str = "unknown"
    status: Status
    reason: str = ""
    error_kind: ErrorKind | None = None
    patch_sha256: str = ""
    patch_applied: bool = False
    apply_method: str | None = None
    patch_files: list[str] = Field(default_factory=list)
    test_exit_code: int | None = None
    """The exit status the end marker reports (the test command's)."""
    process_exit_code: int | None = None
    """The exit status of the eval script as the harness saw it."""
    log_parsed: bool = False
    parser: str | None = None
    f2p: dict[str, Outcome] = Field(default_factory=dict)
    p2p: dict[str, Outcome] = Field(default_factory=dict)
    tests_in_log: int = 0
    isolation: str | None = None
    backend: str = "local"
    environment: str | None = None
    environment_reused: bool | None = None
    environment_rebuilt: str | None = None
    """Why the prepared environment was rebuilt before this instance (it had changed since
    it was prepared: what changed), or None."""
    timings: dict[str, float] = Field(default_factory=dict)
    attempts: int = 1
    rule: str = "strict"
    """The resolved rule that set ``status`` (``strict`` or ``official``)."""
    strict_resolved: bool | None = None
    official_resolved: bool | None = None
    """What each rule says (None when the tests did not run)."""
    build_failure: str | None = None
    tampering: Tampering = Field(default_factory=Tampering)
    log_passed_tests: list[str] | None = None
    log_failed_tests: list[str] | None = None
    """Every test of the log as the official result files list them (canaries left out);
    None when the tests did not run."""

    @property
    def resolved(self) -> bool:
        """True when the instance is resolved."""
        return self.status is Status.RESOLVED

    @property
    def passed_tests(self) -> list[str]:
        """Listed tests that passed (the listed part of the official ``passed_tests``)."""
        return [
            t for t, o in {**self.f2p, **self.p2p}.items() if o in (Outcome.PASSED, Outcome.XFAIL)
        ]

    @property
    def failed_tests(self) -> list[str]:
        """Listed tests that did not pass."""
        return [
            t
            for t, o in {**self.f2p, **self.p2p}.items()
            if o not in (Outcome.PASSED, Outcome.XFAIL)
        ]
