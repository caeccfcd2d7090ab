"""``collect --from-git --pr``: every pull request the user names is kept, with its base.

The history is built with real branches, merges, a rebase and a squash, as GitHub makes
them, and with the PR heads a clone gets from ``git fetch origin
'+refs/pull/*/head:refs/pull/*/head'``:

- #1 merged with a merge commit whose messages close an issue;
- #2 merged with a merge commit whose messages close none;
- #3 merged into a side branch (``release``) that was merged into ``main`` later by a
  merge commit that does not name it: #3's merge is not on the first-parent line;
- #4 merged by rebase: its two commits were replayed on ``main``, no subject names it;
- #5 squashed into one commit whose subject does not name it;
- #6 named but never opened; #7 opened (its head fetched) but never merged;
- #8 merged with a merge commit that has a subject alone (no description).
"""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from polybench.curation.candidates import Candidate, read_jsonl
from polybench.curation.gitsource import candidates_from_git
from polybench.curation.testpaths import TestPathRules
from polybench.dataset.models import Language
from tests.curation.conftest import curation_app
from tests.curation.test_gitsource_base import REPO, Clone

runner = CliRunner()


def _change(name: str, value: int) -> dict[str, str]:
    return {
        f"calc/{name}.py": f"def {name}():\n    return {value}\n",
        f"tests/test_{name}.py": f"from calc.{name} import {name}\n\n\ndef test_{name}():\n"
        f"    assert {name}() == {value}\n",
    }


def _pull_head(clone: Clone, number: int, commit: str) -> None:
    clone.git("update-ref", f"refs/pull/{number}/head", commit)


def _history(tmp_path: Path) -> tuple[Clone, dict[int, tuple[str, str]]]:
    """The clone and, per merged pull request, (expected base, PR head)."""
    clone = Clone(tmp_path)
    clone.commit("Start", {"calc/__init__.py": "", "tests/__init__.py": ""})
    expected: dict[int, tuple[str, str]] = {}

    base1 = clone.git("rev-parse", "HEAD")
    clone.git("checkout", "-q", "-b", "one")
    head1 = clone.commit("Add one\n\nFixes #10", _change("one", 1))
    clone.git("checkout", "-q", "main")
    clone.commit("Unrelated work on main", {"README.md": "calc\n"})
    clone.merge("one", 1, "Add one")
    _pull_head(clone, 1, head1)
    expected[1] = (base1, head1)

    base2 = clone.git("rev-parse", "HEAD")
    clone.git("checkout", "-q", "-b", "two")
    head2 = clone.commit("Add two", _change("two", 2))
    clone.git("checkout", "-q", "main")
    clone.merge("two", 2, "Add two, as discussed on the mailing list")
    _pull_head(clone, 2, head2)
    expected[2] = (base2, head2)

    clone.git("checkout", "-q", "-b", "release")
    release_tip = clone.commit("Prepare the release", {"CHANGES.md": "1.0\n"})
    clone.git("checkout", "-q", "-b", "three")
    head3 = clone.commit("Add three", _change("three", 3))
    clone.git("checkout", "-q", "release")
    clone.commit("Release notes", {"CHANGES.md": "1.0 soon\n"})
    clone.merge("three", 3, "Add three to the release")
    clone.git("checkout", "-q", "main")
    clone.commit("More on main", {"README.md": "calc, a calculator\n"})
    clone.git("merge", "-q", "--no-ff", "release", "-m", "Merge branch 'release'")
    _pull_head(clone, 3, head3)
    expected[3] = (release_tip, head3)

    base4 = clone.git("rev-parse", "HEAD")
    clone.git("checkout", "-q", "-b", "four")
    clone.commit("Add four", {"calc/four.py": "def four():\n    return 4\n"})
    head4 = clone.commit(
        "Test four", {"tests/test_four.py": _change("four", 4)["tests/test_four.py"]}
    )
    clone.git("checkout", "-q", "main")
    clone.commit("Main moves on", {"README.md": "calc: add and more\n"})
    clone.git("cherry-pick", f"{base4}..{head4}")
    _pull_head(clone, 4, head4)
    expected[4] = (base4, head4)

    base5 = clone.git("rev-parse", "HEAD")
    clone.git("checkout", "-q", "-b", "five")
    clone.commit("Add five", {"calc/five.py": "def five():\n    return 5\n"})
    head5 = clone.commit(
        "Test five", {"tests/test_five.py": _change("five", 5)["tests/test_five.py"]}
    )
    clone.git("checkout", "-q", "main")
    clone.git("merge", "-q", "--squash", "five")
    clone.git("commit", "-q", "-m", "Five, squashed")
    _pull_head(clone, 5, head5)
    expected[5] = (base5, head5)

    base8 = clone.git("rev-parse", "HEAD")
    clone.git("checkout", "-q", "-b", "eight")
    head8 = clone.commit("Add eight\n\nEight is needed by the parser.", _change("eight", 8))
    clone.git("checkout", "-q", "main")
    clone.git("merge", "-q", "--no-ff", "eight", "-m", "Merge pull request #8 from dev/eight")
    _pull_head(clone, 8, head8)
    expected[8] = (base8, head8)

    clone.git("checkout", "-q", "-b", "seven")
    head7 = clone.commit("Add seven", _change("seven", 7))
    clone.git("checkout", "-q", "main")
    _pull_head(clone, 7, head7)
    return clone, expected


def test_every_named_pull_request_is_kept_with_its_base(tmp_path: Path) -> None:
    clone, expected = _history(tmp_path)
    collection = candidates_from_git(
        clone.path, REPO, Language.PYTHON, TestPathRules(), numbers=[1, 2, 3, 4, 5, 6, 7, 8]
    )
    kept = {c.pull_number: c for c in collection.candidates}
    assert sorted(kept) == [1, 2, 3, 4, 5, 8], collection.rejected
    for number, (base, head) in expected.items():
        candidate = kept[number]
        assert candidate.base_commit == base, number
        assert candidate.diff == clone.diff(base, head), number
    assert kept[1].issue_numbers == ["10"] and kept[1].notes == []
    assert kept[2].issue_numbers == [] and "no issue" in kept[2].notes[0]
    assert kept[2].problem_statement == "Add two, as discussed on the mailing list"
    assert any("refs/pull/4/head" in note for note in kept[4].notes)
    assert kept[4].problem_statement.startswith("Test four")
    assert any("refs/pull/5/head" in note for note in kept[5].notes)
    assert "calc/five.py" in kept[5].diff and "tests/test_five.py" in kept[5].diff
    assert kept[8].problem_statement == "Add eight\n\nEight is needed by the parser."
    reasons = {r.item: r.reason for r in collection.rejected}
    assert reasons == {"acme__calc-6": "not_found", "acme__calc-7": "not_merged"}


def test_pull_requests_without_an_issue_are_still_left_out_unless_named(tmp_path: Path) -> None:
    clone, _ = _history(tmp_path)
    collection = candidates_from_git(clone.path, REPO, Language.PYTHON, TestPathRules())
    assert [c.pull_number for c in collection.candidates] == [1]
    assert {r.item: r.reason for r in collection.rejected} == {
        "acme__calc-2": "no_issue",
        "acme__calc-8": "no_issue",
    }


def test_collect_cli_keeps_the_named_pull_requests_and_says_why(tmp_path: Path) -> None:
    clone, expected = _history(tmp_path)
    out = tmp_path / "c.jsonl"
    args = ["collect", "--from-git", str(clone.path), "--repo", REPO, "--no-api", "-o", str(out)]
    result = runner.invoke(curation_app(), [*args, "--pr", "1,2,3,4,5,8"])
    assert result.exit_code == 0, result.output
    assert "6 kept" in result.output
    assert "#2: kept; no issue" in result.output
    written = {c.pull_number: c.base_commit for c in read_jsonl(out, Candidate)}
    assert written == {number: base for number, (base, _head) in expected.items()}
