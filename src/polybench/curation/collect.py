"""Collect candidate pull requests from the GitHub API.

A pull request becomes a :class:`Candidate` when it was merged, closes at least one issue
of the same repository (a closing keyword in its title or body, or an issue linked to it
on GitHub, looked up through GraphQL when a token is set), and changes at least one test
file and one non-test file. Its ``problem_statement`` is the text (title and body) of
the issues it closes; its ``hints_text`` the comments on those issues that were written
before the pull request's first commit.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from polybench.curation.candidates import (
    Candidate,
    Rejection,
    closing_issue_refs,
    instance_id_for,
    rejection_counts,
)
from polybench.curation.github import DIFF_MEDIA, GitHubClient, GitHubError
from polybench.curation.testpaths import TestPathRules
from polybench.dataset.models import Language

LINKED_ISSUES_QUERY = """
query($owner: String!, $name: String!, $number: Int!) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      closingIssuesReferences(first: 20) {
        nodes { number repository { nameWithOwner } }
      }
    }
  }
}
"""

NAMED_WITHOUT_ISSUE = (
    "no issue: {why}; kept because it was named, with its own description as the problem statement"
)
REJECTION_REASONS = (
    "not_found",
    "not_merged",
    "no_issue",
    "no_test_files",
    "no_code_files",
    "empty_diff",
)


@dataclass
class Issue:
    """The parts of an issue a candidate needs."""

    number: int
    title: str
    body: str
    comments: list[tuple[str, str]] = field(default_factory=list)
    """(created_at, body) of every comment, oldest first."""

    @property
    def text(self) -> str:
        """Title and body, as the problem statement shows them."""
        return f"{self.title}\n{self.body}".strip() if self.body else self.title


@dataclass
class RepoCollection:
    """What collection found for one repository."""

    repo: str
    seen: int = 0
    candidates: list[Candidate] = field(default_factory=list)
    rejected: list[Rejection] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        """Rejections per reason."""
        return rejection_counts(self.rejected)


def parse_time(value: str) -> datetime:
    """An ISO-8601 time (``Z`` accepted)."""
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def hints_before(issues: list[Issue], first_commit: str | None) -> str:
    """Comments on ``issues`` created before ``first_commit`` (all of them when unknown)."""
    limit = parse_time(first_commit) if first_commit else None
    kept = [
        body
        for issue in issues
        for created, body in issue.comments
        if limit is None or parse_time(created) < limit
    ]
    return "\n".join(kept)


class IssueSource:
    """Fetches issues (with their comments) of one repository through the API."""

    def __init__(self, client: GitHubClient, repo: str) -> None:
        self.client = client
        self.repo = repo

    def get(self, number: int) -> Issue | None:
        """The issue, or None when it does not exist or is a pull request."""
        data = self.client.get_json(f"/repos/{self.repo}/issues/{number}")
        if not isinstance(data, dict) or data.get("pull_request"):
            return None
        comments = [
            (str(c["created_at"]), str(c.get("body") or ""))
            for c in self.client.paginate(
                f"/repos/{self.repo}/issues/{number}/comments", {"per_page": 100}
            )
        ]
        return Issue(number, str(data.get("title") or ""), str(data.get("body") or ""), comments)


class PullCollector:
    """Turns one repository's closed pull requests into candidates."""

    def __init__(
        self,
        client: GitHubClient,
        rules: TestPathRules,
        linked_issues: bool | None = None,
        on_pull: Callable[[int, str], None] | None = None,
    ) -> None:
        self.client = client
        self.rules = rules
        self.linked_issues = bool(client.token) if linked_issues is None else linked_issues
        self.on_pull = on_pull

    def collect(
        self,
        repo: str,
        language: Language,
        max_prs: int | None = None,
        numbers: Iterable[int] | None = None,
    ) -> RepoCollection:
        """Every closed pull request of ``repo``, oldest first, classified.

        With ``numbers``, only those pull requests, fetched one by one in that order; a
        number that is not a pull request of ``repo`` is rejected as ``not_found``.
        """
        collection = RepoCollection(repo=repo)
        issues = IssueSource(self.client, repo)
        pulls = self._closed_pulls(repo) if numbers is None else self._named(repo, numbers)
        for pull in pulls:
            if max_prs is not None and collection.seen >= max_prs:
                break
            if isinstance(pull, Rejection):
                collection.rejected.append(pull)
                continue
            collection.seen += 1
            outcome = self._classify(repo, language, pull, issues, numbers is not None)
            if isinstance(outcome, Candidate):
                collection.candidates.append(outcome)
                verdict = "kept"
            else:
                collection.rejected.append(outcome)
                verdict = outcome.reason
            if self.on_pull is not None:
                self.on_pull(int(pull["number"]), verdict)
        return collection

    def _closed_pulls(self, repo: str) -> Iterator[dict[str, Any]]:
        params = {"state": "closed", "sort": "created", "direction": "asc", "per_page": 100}
        yield from self.client.paginate(f"/repos/{repo}/pulls", params)

    def _named(self, repo: str, numbers: Iterable[int]) -> Iterator[dict[str, Any] | Rejection]:
        for number in dict.fromkeys(numbers):
            pull = self.client.get_json(f"/repos/{repo}/pulls/{number}")
            if isinstance(pull, dict):
                yield pull
            else:
                item = instance_id_for(repo, number)
                yield Rejection(item=item, reason="not_found", detail="no such pull request")

    def _linked(self, repo: str, number: int) -> list[int]:
        if not self.linked_issues:
            return []
        owner, name = repo.split("/", 1)
        try:
            data = self.client.graphql(
                LINKED_ISSUES_QUERY, {"owner": owner, "name": name, "number": number}
            )
        except GitHubError:
            return []
        pull = ((data or {}).get("repository") or {}).get("pullRequest") or {}
        nodes = (pull.get("closingIssuesReferences") or {}).get("nodes") or []
        return [
            int(node["number"])
            for node in nodes
            if str((node.get("repository") or {}).get("nameWithOwner", repo)).lower()
            == repo.lower()
        ]

    def _classify(
        self,
        repo: str,
        language: Language,
        pull: dict[str, Any],
        issues: IssueSource,
        named: bool = False,
    ) -> Candidate | Rejection:
        """A candidate or a rejection; a ``named`` pull request (``--pr``) that closes no
        issue is kept with a note, its own title and body as the problem statement."""
        number = int(pull["number"])
        item = instance_id_for(repo, number)
        if not pull.get("merged_at"):
            return Rejection(item=item, reason="not_merged")
        text = f"{pull.get('title') or ''}\n{pull.get('body') or ''}"
        numbers = closing_issue_refs(text, repo) or self._linked(repo, number)
        notes: list[str] = []
        if not numbers:
            if not named:
                return Rejection(item=item, reason="no_issue", detail="no closing keyword or link")
            notes.append(NAMED_WITHOUT_ISSUE.format(why="it closes none with a keyword or link"))
        found = [issue for issue in (issues.get(n) for n in numbers) if issue is not None]
        if numbers and not found:
            refs = ", ".join(f"#{n}" for n in numbers)
            if not named:
                return Rejection(item=item, reason="no_issue", detail=f"{refs}: not issues")
            notes.append(NAMED_WITHOUT_ISSUE.format(why=f"{refs} are not issues"))
        files = [
            str(f["filename"])
            for f in self.client.paginate(f"/repos/{repo}/pulls/{number}/files", {"per_page": 100})
        ]
        tests = [f for f in files if self.rules.is_test(f, language)]
        if not tests:
            return Rejection(item=item, reason="no_test_files", detail=f"{len(files)} files")
        if len(tests) == len(files):
            return Rejection(item=item, reason="no_code_files", detail="only test files")
        diff = self.client.get(f"/repos/{repo}/pulls/{number}", accept=DIFF_MEDIA).text
        if not diff.strip():
            return Rejection(item=item, reason="empty_diff")
        dates = [
            str((c.get("commit") or {}).get("author", {}).get("date") or "")
            for c in self.client.paginate(
                f"/repos/{repo}/pulls/{number}/commits", {"per_page": 100}
            )
        ]
        first_commit = min((d for d in dates if d), key=parse_time, default=None)
        return Candidate(
            instance_id=item,
            repo=repo,
            pull_number=number,
            language=language.value,
            base_commit=str(pull["base"]["sha"]),
            created_at=pull.get("created_at"),
            merged_at=pull.get("merged_at"),
            title=str(pull.get("title") or ""),
            body=str(pull.get("body") or ""),
            issue_numbers=[str(issue.number) for issue in found],
            problem_statement="\n\n".join(issue.text for issue in found) or text.strip(),
            hints_text=hints_before(found, first_commit),
            diff=diff,
            source="github",
            notes=notes,
        )
