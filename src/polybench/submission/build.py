"""Write a leaderboard submission folder from a finished polybench run.

The predictions are the ones the run evaluated: taken from the predictions file recorded
in ``run.json`` when it still holds the same patch (so extra fields are kept), otherwise
rebuilt from each instance's ``patch.diff``. Each ``logs/<id>_result.json`` is the run's
``result.json`` in the official shape (:func:`polybench.report.run_report.official_result`)
and each ``logs/<id>_metrics.json`` is scored by :class:`RetrievalScorer`.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from polybench import __version__
from polybench.atomic import atomic_write_text
from polybench.dataset.models import Instance, Prediction
from polybench.dataset.predictions import PredictionsFileError, read_predictions_file
from polybench.grading.result import Status
from polybench.metrics.retrieval import RetrievalScorer, official_metrics_json
from polybench.report.instance_view import agent_run_dir, trajectory_files
from polybench.report.run_report import official_result
from polybench.report.runs import LoadedRun, RunDirError, load_run
from polybench.runner.instance import patch_digest
from polybench.submission.models import (
    LOGS_DIR,
    METADATA_FILE,
    PREDICTIONS_FILE,
    README_FILE,
    TRAJS_DIR,
    SubmissionMetadata,
    describe_validation_error,
    format_pass_rate,
    metrics_path,
    result_path,
)
from polybench.submission.problems import some_ids
from polybench.submission.readme import readme_template

_TEXT_KEYS = {"name", "site", "pass_rate", "authors"}
_SYNTHETIC = {"gold", "empty"}


class SubmissionError(ValueError):
    """The submission cannot be built (the output folder is in the way, bad options)."""


@dataclass
class BuildReport:
    """What ``build_submission`` wrote and what the submitter should know."""

    output: Path
    instances: int = 0
    resolved: int = 0
    pass_rate: str = ""
    metrics_written: int = 0
    trajectories: int = 0
    """Instances whose agent trajectory was copied into ``trajs/``."""
    error_ids: list[str] = field(default_factory=list)
    """Instances whose status is ``error``: infrastructure failures, not verdicts."""
    warnings: list[str] = field(default_factory=list)


def load_finished_run(run_dir: Path) -> LoadedRun:
    """The run in ``run_dir``; raises :class:`RunDirError` when it is not a run with results."""
    run = load_run(run_dir)
    if not run.results:
        raise RunDirError(f"{run_dir} has no finished instance (no instances/*/result.json)")
    return run


def parse_metadata_options(items: list[str]) -> dict[str, Any]:
    """``key=value`` options as metadata entries; values are YAML scalars (``oss=true`` is
    a boolean) except for the text keys (name, site, pass_rate, authors)."""
    parsed: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise SubmissionError(f"--metadata {item!r} is not of the form key=value")
        if key in _TEXT_KEYS:
            parsed[key] = value
            continue
        try:
            parsed[key] = yaml.safe_load(value) if value.strip() else ""
        except yaml.YAMLError:
            parsed[key] = value
    return parsed


def _file_predictions(run: LoadedRun, warnings: list[str]) -> dict[str, Prediction]:
    source = run.predictions_source
    if not source or source in _SYNTHETIC:
        return {}
    path = Path(source)
    if not path.is_file():
        warnings.append(f"predictions file {source} not found: patches taken from patch.diff")
        return {}
    try:
        found = read_predictions_file(path, allow_none=True)
    except PredictionsFileError as exc:
        warnings.append(f"predictions file unreadable ({exc}): patches taken from patch.diff")
        return {}
    return found.predictions


def run_predictions(run: LoadedRun, ids: list[str], warnings: list[str]) -> dict[str, Prediction]:
    """The prediction each of ``ids`` was evaluated with, extra fields kept when possible."""
    from_file = _file_predictions(run, warnings)
    changed: list[str] = []
    chosen: dict[str, Prediction] = {}
    for instance_id in ids:
        result = run.results[instance_id]
        known = from_file.get(instance_id)
        if known is not None and patch_digest(known.model_patch) == result.patch_sha256:
            chosen[instance_id] = known
            continue
        if known is not None:
            changed.append(instance_id)
        patch = run.patches.get(instance_id)
        if patch is None:
            warnings.append(f"{instance_id}: no patch.diff in the run; written as an empty patch")
            patch = ""
        chosen[instance_id] = Prediction(
            instance_id=instance_id,
            model_patch=patch,
            model_name_or_path=result.model_name_or_path,
        )
    if changed:
        warnings.append(
            f"{len(changed)} predictions differ from the file the run read (changed since?): "
            f"their patches were taken from patch.diff ({some_ids(changed)})"
        )
    return chosen


def _prepare_output(output: Path, force: bool) -> None:
    if output.exists() and not output.is_dir():
        raise SubmissionError(f"{output} exists and is not a folder")
    if output.is_dir() and any(output.iterdir()):
        if not force:
            raise SubmissionError(f"{output} is not empty (use --force to rebuild it)")
        shutil.rmtree(output / LOGS_DIR, ignore_errors=True)
    (output / LOGS_DIR).mkdir(parents=True, exist_ok=True)


def _existing_metadata(path: Path, warnings: list[str]) -> dict[str, Any]:
    if not path.is_file():
        return {}
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        warnings.append(f"{METADATA_FILE} unreadable ({exc}): written anew")
        return {}
    if not isinstance(data, dict):
        warnings.append(f"{METADATA_FILE} is not a mapping: written anew")
        return {}
    return data


def copy_trajectories(run: LoadedRun, ids: list[str], output: Path, warnings: list[str]) -> int:
    """Copy the agent run's trajectory of each instance into ``trajs/`` (the agent run is
    found beside the predictions file the run evaluated); returns how many instances got
    one, and warns about the others."""
    agent_dir = agent_run_dir(run.predictions_source)
    if agent_dir is None:
        warnings.append(
            f"no agent trajectories found beside the predictions ({run.predictions_source}): "
            f"put one reasoning trace per instance into {TRAJS_DIR}/ (the leaderboard asks "
            "for them)"
        )
        return 0
    folder = output / TRAJS_DIR
    folder.mkdir(exist_ok=True)
    copied, without = 0, []
    for instance_id in ids:
        found = trajectory_files(agent_dir, instance_id)
        for path in found:
            shutil.copyfile(path, folder / path.name)
        copied += bool(found)
        if not found:
            without.append(instance_id)
    if without:
        warnings.append(
            f"{len(without)} instances have no trajectory in {agent_dir / 'trajectories'}: "
            + some_ids(without)
        )
    return copied


def build_metadata(
    existing: Mapping[str, Any],
    defaults: Mapping[str, Any],
    overrides: Mapping[str, Any],
    pass_rate: str,
    warnings: list[str],
) -> dict[str, Any]:
    """``metadata.yaml``: defaults, then what the file already says, then the options; the
    pass rate always from the results. Schema problems become warnings to fix by hand."""
    metadata = {**defaults, **existing, **overrides, "pass_rate": pass_rate}
    try:
        SubmissionMetadata.model_validate(metadata)
    except ValidationError as exc:
        message = describe_validation_error(exc)
        warnings.append(f"{METADATA_FILE}: {message} (fix it before submitting)")
    return metadata


def build_submission(
    run: LoadedRun,
    output: Path,
    instances: Mapping[str, Instance],
    *,
    dataset: str,
    scorer: RetrievalScorer | None,
    name: str | None = None,
    metadata: Mapping[str, Any] | None = None,
    force: bool = False,
    on_instance: Callable[[str], None] | None = None,
) -> BuildReport:
    """Write the submission folder ``output`` for ``run`` on the dataset ``instances``.

    ``scorer`` None writes no metrics files. Raises :class:`SubmissionError` when
    ``output`` is not empty and ``force`` is off.
    """
    report = BuildReport(output=output)
    warnings = report.warnings
    if run.listed_ids is None:
        warnings.append(
            f"{run.run_dir} has no report.json: the run was stopped before the end, and only "
            f"its {len(run.results)} finished instances are submitted"
        )
    outside = sorted(i for i in run.results if i not in instances)
    if outside:
        warnings.append(
            f"{len(outside)} results are for instances not in dataset {dataset}, left out: "
            + some_ids(outside)
        )
    ids = sorted(i for i in run.results if i in instances)
    if not ids:
        raise SubmissionError(f"no result of {run.run_dir} is for an instance of {dataset}")
    _prepare_output(output, force)
    predictions = run_predictions(run, ids, warnings)
    lines = [json.dumps(predictions[i].model_dump(mode="json")) for i in ids]
    atomic_write_text(output / PREDICTIONS_FILE, "\n".join(lines) + "\n")

    report.trajectories = copy_trajectories(run, ids, output, warnings)
    for instance_id in ids:
        result = run.results[instance_id]
        record = official_result(result)
        atomic_write_text(result_path(output, instance_id), json.dumps(record, indent=2) + "\n")
        report.resolved += int(record["resolved"])
        if result.status is Status.ERROR:
            report.error_ids.append(instance_id)
        if scorer is not None:
            patch = predictions[instance_id].model_patch
            try:
                scored = scorer.score(instances[instance_id], patch)
            except Exception as exc:  # one instance's metrics never stop the build
                warnings.append(f"{instance_id}: no metrics ({type(exc).__name__}: {exc})")
            else:
                atomic_write_text(
                    metrics_path(output, instance_id),
                    json.dumps(official_metrics_json(scored), indent=2) + "\n",
                )
                report.metrics_written += 1
        if on_instance is not None:
            on_instance(instance_id)
    report.instances = len(ids)
    if report.error_ids:
        warnings.append(
            f"{len(report.error_ids)} instances ended in an infrastructure error, which is not "
            "a verdict (they are written as not resolved); rerun them before submitting: "
            + ", ".join(report.error_ids)
        )
    if len(ids) < len(instances):
        warnings.append(
            f"the run has results for {len(ids)} of the {len(instances)} instances of "
            f"{dataset}; the pass rate counts the others as not resolved"
        )
    report.pass_rate = format_pass_rate(report.resolved, len(instances))
    metadata_path = output / METADATA_FILE
    defaults = {"name": name or run.model, "oss": False, "site": ""}
    chosen = {**({"name": name} if name else {}), **(metadata or {})}
    written = build_metadata(
        _existing_metadata(metadata_path, warnings), defaults, chosen, report.pass_rate, warnings
    )
    atomic_write_text(metadata_path, yaml.safe_dump(written, sort_keys=False, allow_unicode=True))
    readme = output / README_FILE
    if not readme.exists():
        text = readme_template(
            str(written.get("name") or run.model),
            dataset,
            report.pass_rate,
            run.run_id,
            __version__,
        )
        atomic_write_text(readme, text)
    return report
