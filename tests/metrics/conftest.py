"""Metrics fixtures: real git diffs between two versions of a tree, and small repositories."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from polybench.dataset.builtin import load_builtin, materialise_builtin_repos
from polybench.dataset.materialise import materialise_tree
from polybench.dataset.models import Instance
from polybench.environments.repos import RepoStore
from polybench.metrics.retrieval import RetrievalScorer

REPO = "acme/widget"

_GIT_ENV = {
    **{k: v for k, v in os.environ.items() if not k.startswith("GIT_")},
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.invalid",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.invalid",
}


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], env=_GIT_ENV, capture_output=True, text=True, check=True
    ).stdout


def _write(root: Path, files: dict[str, str | None]) -> None:
    for name, content in files.items():
        target = root / name
        if content is None:
            target.unlink()
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content.encode())


DiffMaker = Callable[[dict[str, str], dict[str, "str | None"]], str]


@pytest.fixture
def make_diff(tmp_path: Path) -> DiffMaker:
    """``make_diff(old_files, changes)``: the ``git diff`` (renames detected) that turns the
    tree ``old_files`` into the tree with ``changes`` applied (None deletes a file)."""
    counter = iter(range(1000))

    def make(old: dict[str, str], changes: dict[str, str | None]) -> str:
        repo = tmp_path / f"diff{next(counter)}"
        repo.mkdir()
        _git(repo, "init", "-q")
        _write(repo, dict(old))
        _git(repo, "add", "-A")
        _git(repo, "commit", "-q", "--allow-empty", "-m", "old")
        _write(repo, changes)
        _git(repo, "add", "-A")
        return _git(repo, "diff", "--cached", "-M", "--no-color", "--no-ext-diff")

    return make


@dataclass
class Project:
    """A repository ``acme/widget`` at one commit, and a scorer reading it."""

    files: dict[str, str]
    store: RepoStore
    commit: str
    make_diff: DiffMaker

    def diff(self, changes: dict[str, str | None]) -> str:
        """A patch against this project's files."""
        return self.make_diff(self.files, changes)

    def instance(self, gold_changes: dict[str, str | None], **extra: object) -> Instance:
        """An instance whose gold patch makes ``gold_changes``."""
        row: dict[str, object] = {
            "instance_id": "acme__widget-1",
            "repo": REPO,
            "base_commit": self.commit,
            "patch": self.diff(gold_changes),
            "language": "Python",
        }
        row.update(extra)
        return Instance.model_validate(row)


@pytest.fixture
def project(tmp_path: Path, make_diff: DiffMaker) -> Callable[[dict[str, str]], Project]:
    """``project(files)``: materialise ``files`` as the clone ``acme__widget``."""

    def make(files: dict[str, str]) -> Project:
        source = tmp_path / "source"
        _write(source, dict(files))
        commit = materialise_tree(source, tmp_path / "repos" / "acme__widget")
        store = RepoStore(repo_dir=tmp_path / "repos", cache_dir=tmp_path / "cache")
        return Project(files, store, commit, make_diff)

    return make


@pytest.fixture
def scorer_for() -> Iterator[Callable[[Project], RetrievalScorer]]:
    """A scorer per project, closed at the end of the test."""
    made: list[RetrievalScorer] = []

    def make(proj: Project) -> RetrievalScorer:
        scorer = RetrievalScorer(proj.store)
        made.append(scorer)
        return scorer

    yield make
    for scorer in made:
        scorer.close()


@pytest.fixture(scope="session")
def mini_repos(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The ``mini`` repositories, materialised once per test session (per worker)."""
    repos = tmp_path_factory.mktemp("mini-repos")
    materialise_builtin_repos("mini", repos)
    return repos


@pytest.fixture(scope="session")
def mini_instances() -> list[Instance]:
    return load_builtin("mini")
