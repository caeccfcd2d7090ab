"""The records passed between the curation stages, and reading/writing them as JSONL."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, Field

from polybench.atomic import atomic_write_text

CLOSING_KEYWORDS = (
    "close",
    "closes",
    "closed",
    "fix",
    "fixes",
    "fixed",
    "resolve",
    "resolves",
    "resolved",
)
"""GitHub's keywords that link a pull request to the issue it closes."""

_CLOSING = re.compile(
    r"(?<![\w-])(?:" + "|".join(CLOSING_KEYWORDS) + r")\s*:?\s+"
    r"(?:(?P<url>https?://github\.com/(?P<url_repo>[\w.-]+/[\w.-]+)/issues/(?P<url_n>\d+))"
    r"|(?P<repo>[\w.-]+/[\w.-]+)?#(?P<n>\d+))",
    re.IGNORECASE,
)


def closing_issue_refs(text: str, repo: str) -> list[int]:
    """Issue numbers of ``repo`` that ``text`` closes with a GitHub closing keyword.

    Recognised: ``fixes #12``, ``Closes: #12``, ``resolves owner/name#12`` and
    ``fixed https://github.com/owner/name/issues/12``. References to other repositories
    are ignored.
    """
    numbers: list[int] = []
    for match in _CLOSING.finditer(text or ""):
        other = match["url_repo"] or match["repo"]
        if other and other.lower() != repo.lower():
            continue
        number = int(match["url_n"] or match["n"])
        if number not in numbers:
            numbers.append(number)
    return numbers


class Candidate(BaseModel):
    """A merged pull request that resolves an issue and touches tests (``collect``'s output)."""

    instance_id: str
    repo: str
    pull_number: int
    language: str
    base_commit: str
    created_at: str | None = None
    merged_at: str | None = None
    title: str = ""
    body: str = ""
    issue_numbers: list[str] = Field(default_factory=list)
    problem_statement: str = ""
    hints_text: str = ""
    diff: str = ""
    source: str = "github"
    notes: list[str] = Field(default_factory=list)
    """What a reviewer should know: why it was kept although a rule would leave it out,
    or how it was found."""


class Rejection(BaseModel):
    """Why an item was left out at some stage."""

    item: str
    reason: str
    detail: str = ""


def rejection_counts(rejected: Iterable[Rejection]) -> dict[str, int]:
    """How many rejections there are of each reason, in first-seen order."""
    return dict(Counter(rejection.reason for rejection in rejected))


def instance_id_for(repo: str, number: int) -> str:
    """The official id: ``<owner>__<name>-<pull number>``."""
    return f"{repo.replace('/', '__')}-{number}"


Model = TypeVar("Model", bound=BaseModel)


def read_jsonl(path: Path, model: type[Model]) -> list[Model]:
    """Every line of a JSONL file as ``model``."""
    items: list[Model] = []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                items.append(model.model_validate_json(line))
            except ValueError as exc:
                raise ValueError(f"{path}:{number}: {exc}") from exc
    return items


def write_jsonl(path: Path, items: Iterable[BaseModel]) -> None:
    """Write models as JSONL, atomically."""
    lines = [json.dumps(item.model_dump(mode="json"), ensure_ascii=False) for item in items]
    atomic_write_text(path, "".join(line + "\n" for line in lines))
