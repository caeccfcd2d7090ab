"""Annotate instances: complexity columns from the gold patch, and LLM classifications."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from polybench.curation.classify import COLUMNS, Classifier
from polybench.curation.llm import LLMError
from polybench.dataset.models import Instance
from polybench.environments.repos import RepoStore

ComplexityFn = Callable[[Instance], dict[str, Any]]


def complexity_annotator(repos: RepoStore) -> tuple[ComplexityFn | None, str]:
    """A function giving an instance's complexity columns, or None and why not.

    It needs ``polybench.metrics`` (the CST analysis, with tree-sitter): the modified
    nodes of the gold patch at the base commit, then the columns derived from them.
    """
    try:
        from polybench.metrics.complexity import complexity_columns
        from polybench.metrics.nodes import NodeAnalyzer
    except ImportError as exc:
        return None, f"complexity analysis unavailable ({exc})"
    analyzer = NodeAnalyzer(repos)

    def columns(instance: Instance) -> dict[str, Any]:
        nodes = analyzer.analyze(instance.repo, instance.base_commit, instance.patch)
        return complexity_columns(nodes.nodes).model_dump()

    return columns, "complexity columns from the CST analysis of the gold patch"


@dataclass
class AnnotateOutcome:
    """The annotated instances and what happened on the way."""

    instances: list[Instance]
    complexity_failures: dict[str, str] = field(default_factory=dict)
    llm_failures: dict[str, str] = field(default_factory=dict)
    label_counts: dict[str, dict[str, int]] = field(default_factory=dict)


def annotate_instances(
    instances: list[Instance],
    classifier: Classifier | None,
    complexity: ComplexityFn | None,
    workers: int = 4,
    on_done: Callable[[str], None] | None = None,
) -> AnnotateOutcome:
    """Add the complexity columns and/or the LLM label columns to every instance.

    A failure on one instance leaves its columns as they were (the LLM ones ``unknown``)
    and is listed in the outcome; LLM failures are not cached, so a rerun retries them.
    """
    outcome = AnnotateOutcome(instances=[])

    def work(instance: Instance) -> Instance:
        update: dict[str, Any] = {}
        if complexity is not None:
            try:
                update.update(complexity(instance))
            except Exception as exc:
                outcome.complexity_failures[instance.instance_id] = f"{type(exc).__name__}: {exc}"
        if classifier is not None:
            try:
                update.update(classifier.classify(instance))
            except LLMError as exc:
                outcome.llm_failures[instance.instance_id] = str(exc)
                update.update(dict.fromkeys(COLUMNS, "unknown"))
        if on_done is not None:
            on_done(instance.instance_id)
        return instance.model_copy(update=update)

    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        outcome.instances = list(pool.map(work, instances))
    if classifier is not None:
        for column in COLUMNS:
            counts: dict[str, int] = {}
            for instance in outcome.instances:
                value = str(getattr(instance, column, None) or "unknown")
                counts[value] = counts.get(value, 0) + 1
            outcome.label_counts[column] = dict(sorted(counts.items()))
    return outcome
