"""Built-in repositories are made once: a second run with the same sources reuses them
without rebuilding (no copy, no commit), and any change of the sources rebuilds."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from polybench.dataset import materialise


def _counting_git(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, ...]]:
    """The git calls materialise makes from now on (each call's arguments)."""
    calls: list[tuple[str, ...]] = []
    real_git = materialise._git

    def counting_git(repo: Path, *args: str) -> str:
        calls.append(args)
        return real_git(repo, *args)

    monkeypatch.setattr(materialise, "_git", counting_git)
    return calls


def test_unchanged_sources_are_not_rebuilt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = tmp_path / "src"
    (source / "pkg").mkdir(parents=True)
    (source / "pkg" / "a.py").write_text("A = 1\n")
    destination = tmp_path / "repo"
    first = materialise.materialise_tree(source, destination)

    calls = _counting_git(monkeypatch)
    assert materialise.materialise_tree(source, destination) == first
    assert calls == []  # HEAD read from its files, nothing rebuilt

    (source / "pkg" / "a.py").write_text("A = 2\n")
    calls.clear()
    second = materialise.materialise_tree(source, destination)
    assert second != first
    assert ("commit", "-q", "--no-verify", "-m", materialise.COMMIT_MESSAGE) in calls
    assert materialise.materialise_tree(source, destination) == second


def _one_file_repository(tmp_path: Path) -> tuple[Path, Path, str]:
    """A source folder holding ``a.txt``, the repository made of it, and its commit."""
    source = tmp_path / "src"
    source.mkdir()
    (source / "a.txt").write_text("a\n")
    destination = tmp_path / "repo"
    return source, destination, materialise.materialise_tree(source, destination)


def test_a_repository_changed_behind_the_stamp_is_rebuilt(tmp_path: Path) -> None:
    source, destination, commit = _one_file_repository(tmp_path)
    (destination / ".git" / materialise.STAMP_FILE).write_text(f"{'0' * 64} {commit}\n")
    assert materialise.materialise_tree(source, destination) == commit
    stamp = (destination / ".git" / materialise.STAMP_FILE).read_text().split()
    assert stamp == [materialise.source_digest(source), commit]


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                   env=materialise._git_env())  # fmt: skip


def test_a_repository_whose_head_moved_is_rebuilt(tmp_path: Path) -> None:
    source, destination, commit = _one_file_repository(tmp_path)
    (destination / "a.txt").write_text("changed\n")
    _git(destination, "commit", "-q", "-am", "moved")
    assert materialise._head_commit(destination) != commit
    assert materialise.materialise_tree(source, destination) == commit
    assert materialise._head_commit(destination) == commit
    assert (destination / "a.txt").read_text() == "a\n"


@pytest.mark.parametrize("how", ["packed", "detached"])
def test_head_is_read_whatever_git_keeps_it_as(
    tmp_path: Path, how: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A packed branch ref (no loose file) is asked of git; a detached HEAD is read."""
    source, destination, commit = _one_file_repository(tmp_path)
    if how == "packed":
        _git(destination, "pack-refs", "--all", "--prune")
        assert not list((destination / ".git" / "refs" / "heads").iterdir())
    else:
        _git(destination, "checkout", "-q", "--detach")
        assert (destination / ".git" / "HEAD").read_text().strip() == commit
    assert materialise._head_commit(destination) == commit
    calls = _counting_git(monkeypatch)
    assert materialise.materialise_tree(source, destination) == commit
    assert calls == ([("rev-parse", "HEAD")] if how == "packed" else [])


def test_a_broken_head_is_rebuilt(tmp_path: Path) -> None:
    source, destination, commit = _one_file_repository(tmp_path)
    (destination / ".git" / "HEAD").write_text("ref: refs/heads/nowhere\n")
    assert materialise._head_commit(destination) is None
    assert materialise.materialise_tree(source, destination) == commit
    assert materialise._head_commit(destination) == commit
