"""Pruned histories kept per commit: a checkout made from one holds the base commit's files
and nothing newer, owns its copy, and the kept ones stay within their size."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import NamedTuple

import pytest

from polybench.sandbox.local import LocalSandbox
from polybench.sandbox.pruned import PrunedStore, PrunedStoreError
from tests.helpers.docker_fixtures import commit_on_top, make_git_repo


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True)
    return done.stdout.strip()


class History(NamedTuple):
    """A repository with a base commit, a parent before it and a fix after it."""

    repo: Path
    first: str
    base: str
    fix: str


@pytest.fixture
def history(tmp_path: Path) -> History:
    repo, first = make_git_repo(tmp_path / "acme__calc", {"calc.py": "v = 0\n"})
    base = commit_on_top(repo, {"calc.py": "v = 1\n", "tests/test_calc.py": "t = 1\n"})
    fix = commit_on_top(repo, {"calc.py": "v = 2  # the fix\n"})
    _git(repo, "tag", "v1.0")
    return History(repo, first, base, fix)


def _reachable(checkout: Path) -> set[str]:
    return set(_git(checkout, "rev-list", "--all").split())


def test_a_checkout_from_the_kept_history_holds_the_base_and_nothing_newer(
    history: History, tmp_path: Path
) -> None:
    repo, base = history.repo, history.base
    store = PrunedStore(tmp_path / "pruned")
    checkout = tmp_path / "one"
    store.check_out(repo, base, "base", checkout)
    assert (checkout / "calc.py").read_text() == "v = 1\n"
    assert (checkout / "tests" / "test_calc.py").read_text() == "t = 1\n"
    assert _git(checkout, "rev-parse", "HEAD") == base
    assert _git(checkout, "status", "--porcelain") == ""
    assert _reachable(checkout) == {base}
    assert _git(checkout, "cat-file", "-t", history.fix) == ""
    assert _git(checkout, "tag") == "" and _git(checkout, "remote") == ""
    assert not (checkout / ".git" / "objects" / "info" / "alternates").exists()
    assert not (checkout / ".git" / "ORIG_HEAD").exists()
    assert store.kept(base, "base").is_dir()

    full = tmp_path / "full"
    store.check_out(repo, base, "full", full)
    assert _reachable(full) == {base, history.first}


def test_each_checkout_owns_its_copy_and_the_kept_one_is_reused_unchanged(
    history: History, tmp_path: Path
) -> None:
    repo, base = history.repo, history.base
    store = PrunedStore(tmp_path / "pruned")
    first = tmp_path / "first"
    store.check_out(repo, base, "base", first)
    kept = store.kept(base, "base")
    packs = sorted(p.name for p in (kept / "objects" / "pack").iterdir())
    # What code under test could do to its repository: new objects, refs, a moved HEAD.
    (first / "planted.txt").write_text("planted\n")
    _git(first, "add", "planted.txt")
    _git(first, "-c", "user.name=x", "-c", "user.email=x@x", "commit", "-qm", "planted")
    _git(first, "tag", "planted")
    assert _git(first, "rev-parse", "HEAD") != base

    second = tmp_path / "second"
    store.check_out(repo, base, "base", second)
    assert sorted(p.name for p in (kept / "objects" / "pack").iterdir()) == packs
    assert _git(second, "rev-parse", "HEAD") == base
    assert _reachable(second) == {base} and _git(second, "tag") == ""
    assert not (second / "planted.txt").exists()


def test_a_commit_that_is_no_hash_is_refused_and_a_sandbox_then_prunes_the_plain_way(
    history: History, tmp_path: Path
) -> None:
    repo, base = history.repo, history.base
    store = PrunedStore(tmp_path / "pruned")
    with pytest.raises(PrunedStoreError):
        store.check_out(repo, "HEAD~1", "base", tmp_path / "x")
    # A store that cannot keep anything (its folder is a file): the sandbox is made anyway.
    blocked = tmp_path / "blocked"
    blocked.write_text("")
    sandbox = LocalSandbox.create(
        repo, base, parent=tmp_path / "runs", isolation="none", pruned=PrunedStore(blocked)
    )
    try:
        assert (sandbox.checkout / "calc.py").read_text() == "v = 1\n"
        assert _reachable(sandbox.checkout) == {base}
    finally:
        sandbox.cleanup()
    # With a working store the sandbox's checkout is a copy of the kept history.
    sandbox = LocalSandbox.create(
        repo, base, parent=tmp_path / "runs", isolation="none", pruned=store
    )
    try:
        assert store.kept(base, "base").is_dir()
        assert _reachable(sandbox.checkout) == {base}
    finally:
        sandbox.cleanup()


def test_the_least_recently_used_kept_histories_go_beyond_the_size_limit(
    history: History, tmp_path: Path
) -> None:
    repo = history.repo
    commits = [history.first, history.base, history.fix]
    roomy = PrunedStore(tmp_path / "roomy")
    for index, commit in enumerate(commits):
        roomy.check_out(repo, commit, "base", tmp_path / f"roomy-{index}")
    assert all(roomy.kept(commit, "base").is_dir() for commit in commits)

    tight = PrunedStore(tmp_path / "tight", max_bytes=1)
    for index, commit in enumerate(commits):
        tight.check_out(repo, commit, "base", tmp_path / f"tight-{index}")
        assert (tmp_path / f"tight-{index}" / "calc.py").is_file()
    # Only the one just made is left (each alone is already over the limit).
    kept = sorted(p.name for p in (tmp_path / "tight").iterdir())
    assert kept == [f"{commits[-1]}.base"]
