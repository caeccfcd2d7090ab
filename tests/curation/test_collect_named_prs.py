"""``--pr``: collecting only the named pull requests through the (fake) GitHub API."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from polybench.curation.candidates import Candidate, read_jsonl
from polybench.curation.collect import PullCollector
from polybench.curation.github import GitHubClient
from polybench.curation.testpaths import TestPathRules
from polybench.dataset.models import Language
from tests.curation.conftest import curation_app
from tests.curation.fake_github import FakeGitHub
from tests.curation.textkit import REPO, BuiltPull

runner = CliRunner()


def test_collector_fetches_only_the_named_pull_requests(
    textkit: tuple[Path, list[BuiltPull]], fake_github: FakeGitHub
) -> None:
    with GitHubClient(api_url=fake_github.url, token="secret", sleep=lambda _s: None) as client:
        collector = PullCollector(client, TestPathRules())
        collection = collector.collect(REPO, Language.PYTHON, numbers=[9, 3, 11, 3, 404])
    assert collection.seen == 3
    assert [c.pull_number for c in collection.candidates] == [9, 3]
    reasons = [(r.item, r.reason) for r in collection.rejected]
    assert reasons == [("acme__textkit-11", "no_test_files"), ("acme__textkit-404", "not_found")]
    assert fake_github.count("state=closed") == 0  # no listing of every pull request
    assert fake_github.count("/pulls/13") == 0


def test_collect_cli_pr_option(
    textkit: tuple[Path, list[BuiltPull]], fake_github: FakeGitHub, tmp_path: Path
) -> None:
    out = tmp_path / "c.jsonl"
    args = ["collect", REPO, "--api-url", fake_github.url, "--cache-dir", str(tmp_path / "gh")]
    result = runner.invoke(
        curation_app(),
        [*args, "-o", str(out), "--pr", "15", "--pr", "5,13"],
        env={"GITHUB_TOKEN": "secret", "COLUMNS": "200"},
    )
    assert result.exit_code == 0, result.output
    assert "acme/textkit: 3 pull requests seen, 3 kept" in result.output
    assert [c.pull_number for c in read_jsonl(out, Candidate)] == [15, 5, 13]


def test_a_named_pull_request_that_closes_no_issue_is_kept_with_a_note(
    textkit: tuple[Path, list[BuiltPull]], fake_github: FakeGitHub
) -> None:
    # Pull request 5 names its issue only through a GitHub link, which is not looked up
    # here: it closes no issue that polybench can see.
    with GitHubClient(api_url=fake_github.url, sleep=lambda _s: None) as client:
        collector = PullCollector(client, TestPathRules(), linked_issues=False)
        every = collector.collect(REPO, Language.PYTHON)
        named = collector.collect(REPO, Language.PYTHON, numbers=[5])
    assert "acme__textkit-5" in {r.item for r in every.rejected if r.reason == "no_issue"}
    (kept,) = named.candidates
    assert kept.pull_number == 5 and kept.issue_numbers == []
    assert kept.notes and kept.notes[0].startswith("no issue: it closes none")
    assert kept.problem_statement.startswith("Allow lines exactly as long as the width")
