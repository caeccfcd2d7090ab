"""Retrieval metrics as a library call: :func:`score_predictions` scores predictions
against their dataset's gold patches (no test runs) and can write the official files."""

from __future__ import annotations

import json
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from polybench.atomic import atomic_write_text
from polybench.dataset.builtin import repo_dir_for
from polybench.dataset.loaders import load_dataset
from polybench.dataset.models import LANGUAGE_ORDER, Instance
from polybench.dataset.predictions import (
    DEFAULT_MAX_PATCH_BYTES,
    PredictionSet,
    load_predictions,
)
from polybench.environments.repos import RepoStore
from polybench.metrics.coverage import MISSING_PREDICTION_RULE, coverage_note
from polybench.metrics.retrieval import (
    InstanceRetrieval,
    RetrievalScorer,
    official_metrics_json,
    summarise,
)

SUMMARY_FILE = "metrics_summary.json"


@dataclass
class MetricsRun:
    """Scores per instance, the instances that could not be scored, and the summary."""

    results: dict[str, InstanceRetrieval] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    summary: dict[str, Any] = field(default_factory=dict)
    predictions: PredictionSet | None = None


def build_metrics_summary(
    instances: list[Instance], results: dict[str, InstanceRetrieval], extra: dict[str, Any]
) -> dict[str, Any]:
    """``metrics_summary.json``: overall and per-language means, plus ``extra`` fields."""
    by_id = {instance.instance_id: instance for instance in instances}
    per_language = {
        language.value: summarise([r for i, r in results.items() if by_id[i].language is language])
        for language in LANGUAGE_ORDER
        if any(by_id[i].language is language for i in results)
    }
    return {
        **extra,
        "overall": summarise(list(results.values())),
        "per_language": per_language,
        "notes": {i: r.note for i, r in sorted(results.items()) if r.note},
    }


def score_predictions(
    dataset: str | list[Instance],
    predictions: str | PredictionSet,
    output_dir: Path | None = None,
    repo_dir: Path | None = None,
    workers: int = 2,
    instance_ids: list[str] | None = None,
    max_patch_bytes: int = DEFAULT_MAX_PATCH_BYTES,
    split: str = "test",
    on_scored: Callable[[str, InstanceRetrieval | None, str | None], None] | None = None,
) -> MetricsRun:
    """File and CST-node retrieval of ``predictions`` on ``dataset``.

    With ``output_dir``, writes each official ``<instance_id>_metrics.json`` as soon as it
    is known, and ``metrics_summary.json``. One instance's failure never stops the others:
    it is listed in ``errors``. ``on_scored(id, result, error)`` follows the progress.
    An instance without a prediction is scored as an empty prediction and counted in the
    means (:data:`~polybench.metrics.coverage.MISSING_PREDICTION_RULE`); it gets no file.
    """
    instances = load_dataset(dataset, split=split) if isinstance(dataset, str) else dataset
    if instance_ids:
        wanted = set(instance_ids)
        instances = [i for i in instances if i.instance_id in wanted]
    chosen = (
        predictions
        if isinstance(predictions, PredictionSet)
        else load_predictions(predictions, instances, max_patch_bytes)
    )
    without = {i.instance_id for i in instances if i.instance_id not in chosen.predictions}
    run = MetricsRun(predictions=chosen)
    if output_dir is not None:
        output_dir.mkdir(parents=True, exist_ok=True)
    store = RepoStore(repo_dir=repo_dir_for(dataset, repo_dir))

    def patch_of(instance_id: str) -> str:
        found = chosen.predictions.get(instance_id)
        return found.model_patch if found is not None else ""

    with RetrievalScorer(store) as scorer, ThreadPoolExecutor(max(1, workers)) as pool:
        futures = {pool.submit(scorer.score, i, patch_of(i.instance_id)): i for i in instances}
        for future in as_completed(futures):
            instance_id = futures[future].instance_id
            try:
                result = future.result()
            except Exception as exc:  # one instance's failure never stops the run
                run.errors[instance_id] = f"{type(exc).__name__}: {exc}"
                if on_scored is not None:
                    on_scored(instance_id, None, run.errors[instance_id])
                continue
            if instance_id in without:
                result.note = "no prediction"
            run.results[instance_id] = result
            if output_dir is not None and instance_id not in without:
                atomic_write_text(
                    output_dir / f"{instance_id}_metrics.json",
                    json.dumps(official_metrics_json(result), indent=2) + "\n",
                )
            if on_scored is not None:
                on_scored(instance_id, result, None)
    run.summary = build_metrics_summary(
        instances,
        run.results,
        {
            "dataset": dataset if isinstance(dataset, str) else "given in Python",
            "predictions": predictions if isinstance(predictions, str) else chosen.source,
            "scored_instances": len(run.results),
            "instances_without_prediction": len(without),
            "missing_predictions": MISSING_PREDICTION_RULE,
            "coverage": coverage_note(len(run.results), len(without & set(run.results))),
            "errors": dict(sorted(run.errors.items())),
            "input_problems": [str(problem) for problem in chosen.problems],
        },
    )
    if output_dir is not None:
        atomic_write_text(output_dir / SUMMARY_FILE, json.dumps(run.summary, indent=2) + "\n")
    return run
