"""The typed records of a run folder: ``run.json`` (how the run was started) and
``report.json`` (its summary), each with a schema version.

The runner writes them; the report reads them back through :func:`read_metadata` and
:func:`read_summary`, which validate (a file from a newer schema, or a damaged one, gives a
clear error rather than a wrong table). Older files without ``schema_version`` are read as
version 1.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from polybench.atomic import atomic_write_text
from polybench.report.defences import DefenceCounts
from polybench.report.rules import RuleDisagreement

SCHEMA_VERSION = 2
METADATA_FILE = "run.json"
SUMMARY_FILE = "report.json"


class RecordError(ValueError):
    """A run record cannot be read: missing, not JSON, or not of a known schema."""


class LanguageCounts(BaseModel):
    """Instances of one language in a run, by status."""

    total: int = 0
    resolved: int = 0
    unresolved: int = 0
    error: int = 0
    empty_patch: int = 0
    no_prediction: int = 0
    not_run: int = 0
    """Instances with a prediction that an interrupted run did not reach."""
    pass_rate: float = 0.0
    """Over the instances that were not left ``not_run``."""

    @property
    def decided(self) -> int:
        """The instances the pass rate is over."""
        return self.total - self.not_run


class InputProblemRecord(BaseModel):
    """A prediction that was left out, and why."""

    where: str
    instance_id: str | None = None
    message: str


class RunMetadata(BaseModel):
    """``run.json``: how a run was started (written before the first instance runs)."""

    model_config = ConfigDict(extra="allow")

    schema_version: int = SCHEMA_VERSION
    run_id: str
    polybench_version: str = ""
    started_at: str = ""
    instances: int = 0
    predictions_source: str | None = None
    dataset: str | None = None
    workers: int | None = None
    prepare_ahead: int | None = None
    executor: str | None = None
    ray_address: str | None = None
    backend: str | None = None
    rule: str | None = None
    canaries: str | None = None
    """``on`` or ``off``: whether canary runs confirmed resolved verdicts."""
    timeout: float | None = None
    command: list[str] = Field(default_factory=list)
    """The command line that started the run (to resume it), when a command did."""
    isolation: str | None = None
    """What isolated the sandboxes (``bubblewrap``, ``docker``, ``none``): the one used,
    never ``auto``; None when each sandbox said for itself."""
    warnings: list[str] = Field(default_factory=list)
    """What the run said before it started."""


class RunSummary(BaseModel):
    """``report.json``: the outcome of a run (written once it stops, finished or not)."""

    model_config = ConfigDict(extra="allow")

    schema_version: int = SCHEMA_VERSION
    run_id: str
    total_instances: int = 0
    submitted_instances: int = 0
    resolved_instances: int = 0
    unresolved_instances: int = 0
    error_instances: int = 0
    empty_patch_instances: int = 0
    no_prediction_instances: int = 0
    not_run_instances: int = 0
    partial: bool = False
    """An interrupted run left instances not run: the pass rates are over the others."""
    pass_rate: float = 0.0
    """Resolved over the instances that were not left not run (all of them unless
    ``partial``); an instance without a prediction counts as not resolved."""
    resolved_ids: list[str] = Field(default_factory=list)
    unresolved_ids: list[str] = Field(default_factory=list)
    error_ids: list[str] = Field(default_factory=list)
    empty_patch_ids: list[str] = Field(default_factory=list)
    untrusted_results: dict[str, str] = Field(default_factory=dict)
    """Saved results of an earlier attempt that were redone because their seal failed
    (changed outside the harness): instance id -> why."""
    no_prediction_ids: list[str] = Field(default_factory=list)
    not_run_ids: list[str] = Field(default_factory=list)
    """Instances with a prediction that an interrupted run did not reach."""
    error_kinds: dict[str, int] = Field(default_factory=dict)
    per_language: dict[str, LanguageCounts] = Field(default_factory=dict)
    input_problems: list[InputProblemRecord] = Field(default_factory=list)
    rule: str | None = None
    canaries: str | None = None
    """``on`` or ``off`` (None: a run from before the setting was recorded)."""
    strict_resolved_instances: int = 0
    official_resolved_instances: int = 0
    strict_pass_rate: float = 0.0
    official_pass_rate: float = 0.0
    rule_disagreements: list[RuleDisagreement] = Field(default_factory=list)
    tampering: DefenceCounts = Field(default_factory=DefenceCounts)
    interrupted: bool = False
    dataset: str | None = None
    predictions: str | None = None
    backend: str | None = None
    executor: str | None = None
    isolation: list[str] = Field(default_factory=list)
    wall_seconds: float = 0.0
    reused_results: int = 0

    @property
    def decided_instances(self) -> int:
        """The instances the pass rates are over (those not left not run)."""
        return self.total_instances - self.not_run_instances


def _read(path: Path, model: type[BaseModel]) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise RecordError(f"{path} does not exist") from exc
    except OSError as exc:
        raise RecordError(f"{path} cannot be read: {exc.strerror or exc}") from exc
    try:
        record = model.model_validate_json(text)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "the file"
        raise RecordError(
            f"{path} is not a polybench run record ({where}: {first['msg']})"
        ) from exc
    version = getattr(record, "schema_version", SCHEMA_VERSION)
    if version > SCHEMA_VERSION:
        raise RecordError(
            f"{path} has schema version {version}, newer than this polybench reads "
            f"({SCHEMA_VERSION}): upgrade polybench"
        )
    return record


def read_metadata(run_dir: Path) -> RunMetadata:
    """The validated ``run.json`` of a run folder (:class:`RecordError` otherwise)."""
    record = _read(run_dir / METADATA_FILE, RunMetadata)
    assert isinstance(record, RunMetadata)
    return record


def read_summary(run_dir: Path) -> RunSummary:
    """The validated ``report.json`` of a run folder (:class:`RecordError` otherwise)."""
    record = _read(run_dir / SUMMARY_FILE, RunSummary)
    assert isinstance(record, RunSummary)
    return record


def write_metadata(run_dir: Path, metadata: RunMetadata) -> Path:
    """Write ``run.json`` atomically."""
    path = run_dir / METADATA_FILE
    atomic_write_text(path, metadata.model_dump_json(indent=2))
    return path


def write_summary(run_dir: Path, summary: RunSummary) -> Path:
    """Write ``report.json`` atomically."""
    path = run_dir / SUMMARY_FILE
    atomic_write_text(path, summary.model_dump_json(indent=2))
    return path
