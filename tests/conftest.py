"""Shared fixtures: small git repositories made on the fly."""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from polybench.dataset.materialise import materialise_tree


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=True
    ).stdout


@pytest.fixture
def make_repo(tmp_path: Path) -> Callable[[dict[str, str]], tuple[Path, str]]:
    """Create a git repository from ``{path: content}``; returns (path, commit)."""
    counter = iter(range(1000))

    def make(files: dict[str, str]) -> tuple[Path, str]:
        number = next(counter)
        source = tmp_path / f"src{number}"
        for name, content in files.items():
            target = source / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(content)
        repo = tmp_path / f"repo{number}"
        commit = materialise_tree(source, repo)
        return repo, commit

    return make


@pytest.fixture(autouse=True)
def _fresh_logging() -> Iterator[None]:
    """Each test starts from the loggers a command sets up by default: a ``--log-json``
    handler another test's command installed (its file, its captured stderr) goes."""
    from polybench.logs import NORMAL, configure

    yield
    configure(NORMAL)
