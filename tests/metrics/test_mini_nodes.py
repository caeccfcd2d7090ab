"""The built-in dataset's hand-computed node and complexity columns, recomputed."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from polybench.dataset.models import Instance
from polybench.environments.repos import RepoStore
from polybench.metrics.complexity import column_mismatches, gold_columns
from polybench.metrics.nodes import NodeAnalyzer
from polybench.metrics.retrieval import RetrievalScorer


def test_all_16_mini_gold_patches_match_their_columns(
    mini_repos: Path, mini_instances: list[Instance]
) -> None:
    assert len(mini_instances) == 16
    analyzer = NodeAnalyzer(RepoStore(repo_dir=mini_repos))
    try:
        computed = gold_columns(mini_instances, analyzer, workers=2)
    finally:
        analyzer.close()
    problems = {}
    for instance in mini_instances:
        columns = computed[instance.instance_id]
        assert not isinstance(columns, str), columns
        mismatches = column_mismatches(instance, columns)
        if mismatches:
            problems[instance.instance_id] = (mismatches, columns.model_dump())
    assert problems == {}


@pytest.mark.parametrize("kind", ["gold", "empty"])
def test_mini_gold_and_empty_scores(
    mini_repos: Path, mini_instances: list[Instance], kind: str
) -> None:
    with RetrievalScorer(RepoStore(repo_dir=mini_repos)) as scorer:
        for instance in mini_instances:
            patch = instance.patch if kind == "gold" else ""
            result = scorer.score(instance, patch)
            expected = 1.0 if kind == "gold" else 0.0
            assert result.file.f1 == expected, instance.instance_id
            if instance.modified_nodes:
                assert result.node is not None and result.node.f1 == expected
            else:  # logline-63 and quantify-58 change module-level lines only
                assert result.node is None


def test_one_scorer_shared_by_threads_gives_the_sequential_answers(
    mini_repos: Path, mini_instances: list[Instance]
) -> None:
    # Every instance against every other instance's gold patch of the same repository.
    jobs = [
        (instance, other.patch)
        for instance in mini_instances
        for other in mini_instances
        if other.repo == instance.repo
    ]
    with RetrievalScorer(RepoStore(repo_dir=mini_repos)) as scorer:
        sequential = [scorer.score(instance, patch) for instance, patch in jobs]
    with (
        RetrievalScorer(RepoStore(repo_dir=mini_repos)) as scorer,
        ThreadPoolExecutor(4) as pool,
    ):
        threaded = list(pool.map(lambda job: scorer.score(*job), jobs))
    assert threaded == sequential
    assert {r.file.f1 for r in sequential} != {1.0}  # other instances score less
