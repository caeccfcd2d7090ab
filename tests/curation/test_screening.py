"""Repository screening: every rule is reported, with its evidence."""

from __future__ import annotations

from datetime import datetime, timezone

from polybench.curation.github import GitHubClient
from polybench.curation.screening import (
    RULES,
    SWE_BENCH_REPOS,
    ScreeningSettings,
    english_verdict,
    screen_repository,
)
from tests.curation.fake_github import FakeGitHub

ENGLISH = (
    "A fast parser for configuration files. It reads the file, checks every value against "
    "the schema and reports all the errors it finds with their line numbers. Install it "
    "with pip and call load() with the path of your file."
)
NOW = datetime(2025, 6, 1, tzinfo=timezone.utc)


def _pulls(fake: FakeGitHub, repo: str, count: int) -> None:
    for number in range(1, count + 1):
        fake.add_pull(repo, number, title="x", created_at="2024-01-01T00:00:00Z", merged_at=None)


def _verdicts(fake: FakeGitHub, repo: str, **settings: object) -> dict[str, tuple[bool, str]]:
    with GitHubClient(api_url=fake.url, sleep=lambda _s: None) as client:
        screening = screen_repository(client, repo, ScreeningSettings(now=NOW, **settings))  # type: ignore[arg-type]
    assert [r.rule for r in screening.rules] == list(RULES)
    return {r.rule: (r.passed, r.detail) for r in screening.rules}


def test_a_good_repository_passes_every_rule(fake_github: FakeGitHub) -> None:
    fake_github.add_repo(
        "acme/confparse",
        language="TypeScript",
        licence="Apache-2.0",
        pushed_at="2025-03-01T00:00:00Z",
        readme=ENGLISH,
    )
    _pulls(fake_github, "acme/confparse", 101)
    verdicts = _verdicts(fake_github, "acme/confparse")
    assert all(passed for passed, _ in verdicts.values()), verdicts
    assert verdicts["min_prs"][1] == "101 pull requests"
    assert verdicts["licence"][1] == "licence: Apache-2.0"
    with GitHubClient(api_url=fake_github.url) as client:
        screening = screen_repository(client, "acme/confparse", ScreeningSettings(now=NOW))
    assert screening.passed and screening.language == "TypeScript"


def test_each_failing_rule_is_reported(fake_github: FakeGitHub) -> None:
    fake_github.add_repo(
        "pallets/flask",
        language="Go",
        licence="GPL-3.0",
        description="Awesome list of interview questions",
        topics=["tutorial"],
        pushed_at="2022-01-01T00:00:00Z",
        readme="Ceci est une bibliothèque pour analyser des fichiers de "
        "configuration. Elle vérifie chaque valeur et signale les erreurs "
        "avec leur numéro de ligne dans le fichier.",
    )
    _pulls(fake_github, "pallets/flask", 12)
    verdicts = _verdicts(fake_github, "pallets/flask")
    assert {rule for rule, (passed, _) in verdicts.items() if not passed} == set(RULES)
    assert verdicts["language"][1] == "primary language: Go"
    assert "awesome" in verdicts["implementation"][1]
    assert "interview" in verdicts["implementation"][1]
    assert "tutorial" in verdicts["implementation"][1]
    assert verdicts["min_prs"][1] == "12 pull requests"
    assert verdicts["recently_updated"][1] == "last push 2022-01-01"
    assert verdicts["licence"][1] == "licence: GPL-3.0"
    assert verdicts["not_swe_bench"][1] == "a SWE-bench repository"


def test_skipped_rules_are_reported_but_do_not_block(fake_github: FakeGitHub) -> None:
    fake_github.add_repo("acme/small", readme=ENGLISH, pushed_at="2025-05-01T00:00:00Z")
    _pulls(fake_github, "acme/small", 5)
    with GitHubClient(api_url=fake_github.url) as client:
        strict = screen_repository(client, "acme/small", ScreeningSettings(now=NOW))
        lenient = screen_repository(
            client, "acme/small", ScreeningSettings(now=NOW, skip=frozenset({"min_prs"}))
        )
    assert not strict.passed and strict.failed_rules == ["min_prs"]
    assert lenient.passed
    assert [r.skipped for r in lenient.rules if r.rule == "min_prs"] == [True]


def test_licence_falls_back_to_the_licence_endpoint(fake_github: FakeGitHub) -> None:
    fake_github.add_repo("acme/lic", licence="BSD-3-Clause", readme=ENGLISH)
    fake_github.repos["acme/lic"]["license"] = {"key": "other", "spdx_id": "NOASSERTION"}
    fake_github.add_repo("acme/nolic", licence=None, readme=ENGLISH)
    assert _verdicts(fake_github, "acme/lic")["licence"] == (True, "licence: BSD-3-Clause")
    assert _verdicts(fake_github, "acme/nolic")["licence"] == (False, "licence: none")
    assert fake_github.count("GET /repos/acme/lic/license") == 1


def test_missing_readme_falls_back_to_the_description(fake_github: FakeGitHub) -> None:
    fake_github.add_repo("acme/noreadme", description=ENGLISH)
    fake_github.add_repo("acme/terse", description="YAML parser")
    assert _verdicts(fake_github, "acme/noreadme")["english"][0] is True
    assert _verdicts(fake_github, "acme/terse")["english"] == (
        False,
        "only 2 words of prose in the README and description",
    )


def test_english_heuristic() -> None:
    assert english_verdict(ENGLISH)[0]
    german = (
        "Diese Bibliothek liest Konfigurationsdateien. Sie prüft jeden Wert gegen das "
        "Schema und meldet alle Fehler mit ihren Zeilennummern. Installation mit pip."
    )
    assert not english_verdict(german)[0]
    chinese = "这是一个用于解析配置文件的库。它会检查每个值并报告所有错误。" * 3
    ok, detail = english_verdict(chinese + " The parser.")
    assert not ok and "ASCII letters" in detail
    code_heavy = ENGLISH + "\n```python\nimport confparse\nconfparse.load('x.yaml')\n```\n"
    assert english_verdict(code_heavy)[0]


def test_swe_bench_list_has_the_twelve_repositories() -> None:
    assert len(SWE_BENCH_REPOS) == 12
    assert {"django/django", "sympy/sympy", "astropy/astropy"} <= SWE_BENCH_REPOS
