"""The GitHub client against a local fake of the REST API: pagination, cache, rate limits."""

from __future__ import annotations

from pathlib import Path

import pytest

from polybench.curation.github import (
    DIFF_MEDIA,
    GitHubClient,
    GitHubError,
    RateLimitError,
    page_number,
    parse_link,
)
from tests.curation.fake_github import FakeGitHub


def _repo_with_pulls(fake: FakeGitHub, count: int) -> None:
    fake.add_repo("acme/lib")
    for number in range(1, count + 1):
        fake.add_pull(
            "acme/lib",
            number,
            title=f"PR {number}",
            created_at=f"2024-01-01T00:00:{number % 60:02d}Z",
            merged_at=None,
            diff=f"diff --git a/f{number} b/f{number}\n",
        )


def test_link_header_parsing() -> None:
    header = (
        '<https://api.github.com/repositories/1/pulls?page=2>; rel="next", '
        '<https://api.github.com/repositories/1/pulls?page=7>; rel="last"'
    )
    links = parse_link(header)
    assert links == {
        "next": "https://api.github.com/repositories/1/pulls?page=2",
        "last": "https://api.github.com/repositories/1/pulls?page=7",
    }
    assert page_number(links["last"]) == 7
    assert parse_link("") == {}


def test_paginate_follows_link_headers_and_counts(fake_github: FakeGitHub) -> None:
    _repo_with_pulls(fake_github, 250)
    with GitHubClient(api_url=fake_github.url, token="t0ken") as client:
        numbers = [
            p["number"]
            for p in client.paginate("/repos/acme/lib/pulls", {"state": "closed", "per_page": 100})
        ]
        assert sorted(numbers) == list(range(1, 251))
        assert fake_github.count(r"GET /repos/acme/lib/pulls\?") == 3
        assert client.count("/repos/acme/lib/pulls", {"state": "all"}) == 250
    assert set(fake_github.authorizations) == {"Bearer t0ken"}


def test_token_comes_from_the_environment(
    fake_github: FakeGitHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    _repo_with_pulls(fake_github, 1)
    monkeypatch.setenv("GITHUB_TOKEN", "from-env")
    with GitHubClient(api_url=fake_github.url) as client:
        client.get_json("/repos/acme/lib")
    monkeypatch.delenv("GITHUB_TOKEN")
    with GitHubClient(api_url=fake_github.url) as client:
        client.get_json("/repos/acme/lib")
    assert fake_github.authorizations == ["Bearer from-env", None]


def test_cache_replays_a_rerun_without_requests(fake_github: FakeGitHub, tmp_path: Path) -> None:
    _repo_with_pulls(fake_github, 120)
    cache = tmp_path / "cache"

    def crawl(client: GitHubClient) -> tuple[list[int], str, object]:
        pulls = [
            p["number"]
            for p in client.paginate("/repos/acme/lib/pulls", {"state": "closed", "per_page": 50})
        ]
        diff = client.get("/repos/acme/lib/pulls/7", accept=DIFF_MEDIA).text
        return pulls, diff, client.get_json("/repos/acme/lib/issues/999")

    with GitHubClient(api_url=fake_github.url, cache_dir=cache) as first:
        expected = crawl(first)
    sent = len(fake_github.requests)
    assert sent == 5 and first.requests_made == 5  # 3 pages, the diff, a 404
    assert expected[1].startswith("diff --git a/f7") and expected[2] is None

    with GitHubClient(api_url=fake_github.url, cache_dir=cache) as second:
        assert crawl(second) == expected
    assert len(fake_github.requests) == sent and second.requests_made == 0
    assert second.cache_hits == 5

    with GitHubClient(api_url=fake_github.url, cache_dir=cache, refresh=True) as third:
        crawl(third)
    assert third.requests_made == 5


def test_json_and_diff_of_one_url_are_cached_apart(fake_github: FakeGitHub, tmp_path: Path) -> None:
    _repo_with_pulls(fake_github, 1)
    with GitHubClient(api_url=fake_github.url, cache_dir=tmp_path) as client:
        pull = client.get_json("/repos/acme/lib/pulls/1")
        diff = client.get("/repos/acme/lib/pulls/1", accept=DIFF_MEDIA).text
    assert pull["number"] == 1 and diff.startswith("diff --git")


def test_rate_limit_403_waits_until_reset_then_retries(fake_github: FakeGitHub) -> None:
    _repo_with_pulls(fake_github, 3)
    fake_github.rate_limited = 2
    fake_github.rate_limit_reset_in = 1.0
    slept: list[float] = []
    with GitHubClient(api_url=fake_github.url, sleep=slept.append) as client:
        pulls = list(client.paginate("/repos/acme/lib/pulls", {"state": "closed"}))
    assert len(pulls) == 3
    assert len(slept) == 2 and all(0.0 < wait <= 3.5 for wait in slept)
    assert client.rate_limit_waits == slept
    assert fake_github.count("GET /repos/acme/lib/pulls") == 3


def test_retry_after_is_honoured(fake_github: FakeGitHub) -> None:
    _repo_with_pulls(fake_github, 1)
    fake_github.retry_after = 1
    slept: list[float] = []
    with GitHubClient(api_url=fake_github.url, sleep=slept.append) as client:
        assert client.get_json("/repos/acme/lib")["full_name"] == "acme/lib"
    assert slept == [1.0]


def test_a_reset_too_far_away_fails_instead_of_sleeping(fake_github: FakeGitHub) -> None:
    _repo_with_pulls(fake_github, 1)
    fake_github.rate_limited = 1
    fake_github.rate_limit_reset_in = 7200
    slept: list[float] = []
    client = GitHubClient(api_url=fake_github.url, max_rate_wait=60, sleep=slept.append)
    with client, pytest.raises(RateLimitError, match="resets in"):
        client.get_json("/repos/acme/lib")
    assert slept == []


def test_errors_name_the_status(fake_github: FakeGitHub) -> None:
    _repo_with_pulls(fake_github, 1)
    client = GitHubClient(api_url=fake_github.url, sleep=lambda _s: None)
    with client, pytest.raises(GitHubError) as raised:
        client.graphql("query { viewer { login } }", {})
    assert raised.value.status == 401
    client = GitHubClient(api_url="http://127.0.0.1:9", retries=1, sleep=lambda _s: None)
    with client, pytest.raises(GitHubError) as unreachable:
        client.get_json("/repos/acme/lib")
    assert unreachable.value.status is None
