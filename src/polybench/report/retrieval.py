"""Retrieval scores of runs (via ``polybench.metrics.retrieval``) and the Table 6 layout.

The scorer is looked up when a report is made: when the retrieval module is not
installed, the report says so and leaves the table out.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Protocol, cast

from polybench.dataset.models import Instance
from polybench.environments.repos import RepositoryError, RepoStore
from polybench.metrics.stats import plain_mean
from polybench.report.model import RetrievalCell, RetrievalRow, RetrievalTable
from polybench.report.strata import LANGUAGE_ORDER, OVERALL

RETRIEVAL_MODULE = "polybench.metrics.retrieval"


class PRFLike(Protocol):
    """Precision, recall and F1 of one set comparison."""

    @property
    def precision(self) -> float: ...

    @property
    def recall(self) -> float: ...

    @property
    def f1(self) -> float: ...


class RetrievalLike(Protocol):
    """One instance's file scores and node scores (None: the gold patch touches no node)."""

    @property
    def instance_id(self) -> str: ...

    @property
    def file(self) -> PRFLike: ...

    @property
    def node(self) -> PRFLike | None: ...


class ScorerLike(Protocol):
    """Scores a prediction's patch against an instance's gold patch."""

    def score(self, instance: Instance, model_patch: str) -> RetrievalLike: ...

    def close(self) -> None: ...


ScorerFactory = Callable[[RepoStore], ScorerLike]


def load_scorer_factory() -> ScorerFactory | None:
    """``RetrievalScorer`` from the retrieval module, or None when it is not available."""
    try:
        module = importlib.import_module(RETRIEVAL_MODULE)
    except ImportError:
        return None
    factory = getattr(module, "RetrievalScorer", None)
    return cast(ScorerFactory, factory) if callable(factory) else None


def score_patches(
    scorer: ScorerLike,
    instances: Mapping[str, Instance],
    instance_ids: Iterable[str],
    patches: Mapping[str, str],
) -> tuple[dict[str, RetrievalLike], list[str]]:
    """Score each instance's patch (``""`` when there is none: it scores 0).

    An instance the scorer fails on is left out of the averages, with a note; once a
    repository is found unavailable, its other instances are not tried again.
    """
    scores: dict[str, RetrievalLike] = {}
    failures: list[str] = []
    missing_repos: dict[str, str] = {}
    for instance_id in instance_ids:
        instance = instances[instance_id]
        if instance.repo in missing_repos:
            failures.append(f"{instance_id}: {missing_repos[instance.repo]}")
            continue
        try:
            scores[instance_id] = scorer.score(instance, patches.get(instance_id, ""))
        except RepositoryError as exc:
            missing_repos[instance.repo] = f"repository unavailable: {exc}"
            failures.append(f"{instance_id}: {missing_repos[instance.repo]}")
        except Exception as exc:
            failures.append(f"{instance_id}: {type(exc).__name__}: {exc}")
    notes = []
    if failures:
        shown = "; ".join(failures[:3]) + (" ..." if len(failures) > 3 else "")
        notes.append(f"retrieval could not be scored for {len(failures)} instances: {shown}")
    return scores, notes


def retrieval_record(score: RetrievalLike) -> dict[str, Any]:
    """A JSON-ready dict of one instance's retrieval score."""
    dump = getattr(score, "model_dump", None)
    if callable(dump):
        return cast(dict[str, Any], dump(mode="json"))

    def prf(value: PRFLike | None) -> dict[str, float] | None:
        if value is None:
            return None
        return {"precision": value.precision, "recall": value.recall, "f1": value.f1}

    return {"instance_id": score.instance_id, "file": prf(score.file), "node": prf(score.node)}


def _cell(scores: Sequence[RetrievalLike]) -> RetrievalCell:
    nodes = [s.node for s in scores if s.node is not None]
    return RetrievalCell(
        n=len(scores),
        file_precision=plain_mean([s.file.precision for s in scores]),
        file_recall=plain_mean([s.file.recall for s in scores]),
        file_f1=plain_mean([s.file.f1 for s in scores]),
        node_n=len(nodes),
        node_precision=plain_mean([n.precision for n in nodes]),
        node_recall=plain_mean([n.recall for n in nodes]),
        node_f1=plain_mean([n.f1 for n in nodes]),
    )


def retrieval_table(
    instances: Mapping[str, Instance],
    runs: Sequence[tuple[str, Sequence[str], Mapping[str, RetrievalLike]]],
    notes: Sequence[str] = (),
) -> RetrievalTable:
    """Mean retrieval scores per language and overall, one cell per run.

    ``runs`` holds ``(label, instance ids, scores by id)``. File scores average over every
    scored instance (an empty prediction scores 0); node scores over the instances whose
    gold patch touches a node.
    """
    rows = []
    for language in (*LANGUAGE_ORDER, OVERALL):
        cells = {}
        for label, ids, scores in runs:
            chosen = [
                scores[i]
                for i in ids
                if i in scores and (language == OVERALL or instances[i].language.value == language)
            ]
            cells[label] = _cell(chosen)
        rows.append(RetrievalRow(key=language, label=language, cells=cells))
    return RetrievalTable(rows=rows, notes=list(notes))
