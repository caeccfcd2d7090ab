"""``polybench collect``: screen repositories and collect candidate pull requests."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from polybench.atomic import atomic_write_text
from polybench.cli.consoles import console, err_console, escape
from polybench.cli.defaults import DEFAULT_API_URL, SCREENING_RULES
from polybench.paths import cache_root

if TYPE_CHECKING:
    from rich.table import Table

    from polybench.curation.candidates import Candidate
    from polybench.curation.collect import PullCollector, RepoCollection
    from polybench.curation.github import GitHubClient
    from polybench.curation.screening import RepoScreening, ScreeningSettings
    from polybench.curation.testpaths import TestPathRules
    from polybench.dataset.models import Language


def _fail(message: str, code: int = 2) -> typer.Exit:
    err_console.print(f"[red]error:[/red] {escape(message)}")
    return typer.Exit(code)


def _screening_table(screening: RepoScreening) -> Table:
    from rich.table import Table

    table = Table(title=f"screening {escape(screening.repo)}")
    for column in ("rule", "verdict", "detail"):
        table.add_column(column)
    for rule in screening.rules:
        if rule.passed:
            verdict = "[green]pass[/green]"
        else:
            verdict = "[yellow]fail (skipped)[/yellow]" if rule.skipped else "[red]fail[/red]"
        table.add_row(escape(rule.rule), verdict, escape(rule.detail))
    return table


def _summary(collection: RepoCollection) -> str:
    counts = ", ".join(f"{reason} {n}" for reason, n in sorted(collection.counts().items()))
    return escape(
        f"{collection.repo}: {collection.seen} pull requests seen, "
        f"{len(collection.candidates)} kept" + (f"; rejected: {counts}" if counts else "")
    )


def _print_notes(collection: RepoCollection) -> None:
    for candidate in collection.candidates:
        for note in candidate.notes:
            console.print(f"  #{candidate.pull_number}: kept; {escape(note)}")


def _progress() -> Callable[[int, str], None]:
    seen = 0

    def on_pull(number: int, verdict: str) -> None:
        nonlocal seen
        seen += 1
        if verdict == "kept":
            console.print(f"  #{number}: kept")
        elif seen % 500 == 0:
            console.print(f"  {seen} pull requests looked at")

    return on_pull


def _language(value: str | None) -> Language | None:
    from polybench.dataset.models import Language

    if value is None:
        return None
    try:
        return Language.parse(value)
    except ValueError as exc:
        raise _fail(str(exc)) from exc


def _pull_numbers(values: list[str] | None) -> list[int] | None:
    """``--pr`` values (repeated and/or comma-separated, ``#`` allowed) as numbers."""
    if not values:
        return None
    numbers: list[int] = []
    for value in values:
        for part in value.split(","):
            text = part.strip().removeprefix("#")
            if not text:
                continue
            if not text.isdigit() or int(text) == 0:
                raise _fail(f"--pr: {part.strip()!r} is not a pull request number")
            numbers.append(int(text))
    if not numbers:
        raise _fail("--pr: no pull request number given")
    return list(dict.fromkeys(numbers))


def collect_command(
    repos: Annotated[
        list[str] | None, typer.Argument(help="Repositories to mine, as owner/name.")
    ] = None,
    from_git: Annotated[
        Path | None,
        typer.Option("--from-git", help="Build candidates from this local clone's history."),
    ] = None,
    repo: Annotated[
        str | None,
        typer.Option(
            metavar="OWNER/NAME", help="The --from-git clone's repository (default: origin)."
        ),
    ] = None,
    language: Annotated[
        str | None, typer.Option(help="Language of the instances (default: GitHub's / guessed).")
    ] = None,
    output: Annotated[Path, typer.Option("--output", "-o", help="Candidates JSONL file.")] = Path(
        "candidates.jsonl"
    ),
    api_url: Annotated[
        str, typer.Option(envvar="GITHUB_API_URL", help="GitHub REST API root.")
    ] = DEFAULT_API_URL,
    cache_dir: Annotated[
        Path | None, typer.Option(help="Response cache (default: <cache>/github).")
    ] = None,
    refresh: Annotated[bool, typer.Option(help="Ignore cached responses.")] = False,
    min_prs: Annotated[int, typer.Option(help="Screening: minimum pull requests.")] = 100,
    max_age_days: Annotated[int, typer.Option(help="Screening: maximum days since a push.")] = 365,
    skip_rule: Annotated[
        list[str] | None,
        typer.Option(metavar="RULE", help=f"Do not enforce a rule ({', '.join(SCREENING_RULES)})."),
    ] = None,
    ignore_screening: Annotated[
        bool, typer.Option(help="Collect even from repositories that fail screening.")
    ] = False,
    max_prs: Annotated[
        int | None, typer.Option(help="Look at no more than this many PRs per repo.")
    ] = None,
    pr: Annotated[
        list[str] | None,
        typer.Option(
            "--pr",
            metavar="N[,N...]",
            help="Only these pull requests (repeat the option, or comma-separate: --pr 12,15).",
        ),
    ] = None,
    test_paths: Annotated[
        Path | None, typer.Option(help="YAML file of test-path globs per language.")
    ] = None,
    linked_issues: Annotated[
        bool | None,
        typer.Option(
            "--linked-issues/--no-linked-issues",
            help="Ask GraphQL for issues linked to a PR (default: when GITHUB_TOKEN is set).",
        ),
    ] = None,
    no_api: Annotated[
        bool,
        typer.Option("--no-api", help="--from-git only: do not fetch issue texts from the API."),
    ] = False,
    max_rate_wait: Annotated[
        float, typer.Option(help="Longest wait (s) for a rate limit to reset.")
    ] = 3600.0,
) -> None:
    """Screen repositories and collect merged PRs that resolve an issue and touch tests."""
    from polybench.curation.candidates import write_jsonl
    from polybench.curation.collect import PullCollector
    from polybench.curation.github import GitHubClient, GitHubError
    from polybench.curation.screening import RULES, ScreeningSettings
    from polybench.curation.testpaths import TestPathRules

    if not repos and from_git is None:
        raise _fail("name at least one repository (owner/name) or use --from-git PATH")
    if repos and from_git is not None:
        raise _fail("give either repositories or --from-git, not both")
    numbers = _pull_numbers(pr)
    if numbers is not None and repos and len(repos) > 1:
        raise _fail("--pr names pull requests of one repository: give only one")
    unknown_rules = sorted(set(skip_rule or []) - set(RULES))
    if unknown_rules:
        raise _fail(f"unknown rule(s) {', '.join(unknown_rules)}; rules: {', '.join(RULES)}")
    try:
        rules = TestPathRules.from_yaml(test_paths) if test_paths else TestPathRules()
    except (OSError, ValueError) as exc:
        raise _fail(f"test paths: {exc}") from exc
    forced = _language(language)
    client = GitHubClient(
        api_url=api_url,
        cache_dir=cache_dir or cache_root() / "github",
        refresh=refresh,
        max_rate_wait=max_rate_wait,
    )
    report: dict[str, Any] = {"repositories": []}
    candidates: list[Candidate] = []
    collections: list[tuple[RepoCollection, RepoScreening | None]]
    try:
        if from_git is not None:
            collection = _from_git(client, from_git, repo, forced, rules, no_api, numbers)
            collections = [(collection, None)]
        else:
            settings = ScreeningSettings(
                min_prs=min_prs, max_age_days=max_age_days, skip=frozenset(skip_rule or [])
            )
            collector = PullCollector(client, rules, linked_issues, on_pull=_progress())
            collections = [
                _from_api(
                    client,
                    collector,
                    name,
                    settings,
                    forced,
                    ignore_screening,
                    max_prs,
                    numbers,
                )
                for name in repos or []
            ]
    except (GitHubError, LookupError, RuntimeError) as exc:
        raise _fail(str(exc), 1) from exc
    finally:
        client.close()
    for collection, screening in collections:
        candidates.extend(collection.candidates)
        report["repositories"].append(
            {
                "repo": collection.repo,
                "screening": screening.model_dump() if screening else None,
                "screening_passed": screening.passed if screening else None,
                "pull_requests_seen": collection.seen,
                "kept": len(collection.candidates),
                "rejected": collection.counts(),
                "rejections": [r.model_dump() for r in collection.rejected],
            }
        )
    write_jsonl(output, candidates)
    report_path = output.with_name(output.name + ".report.json")
    report["requests"] = {"sent": client.requests_made, "from_cache": client.cache_hits}
    atomic_write_text(report_path, json.dumps(report, indent=1) + "\n")
    console.print(f"wrote {len(candidates)} candidates to {escape(str(output))}")
    console.print(f"report: {escape(str(report_path))}")
    console.print(
        f"GitHub requests: {client.requests_made} sent, {client.cache_hits} answered from cache"
    )


def _from_api(
    client: GitHubClient,
    collector: PullCollector,
    name: str,
    settings: ScreeningSettings,
    forced: Language | None,
    ignore_screening: bool,
    max_prs: int | None,
    numbers: list[int] | None,
) -> tuple[RepoCollection, RepoScreening]:
    from polybench.curation.collect import RepoCollection
    from polybench.curation.screening import screen_repository
    from polybench.dataset.models import Language

    if name.count("/") != 1:
        raise LookupError(f"{name!r} is not owner/name")
    screening = screen_repository(client, name, settings)
    console.print(_screening_table(screening))
    language = forced or (Language.parse(screening.language) if screening.language else None)
    if not screening.passed and not ignore_screening:
        console.print(
            f"{escape(screening.repo)}: [red]screened out[/red] by "
            f"{escape(', '.join(screening.failed_rules))}"
            " (use --ignore-screening or --skip-rule to collect anyway)"
        )
        return RepoCollection(repo=screening.repo), screening
    if language is None:
        raise LookupError(f"{screening.repo}: unknown language; pass --language")
    collection = collector.collect(screening.repo, language, max_prs, numbers)
    _print_notes(collection)
    console.print(_summary(collection))
    return collection, screening


def _from_git(
    client: GitHubClient,
    clone: Path,
    repo: str | None,
    forced: Language | None,
    rules: TestPathRules,
    no_api: bool,
    numbers: list[int] | None,
) -> RepoCollection:
    from polybench.curation.collect import IssueSource
    from polybench.curation.gitsource import candidates_from_git, guess_language, repo_from_remote

    if not (clone / ".git").exists() and not (clone / "HEAD").exists():
        raise LookupError(f"{clone} is not a git repository")
    name = repo or repo_from_remote(clone)
    if name is None:
        raise LookupError(f"cannot tell which GitHub repository {clone} is: pass --repo")
    language = forced or guess_language(clone)
    if language is None:
        raise LookupError(f"cannot guess the language of {clone}: pass --language")
    issues = None if no_api else IssueSource(client, name)
    collection = candidates_from_git(clone, name, language, rules, issues, numbers)
    _print_notes(collection)
    console.print(_summary(collection))
    return collection
