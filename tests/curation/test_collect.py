"""Collecting candidate pull requests: from the (fake) GitHub API and from a local clone."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from polybench.curation.candidates import Candidate, closing_issue_refs, read_jsonl
from polybench.curation.collect import IssueSource, PullCollector
from polybench.curation.github import GitHubClient
from polybench.curation.gitsource import candidates_from_git, guess_language, repo_from_remote
from polybench.curation.testpaths import TestPathRules
from polybench.dataset.models import Language
from tests.curation.conftest import curation_app
from tests.curation.fake_github import FakeGitHub
from tests.curation.textkit import REPO, BuiltPull

runner = CliRunner()


def test_closing_keywords() -> None:
    text = (
        "Fixes #12, closes: #13 and RESOLVED acme/lib#14.\n"
        "fixed https://github.com/acme/lib/issues/15 - also see #16, fixes other/lib#17, "
        "prefix-fixes #18, fix #12 again"
    )
    assert closing_issue_refs(text, "acme/lib") == [12, 13, 14, 15]
    assert closing_issue_refs("Refs #3", "acme/lib") == []


def _collect(
    fake: FakeGitHub, token: str | None, linked: bool | None = None
) -> dict[str, Candidate | str]:
    with GitHubClient(api_url=fake.url, token=token or "", sleep=lambda _s: None) as client:
        collector = PullCollector(client, TestPathRules(), linked_issues=linked)
        collection = collector.collect(REPO, Language.PYTHON)
    assert collection.seen == 107
    outcome: dict[str, Candidate | str] = {c.instance_id: c for c in collection.candidates}
    outcome.update({r.item: r.reason for r in collection.rejected})
    return outcome


def test_collect_keeps_merged_prs_that_close_issues_and_touch_tests(
    textkit: tuple[Path, list[BuiltPull]], fake_github: FakeGitHub
) -> None:
    outcome = _collect(fake_github, token="secret")
    kept = sorted(k for k, v in outcome.items() if isinstance(v, Candidate))
    assert kept == [f"acme__textkit-{n}" for n in (13, 15, 3, 5, 9)]
    assert outcome["acme__textkit-7"] == "no_issue"  # "fixes #3" names a pull request
    assert outcome["acme__textkit-11"] == "no_test_files"
    assert sum(v == "not_merged" for v in outcome.values()) == 100

    three = outcome["acme__textkit-3"]
    assert isinstance(three, Candidate)
    pulls = {pull.spec.number: pull for pull in textkit[1]}
    assert three.base_commit == pulls[3].base and three.diff == pulls[3].diff
    assert three.issue_numbers == ["2"]
    assert three.problem_statement.startswith("snake_case splits acronyms into letters\n")
    assert three.hints_text == "I can reproduce issue 2; the helper is to blame."
    assert three.created_at == "2024-02-10T10:00:00Z" and three.language == "Python"
    five = outcome["acme__textkit-5"]
    assert isinstance(five, Candidate) and five.issue_numbers == ["4"]  # through GraphQL
    assert fake_github.count("POST /graphql") >= 1


def test_without_a_token_linked_issues_are_not_asked_for(
    textkit: tuple[Path, list[BuiltPull]], fake_github: FakeGitHub
) -> None:
    outcome = _collect(fake_github, token=None)
    assert outcome["acme__textkit-5"] == "no_issue"
    assert fake_github.count("POST /graphql") == 0


def test_collect_cli_reports_rules_and_resumes_from_cache(
    textkit: tuple[Path, list[BuiltPull]], fake_github: FakeGitHub, tmp_path: Path
) -> None:
    out = tmp_path / "candidates.jsonl"
    args = [
        "collect",
        REPO,
        "--api-url",
        fake_github.url,
        "--cache-dir",
        str(tmp_path / "c"),
        "-o",
        str(out),
    ]
    env = {"GITHUB_TOKEN": "secret", "COLUMNS": "200"}
    first = runner.invoke(curation_app(), args, env=env)
    assert first.exit_code == 0, first.output
    assert "min_prs" in first.output and "107 pull requests" in first.output
    assert (
        "acme/textkit: 107 pull requests seen, 5 kept; rejected: no_issue 1, "
        "no_test_files 1, not_merged 100" in first.output
    )
    sent = len(fake_github.requests)
    report = json.loads((tmp_path / "candidates.jsonl.report.json").read_text())
    repo_report = report["repositories"][0]
    assert repo_report["rejected"] == {"no_issue": 1, "no_test_files": 1, "not_merged": 100}
    assert repo_report["screening_passed"] is True
    assert len(read_jsonl(out, Candidate)) == 5

    out.unlink()
    second = runner.invoke(curation_app(), args, env=env)
    assert second.exit_code == 0, second.output
    assert len(fake_github.requests) == sent
    assert f"GitHub requests: 0 sent, {sent} answered from cache" in second.output
    assert len(read_jsonl(out, Candidate)) == 5


def test_a_screened_out_repository_is_not_mined(fake_github: FakeGitHub, tmp_path: Path) -> None:
    fake_github.add_repo("acme/tiny", readme="Tiny.")
    out = tmp_path / "c.jsonl"
    result = runner.invoke(
        curation_app(),
        [
            "collect",
            "acme/tiny",
            "--api-url",
            fake_github.url,
            "--cache-dir",
            str(tmp_path),
            "-o",
            str(out),
        ],
        env={"COLUMNS": "200"},
    )
    assert result.exit_code == 0, result.output
    assert "screened out by min_prs, english" in result.output
    assert out.read_text() == ""
    assert fake_github.count("state=closed") == 0
    bad = runner.invoke(curation_app(), ["collect", "acme/tiny", "--skip-rule", "nope"])
    assert bad.exit_code == 2 and "unknown rule(s) nope" in bad.output
    neither = runner.invoke(curation_app(), ["collect"])
    assert neither.exit_code == 2 and "--from-git" in neither.output


def test_from_git_reads_merge_commits(
    textkit: tuple[Path, list[BuiltPull]], fake_github: FakeGitHub
) -> None:
    clone, pulls = textkit
    assert guess_language(clone) is Language.PYTHON
    assert repo_from_remote(clone) is None
    offline = candidates_from_git(clone, REPO, Language.PYTHON, TestPathRules())
    assert offline.seen == 7
    reasons = {r.item: r.reason for r in offline.rejected}
    assert reasons == {
        "acme__textkit-5": "no_issue",  # linked on GitHub only: invisible in git
        "acme__textkit-7": "no_issue",
        "acme__textkit-11": "no_test_files",
    }
    by_id = {c.instance_id: c for c in offline.candidates}
    assert sorted(by_id) == [f"acme__textkit-{n}" for n in (13, 15, 3, 9)]
    three = by_id["acme__textkit-3"]
    base = {p.spec.number: p for p in pulls}[3]
    assert three.base_commit == base.base and three.diff == base.diff
    assert three.problem_statement == "Split acronyms in snake_case"  # the PR title
    assert three.source == "git" and three.hints_text == ""

    with GitHubClient(api_url=fake_github.url) as client:
        online = candidates_from_git(
            clone, REPO, Language.PYTHON, TestPathRules(), IssueSource(client, REPO)
        )
    three = {c.instance_id: c for c in online.candidates}["acme__textkit-3"]
    assert three.problem_statement.startswith("snake_case splits acronyms")
    assert three.hints_text == "I can reproduce issue 2; the helper is to blame."


def test_from_git_cli(textkit: tuple[Path, list[BuiltPull]], tmp_path: Path) -> None:
    clone, _ = textkit
    out = tmp_path / "git.jsonl"
    result = runner.invoke(
        curation_app(),
        ["collect", "--from-git", str(clone), "--repo", REPO, "--no-api", "-o", str(out)],
        env={"COLUMNS": "200"},
    )
    assert result.exit_code == 0, result.output
    assert "7 pull requests seen, 4 kept; rejected: no_issue 2, no_test_files 1" in result.output
    no_repo = runner.invoke(curation_app(), ["collect", "--from-git", str(clone), "--no-api"])
    assert no_repo.exit_code == 1 and "pass --repo" in no_repo.output
