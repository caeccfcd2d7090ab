"""Retrieval metrics of a prediction: files and CST nodes against the gold patch.

:class:`RetrievalScorer` scores one prediction of one instance. Both sides go through the
same code: the gold patch and the prediction are applied in memory to the base commit's
files (read from the clone with ``git cat-file``, never checked out), and each change
span gives its deepest class/function node (:mod:`polybench.metrics.cst`).

Rules (spec section 5):
- an empty, invalid (not a safe diff) or unappliable prediction scores 0 for files and
  nodes, with the reason in ``note``;
- ``node`` is None when the gold patch touches no class or function: such an instance is
  left out of node averages (:func:`summarise`);
- the gold nodes are computed from the gold patch; if the gold patch itself does not
  apply, the dataset's ``modified_nodes`` column is used instead (and ``note`` says so).
"""

from __future__ import annotations

import threading
from statistics import fmean
from typing import Any

from pydantic import BaseModel

from polybench.dataset.models import Instance
from polybench.environments.repos import RepoStore
from polybench.metrics.edits import UnappliablePatch
from polybench.metrics.files import file_retrieval, patch_files
from polybench.metrics.nodes import NodeAnalyzer, PatchNodes
from polybench.metrics.prf import PRF, set_prf
from polybench.patches.diff import PatchError

__all__ = [
    "PRF",
    "GoldPatch",
    "InstanceRetrieval",
    "RetrievalScorer",
    "official_metrics_json",
    "summarise",
]


class InstanceRetrieval(BaseModel):
    """File and node retrieval of one prediction, with both sides' files and nodes."""

    instance_id: str
    file: PRF
    node: PRF | None
    """None when the gold patch touches no node (left out of node averages)."""
    reference_files: list[str]
    predicted_files: list[str]
    reference_nodes: list[str]
    predicted_nodes: list[str]
    note: str = ""


class GoldPatch(BaseModel):
    """What an instance's gold patch touches."""

    files: list[str]
    nodes: list[str]
    note: str = ""


class RetrievalScorer:
    """Scores predictions; one per run (it keeps a ``git cat-file`` process per repository).

    Safe to call from several threads. Use as a context manager or call :meth:`close`.
    """

    def __init__(self, repo_store: RepoStore, cache_size: int = 256) -> None:
        self.analyzer = NodeAnalyzer(repo_store, cache_size=cache_size)
        self._gold: dict[str, GoldPatch] = {}
        self._lock = threading.Lock()

    def gold(self, instance: Instance) -> GoldPatch:
        """The files and nodes of the instance's gold patch (computed once per instance)."""
        with self._lock:
            known = self._gold.get(instance.instance_id)
        if known is not None:
            return known
        try:
            found = self.analyzer.analyze(instance.repo, instance.base_commit, instance.patch)
            gold = GoldPatch(files=found.files, nodes=found.nodes)
        except (PatchError, UnappliablePatch) as exc:
            gold = GoldPatch(
                files=patch_files(instance.patch),
                nodes=sorted(set(instance.modified_nodes)),
                note=f"gold patch does not apply ({exc}); dataset modified_nodes used",
            )
        with self._lock:
            self._gold[instance.instance_id] = gold
        return gold

    def score(self, instance: Instance, model_patch: str) -> InstanceRetrieval:
        """File and node retrieval of ``model_patch`` for ``instance``.

        Raises ``RepositoryError`` when no clone holds the instance's base commit.
        """
        gold = self.gold(instance)
        notes = [gold.note] if gold.note else []
        predicted: PatchNodes | None = None
        if not model_patch.strip():
            notes.append("empty prediction")
        else:
            try:
                predicted = self.analyzer.analyze(instance.repo, instance.base_commit, model_patch)
            except PatchError as exc:
                notes.append(f"invalid patch: {exc}")
            except UnappliablePatch as exc:
                notes.append(f"patch does not apply: {exc}")
        if predicted is None:
            file_score = PRF.zero()
            node_score = PRF.zero() if gold.nodes else None
            predicted_files = patch_files(model_patch)
            predicted_nodes: list[str] = []
        else:
            if predicted.parse_errors:
                notes.append("syntax errors in " + ", ".join(predicted.parse_errors))
            predicted_files, predicted_nodes = predicted.files, predicted.nodes
            file_score = file_retrieval(gold.files, predicted_files)
            node_score = set_prf(gold.nodes, predicted_nodes) if gold.nodes else None
        return InstanceRetrieval(
            instance_id=instance.instance_id,
            file=file_score,
            node=node_score,
            reference_files=gold.files,
            predicted_files=predicted_files,
            reference_nodes=gold.nodes,
            predicted_nodes=predicted_nodes,
            note="; ".join(notes),
        )

    def close(self) -> None:
        """Stop the ``git cat-file`` processes."""
        self.analyzer.close()

    def __enter__(self) -> RetrievalScorer:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def _metrics(score: PRF) -> dict[str, float]:
    return {"recall": score.recall, "precision": score.precision, "f1": score.f1}


def official_metrics_json(r: InstanceRetrieval) -> dict[str, Any]:
    """The official ``<instance_id>_metrics.json`` object for one result."""
    return {
        "instance_id": r.instance_id,
        "file_retrieval_metrics": _metrics(r.file),
        "node_retrieval_metrics": None if r.node is None else _metrics(r.node),
        "reference_nodes": list(r.reference_nodes),
        "predicted_nodes": list(r.predicted_nodes),
    }


def _mean(scores: list[PRF]) -> dict[str, float] | None:
    if not scores:
        return None
    return {
        "recall": fmean(s.recall for s in scores),
        "precision": fmean(s.precision for s in scores),
        "f1": fmean(s.f1 for s in scores),
    }


def summarise(results: list[InstanceRetrieval]) -> dict[str, Any]:
    """Mean file and node metrics over ``results``.

    Returns ``{"instances", "file_retrieval_metrics", "node_instances",
    "node_retrieval_metrics"}``; the node mean is over the results whose ``node`` is not
    None, and a mean over no result is None.
    """
    nodes = [r.node for r in results if r.node is not None]
    return {
        "instances": len(results),
        "file_retrieval_metrics": _mean([r.file for r in results]),
        "node_instances": len(nodes),
        "node_retrieval_metrics": _mean(nodes),
    }
