"""Repository screening: the paper's rules for a repository to be mined (section 3).

Each rule gives a verdict and the evidence behind it, so a user sees why a repository
was kept or dropped:

- ``language``: GitHub's primary language is Java, JavaScript, TypeScript or Python;
- ``implementation``: not a guide, tutorial, course, book, list or similar: none of
  :data:`NON_IMPLEMENTATION_WORDS` appears as a word in the name, description or topics;
- ``min_prs``: at least ``min_prs`` pull requests (100 in the paper);
- ``recently_updated``: pushed to within ``max_age_days`` (the last 12 months);
- ``licence``: the licence's SPDX id is in :data:`PERMISSIVE_LICENCES`;
- ``english``: the README and description are mostly English (see :func:`english_verdict`);
- ``not_swe_bench``: not one of the 12 SWE-bench repositories.
"""

from __future__ import annotations

import base64
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any

from pydantic import BaseModel

from polybench.curation.github import GitHubClient
from polybench.dataset.models import Language

RULES = (
    "language",
    "implementation",
    "min_prs",
    "recently_updated",
    "licence",
    "english",
    "not_swe_bench",
)

SWE_BENCH_REPOS = frozenset(
    {
        "astropy/astropy",
        "django/django",
        "matplotlib/matplotlib",
        "mwaskom/seaborn",
        "pallets/flask",
        "psf/requests",
        "pydata/xarray",
        "pylint-dev/pylint",
        "pytest-dev/pytest",
        "scikit-learn/scikit-learn",
        "sphinx-doc/sphinx",
        "sympy/sympy",
    }
)
"""The 12 repositories of SWE-bench, excluded so results stay independent."""

PERMISSIVE_LICENCES = frozenset(
    {
        "0BSD",
        "Apache-2.0",
        "BSD-2-Clause",
        "BSD-3-Clause",
        "BSL-1.0",
        "CC0-1.0",
        "ISC",
        "MIT",
        "MIT-0",
        "PSF-2.0",
        "Python-2.0",
        "UPL-1.0",
        "Unlicense",
        "X11",
        "Zlib",
    }
)
"""SPDX ids of permissive licences (no copyleft, no non-commercial clause)."""

NON_IMPLEMENTATION_WORDS = frozenset(
    {
        "awesome",
        "tutorial",
        "tutorials",
        "guide",
        "guides",
        "course",
        "courses",
        "book",
        "books",
        "cheatsheet",
        "cheatsheets",
        "interview",
        "interviews",
        "roadmap",
        "curriculum",
        "bootcamp",
        "handbook",
        "exercises",
    }
)

_STOPWORD_TEXT = """
the and of to in is for on with that this it as be are by you or from an can not your will
if use which when has have all we at how was its but their more also these there any what
each into
"""
ENGLISH_STOPWORDS = frozenset(_STOPWORD_TEXT.split())
_CODE_BLOCK = re.compile(r"```.*?```|~~~.*?~~~", re.S)
_NOISE = re.compile(r"`[^`]*`|https?://\S+|<[^>]+>|\]\([^)]*\)|&\w+;")
_MIN_ENGLISH_WORDS = 10


@dataclass(frozen=True)
class ScreeningSettings:
    """Thresholds of the screening rules."""

    min_prs: int = 100
    max_age_days: int = 365
    licences: frozenset[str] = PERMISSIVE_LICENCES
    skip: frozenset[str] = frozenset()
    now: datetime | None = None


class RuleResult(BaseModel):
    """One rule's verdict on one repository."""

    rule: str
    passed: bool
    detail: str
    skipped: bool = False


class RepoScreening(BaseModel):
    """Every rule's verdict on one repository."""

    repo: str
    language: str | None = None
    default_branch: str | None = None
    rules: list[RuleResult] = []

    @property
    def passed(self) -> bool:
        """True when every rule that was not skipped passed."""
        return all(r.passed or r.skipped for r in self.rules)

    @property
    def failed_rules(self) -> list[str]:
        """Names of the rules that failed (and were not skipped)."""
        return [r.rule for r in self.rules if not r.passed and not r.skipped]


def english_verdict(text: str) -> tuple[bool, str]:
    """Whether ``text`` (README + description) is mostly English, and why.

    Code blocks, inline code, URLs and markup are removed first. Then at least 90% of
    the letters must be ASCII (other scripts fail) and at least 10% of the words must be
    common English function words (other Latin-script languages fail), over at least 10
    words.
    """
    prose = _NOISE.sub(" ", _CODE_BLOCK.sub(" ", text))
    letters = [c for c in prose if c.isalpha()]
    words = re.findall(r"[a-z]+(?:'[a-z]+)?", prose.lower())
    ascii_share = sum(c.isascii() for c in letters) / len(letters) if letters else 0.0
    if letters and ascii_share < 0.9:
        return False, f"{100 * ascii_share:.0f}% ASCII letters"
    if len(words) < _MIN_ENGLISH_WORDS:
        return False, f"only {len(words)} words of prose in the README and description"
    stop_share = sum(w in ENGLISH_STOPWORDS for w in words) / len(words)
    detail = (
        f"{100 * ascii_share:.0f}% ASCII letters, {100 * stop_share:.0f}% English function "
        f"words over {len(words)} words"
    )
    return ascii_share >= 0.9 and stop_share >= 0.10, detail


def _readme_text(client: GitHubClient, repo: str) -> str:
    readme = client.get_json(f"/repos/{repo}/readme")
    if not isinstance(readme, dict):
        return ""
    content = str(readme.get("content", ""))
    if readme.get("encoding") == "base64":
        return base64.b64decode(content).decode("utf-8", "replace")
    return content


def _licence_id(client: GitHubClient, repo: str, meta: dict[str, Any]) -> str | None:
    licence = meta.get("license") or {}
    spdx = licence.get("spdx_id") if isinstance(licence, dict) else None
    if spdx and spdx != "NOASSERTION":
        return str(spdx)
    detail = client.get_json(f"/repos/{repo}/license")
    if isinstance(detail, dict) and isinstance(detail.get("license"), dict):
        spdx = detail["license"].get("spdx_id")
    return str(spdx) if spdx else None


def _parse_time(value: str | None) -> datetime | None:
    if not value:
        return None
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


@dataclass
class _Verdicts:
    settings: ScreeningSettings
    results: list[RuleResult] = field(default_factory=list)

    def add(self, rule: str, passed: bool, detail: str) -> None:
        skipped = rule in self.settings.skip
        self.results.append(RuleResult(rule=rule, passed=passed, detail=detail, skipped=skipped))


def screen_repository(
    client: GitHubClient, repo: str, settings: ScreeningSettings | None = None
) -> RepoScreening:
    """Apply every screening rule to ``repo`` (``owner/name``)."""
    settings = settings or ScreeningSettings()
    meta = client.get_json(f"/repos/{repo}")
    if not isinstance(meta, dict):
        raise LookupError(f"repository {repo} not found")
    full_name = str(meta.get("full_name") or repo)
    verdicts = _Verdicts(settings)

    language = meta.get("language")
    known = [member.value for member in Language]
    verdicts.add("language", language in known, f"primary language: {language or 'none'}")

    topics = " ".join(meta.get("topics") or [])
    words = re.findall(
        r"[a-z]+", f"{meta.get('name', '')} {meta.get('description') or ''} {topics}".lower()
    )
    hits = sorted(set(words) & NON_IMPLEMENTATION_WORDS)
    verdicts.add(
        "implementation",
        not hits,
        f"name/description/topics mention {', '.join(hits)}" if hits else "no guide/list words",
    )

    pulls = client.count(f"/repos/{repo}/pulls", {"state": "all"})
    verdicts.add("min_prs", pulls >= settings.min_prs, f"{pulls} pull requests")

    now = settings.now or datetime.now(timezone.utc)
    pushed = _parse_time(meta.get("pushed_at") or meta.get("updated_at"))
    recent = pushed is not None and now - pushed <= timedelta(days=settings.max_age_days)
    verdicts.add("recently_updated", recent, f"last push {pushed.date() if pushed else 'unknown'}")

    spdx = _licence_id(client, repo, meta)
    verdicts.add("licence", spdx in settings.licences, f"licence: {spdx or 'none'}")

    prose = f"{meta.get('description') or ''}\n{_readme_text(client, repo)}"
    english, detail = english_verdict(prose)
    verdicts.add("english", english, detail)

    in_swe_bench = full_name.lower() in SWE_BENCH_REPOS or repo.lower() in SWE_BENCH_REPOS
    verdicts.add(
        "not_swe_bench",
        not in_swe_bench,
        "a SWE-bench repository" if in_swe_bench else "not in SWE-bench",
    )
    return RepoScreening(
        repo=full_name,
        language=language if language in known else None,
        default_branch=meta.get("default_branch"),
        rules=verdicts.results,
    )
