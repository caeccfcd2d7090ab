"""The library entry point: :func:`evaluate` runs predictions on a dataset and returns a
:class:`RunReport`; the ``eval`` command is a thin shell over it.

    from polybench import EvalConfig, evaluate

    report = evaluate(EvalConfig(dataset="mini", predictions="gold", run_id="demo"))
    print(report.summary.resolved_instances, report.summary.total_instances)
    frame = report.to_dataframe()  # one row per instance (needs pandas)
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from enum import IntEnum
from pathlib import Path
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

from polybench.dataset.builtin import repo_dir_for
from polybench.dataset.loaders import DatasetError, load_dataset
from polybench.dataset.models import Instance, Prediction
from polybench.dataset.predictions import (
    DEFAULT_MAX_PATCH_BYTES,
    PredictionSet,
    PredictionsFileError,
    load_predictions,
)
from polybench.environments.backends import (
    BackendOptionsError,
    ProviderSettings,
    UnknownBackend,
    get_backend,
)
from polybench.environments.backends.consent import UnisolatedRefused, decide_isolation
from polybench.environments.hiding import answer_paths
from polybench.grading.result import InstanceResult, Status
from polybench.paths import cache_root
from polybench.report.run_report import write_official
from polybench.runner.executors import ExecutorUnavailable, make_runner
from polybench.runner.instance import DEFAULT_TIMEOUT_SECONDS, RunSettings
from polybench.runner.records import RunMetadata, RunSummary, write_summary
from polybench.runner.run import (
    OutputDirectoryError,
    RunInterrupted,
    RunOutcome,
    RunPlan,
    write_run_metadata,
)
from polybench.runner.summary import build_summary
from polybench.sandbox.cancel import reset as reset_cancel


class ExitCode(IntEnum):
    """What the ``eval`` command (and :attr:`RunReport.exit_code`) returns."""

    OK = 0
    """Every instance got a verdict (resolved, unresolved or empty)."""
    INSTANCE_ERRORS = 1
    """The run finished, but some instances ended in an infrastructure error."""
    BAD_INPUT = 2
    """Nothing ran: a bad dataset, predictions file, option or backend."""
    OUTPUT_FAILED = 3
    """The run folder took no more results (read-only, disk full, vanished)."""
    INTERRUPTED = 130
    """Stopped by Ctrl-C; what finished is saved and the same run id resumes."""


class InputError(ValueError):
    """The run cannot start: the message says which input is wrong and how."""


class EvalConfig(BaseModel):
    """Everything a run needs; the defaults are those of ``polybench eval``."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    dataset: str | list[Instance] = "mini"
    """A built-in name, a dataset file, an official alias or a hub name; or instances."""
    predictions: str | list[Prediction]
    """``gold``, ``empty``, a predictions file, or predictions."""
    run_id: str | None = None
    output_dir: Path = Path("polybench_runs")
    workers: int = Field(2, ge=1)
    """Instances whose tests run at once."""
    prepare_ahead: int = Field(default=1, ge=0)
    """Local executor: instances prepared while others' tests run (0: none)."""
    instance_ids: list[str] | None = None
    timeout: float = DEFAULT_TIMEOUT_SECONDS
    backend: str = "local"
    backend_options: dict[str, Any] = Field(default_factory=dict)
    allow_network: bool = False
    executor: str = "local"
    """``local`` (threads here) or ``ray``."""
    ray_address: str | None = None
    ray_cpus_per_task: float = 1.0
    ray_max_retries: int = 2
    repo_dir: Path | None = None
    force: bool = False
    """Redo finished instances too (by default a rerun keeps verdicts, redoes errors)."""
    official_format: bool = False
    max_patch_bytes: int = DEFAULT_MAX_PATCH_BYTES
    split: str = "test"
    rule: Literal["strict", "official"] = "strict"
    canaries: bool = True
    """Confirm every resolved verdict with a canary run (off reproduces official results
    with one run per instance)."""
    command: list[str] = Field(default_factory=list)
    """The command line that started the run, recorded to tell how to resume it."""


class Progress(Protocol):
    """Callbacks a caller can give :func:`evaluate` to follow a run."""

    def on_start(self, todo: int, reused: int) -> None:
        """The run starts: ``todo`` instances to evaluate, ``reused`` already finished."""

    def on_result(self, result: InstanceResult) -> None:
        """An instance finished."""

    def on_interrupt(self, running: int) -> None:
        """Ctrl-C: nothing new starts; ``running`` instances are being waited for."""


class RunReport(BaseModel):
    """What :func:`evaluate` returns: the summary, every result, and where they are."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    run_dir: Path
    summary: RunSummary
    metadata: RunMetadata
    results: dict[str, InstanceResult]
    evaluated: list[str] = Field(default_factory=list)
    reused: list[str] = Field(default_factory=list)
    interrupted: bool = False

    @property
    def exit_code(self) -> ExitCode:
        """How the run ended, as the ``eval`` command reports it."""
        if self.interrupted:
            return ExitCode.INTERRUPTED
        if any(r.status is Status.ERROR for r in self.results.values()):
            return ExitCode.INSTANCE_ERRORS
        return ExitCode.OK

    def to_dataframe(self) -> Any:
        """One row per instance (id, language, status, reason, error kind, both rules, F2P
        and P2P counts, defences, timings), as a pandas DataFrame (``pip install pandas``)."""
        from polybench.runner.frames import results_frame

        return results_frame(self.results)


def _instances(config: EvalConfig) -> tuple[list[Instance], list[str]]:
    """The chosen instances, and the ids of the whole dataset."""
    if isinstance(config.dataset, list):
        instances = list(config.dataset)
    else:
        try:
            instances = load_dataset(config.dataset, split=config.split)
        except DatasetError as exc:
            raise InputError(str(exc)) from exc
    every = [instance.instance_id for instance in instances]
    wanted = [i.strip() for value in config.instance_ids or [] for i in value.split(",")]
    wanted = [i for i in wanted if i]
    if not wanted:
        return instances, every
    known = set(every)
    unknown = [i for i in wanted if i not in known]
    if unknown:
        raise InputError(f"unknown instance ids: {', '.join(unknown)}")
    chosen = set(wanted)
    return [instance for instance in instances if instance.instance_id in chosen], every


def _predictions(
    config: EvalConfig, instances: list[Instance], dataset_ids: list[str]
) -> PredictionSet:
    if isinstance(config.predictions, list):
        known = {i.instance_id for i in instances}
        chosen = {p.instance_id: p for p in config.predictions if p.instance_id in known}
        if not chosen:
            raise InputError(
                f"no usable prediction: none of the {len(config.predictions)} predictions "
                f"given is for one of the {len(known)} chosen instances"
            )
        return PredictionSet(chosen, [], "predictions given in Python")
    try:
        return load_predictions(
            config.predictions, instances, config.max_patch_bytes, dataset_ids=dataset_ids
        )
    except PredictionsFileError as exc:
        raise InputError(str(exc)) from exc


def _untrusted(config: EvalConfig) -> str | None:
    """What would run that the dataset did not provide (None for its gold or empty patches)."""
    if isinstance(config.predictions, list):
        return "predictions given in Python"
    if config.predictions in ("gold", "empty"):
        return None
    return f"predictions from {config.predictions}"


def provider_settings(
    config: EvalConfig, repo_dir: Path | None, work_dir: Path
) -> ProviderSettings:
    """The backend settings of a run (the backend's options validated)."""
    try:
        backend = get_backend(config.backend)
        options = backend.options(config.backend_options)
    except (UnknownBackend, BackendOptionsError) as exc:
        raise InputError(str(exc)) from exc
    return ProviderSettings(
        backend=config.backend,
        repo_dir=repo_dir,
        cache_dir=cache_root(),
        work_dir=work_dir,
        allow_network=config.allow_network,
        options=options,
        hide=answer_paths(config.dataset, config.output_dir, repo_dir),
    )


def evaluate(
    config: EvalConfig,
    progress: Progress | None = None,
    on_plan: Callable[[RunPlan], None] | None = None,
) -> RunReport:
    """Run ``config``'s predictions and write the run folder; see the module docstring.

    Raises :class:`InputError` before anything runs when an input is wrong,
    :class:`OutputDirectoryError` when the run folder takes no more results (everything
    recorded before is kept). Ctrl-C stops starting instances, waits for the running ones
    (a second Ctrl-C stops them), writes the summary of what finished and returns a report
    with ``interrupted`` set.
    """
    instances, dataset_ids = _instances(config)
    predictions = _predictions(config, instances, dataset_ids)
    run_id = config.run_id or datetime.now().strftime("%Y%m%d-%H%M%S")
    run_dir = (config.output_dir / run_id).expanduser().resolve()
    plan = RunPlan(run_id, run_dir, instances, predictions, force=config.force,
                   workers=config.workers, prepare_ahead=config.prepare_ahead)  # fmt: skip
    repo_dir = repo_dir_for(config.dataset, config.repo_dir)
    settings = provider_settings(config, repo_dir, plan.sandboxes_dir)
    problems = get_backend(config.backend).self_check(settings)
    if problems and config.executor == "local":
        raise InputError(f"the {config.backend} backend cannot run here: {'; '.join(problems)}")
    try:
        decision = decide_isolation(settings, _untrusted(config))
    except UnisolatedRefused as exc:
        raise InputError(str(exc)) from exc
    if decision.warning is not None:
        plan.warnings.append(decision.warning)
    run_settings = RunSettings(
        timeout=config.timeout,
        rule=config.rule,
        canaries=config.canaries,
        refuse_unisolated=decision.isolation is None and _untrusted(config) is not None,
        probe_cache=settings.cache_dir / "probes" if settings.cache_dir is not None else None,
    )
    try:
        runner = make_runner(
            config.executor,
            settings,
            run_settings,
            ray_address=config.ray_address,
            ray_cpus_per_task=config.ray_cpus_per_task,
            ray_max_retries=config.ray_max_retries,
            on_start=progress.on_start if progress else None,
            on_result=progress.on_result if progress else None,
            on_interrupt=progress.on_interrupt if progress else None,
        )
    except (ExecutorUnavailable, ValueError) as exc:
        raise InputError(str(exc)) from exc
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
        metadata = write_run_metadata(
            plan,
            dataset=config.dataset if isinstance(config.dataset, str) else "given in Python",
            workers=config.workers,
            prepare_ahead=config.prepare_ahead if config.executor == "local" else None,
            executor=config.executor,
            ray_address=config.ray_address,
            backend=config.backend,
            rule=config.rule,
            canaries="on" if config.canaries else "off",
            timeout=config.timeout,
            command=list(config.command),
            backend_settings=get_backend(config.backend).metadata(settings),
            isolation=decision.isolation,
            warnings=list(plan.warnings),
        )
    except OSError as exc:
        raise OutputDirectoryError(
            f"cannot write to {run_dir}: {exc.strerror or exc}; nothing ran"
        ) from exc
    if on_plan is not None:
        on_plan(plan)
    reset_cancel()
    interrupted = False
    try:
        outcome = runner.run(plan)
    except RunInterrupted as stop:
        outcome, interrupted = stop.outcome, True
    summary = _summarise(config, plan, predictions, outcome, interrupted, settings)
    try:
        write_summary(run_dir, summary)
        if config.official_format:
            write_official(run_dir, outcome.results)
    except OSError as exc:
        raise OutputDirectoryError(
            f"cannot write the summary to {run_dir}: {exc.strerror or exc}; the "
            f"{len(outcome.results)} finished results are saved"
        ) from exc
    return RunReport(
        run_dir=run_dir,
        summary=summary,
        metadata=metadata,
        results=outcome.results,
        evaluated=outcome.evaluated,
        reused=outcome.reused,
        interrupted=interrupted,
    )


def _summarise(
    config: EvalConfig,
    plan: RunPlan,
    predictions: PredictionSet,
    outcome: RunOutcome,
    interrupted: bool,
    settings: ProviderSettings,
) -> RunSummary:
    isolations = sorted({r.isolation for r in outcome.results.values() if r.isolation})
    not_run = [i for i in predictions.predictions if i not in outcome.results]
    source = config.predictions if isinstance(config.predictions, str) else "given in Python"
    dataset = config.dataset if isinstance(config.dataset, str) else "given in Python"
    return build_summary(
        plan.run_id,
        plan.instances,
        outcome.results,
        predictions.problems,
        not_run=not_run,
        interrupted=interrupted,
        dataset=dataset,
        predictions=source,
        backend=settings.backend,
        executor=config.executor,
        canaries="on" if config.canaries else "off",
        isolation=isolations,
        wall_seconds=round(outcome.wall_seconds, 2),
        reused_results=len(outcome.reused),
        untrusted_results=dict(outcome.untrusted),
    )
