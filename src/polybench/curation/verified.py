"""The verified subset (paper appendix A): expert ratings, a quality rule, downsampling.

The annotations file holds one row per (instance, rater): a CSV with a header, or JSONL,
with the columns ``instance_id``, ``rater`` and the three scores, 0 to 3, named
``issue``, ``code`` and ``test`` (or ``issue_quality``, ``code_quality``,
``test_quality``). Appendix A's rule keeps an instance when every one of its raters gave

- issue quality >= 2 ("I have most / all of the information needed"),
- code quality == 2 ("all specified functionality is implemented exactly as described"),
- test quality >= 2 ("generally reliable" or "highly accurate" tests).

An instance without any rating is removed. Then each language is downsampled to at most
its limit, with a seeded random choice (the paper kept 100 JavaScript and 100 TypeScript
instances).
"""

from __future__ import annotations

import csv
import json
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from polybench.dataset.models import Instance, Language

_ALIASES = {"issue_quality": "issue", "code_quality": "code", "test_quality": "test"}


class Rating(BaseModel):
    """One rater's scores for one instance."""

    instance_id: str
    rater: str = "rater"
    issue: int = Field(ge=0, le=3)
    code: int = Field(ge=0, le=3)
    test: int = Field(ge=0, le=3)


def _rows(path: Path) -> list[dict[str, Any]]:
    if path.suffix.lower() == ".csv":
        with path.open(newline="", encoding="utf-8") as handle:
            return list(csv.DictReader(handle))
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if line.strip():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{number}: not valid JSON: {exc.msg}") from exc
    return rows


def load_ratings(path: Path) -> dict[str, list[Rating]]:
    """Ratings by instance id from a CSV or JSONL annotations file."""
    ratings: dict[str, list[Rating]] = {}
    for number, row in enumerate(_rows(path), start=1):
        data = {_ALIASES.get(key, key): value for key, value in row.items()}
        try:
            rating = Rating.model_validate(data)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(part) for part in first["loc"])
            raise ValueError(f"{path}: row {number}: {where}: {first['msg']}") from exc
        ratings.setdefault(rating.instance_id, []).append(rating)
    return ratings


def rule_violations(ratings: list[Rating]) -> list[str]:
    """Why these ratings exclude their instance (empty: it is kept)."""
    if not ratings:
        return ["not annotated"]
    reasons = []
    for rating in ratings:
        if rating.issue < 2:
            reasons.append(f"issue score {rating.issue} < 2 by {rating.rater}")
        if rating.code != 2:
            reasons.append(f"code score {rating.code} != 2 by {rating.rater}")
        if rating.test < 2:
            reasons.append(f"test score {rating.test} < 2 by {rating.rater}")
    return reasons


@dataclass
class CurateOutcome:
    """The instances kept and, for every one removed, why."""

    kept: list[Instance] = field(default_factory=list)
    removed: dict[str, str] = field(default_factory=dict)


def curate(
    instances: list[Instance],
    ratings: dict[str, list[Rating]],
    limits: dict[str, int],
    seed: int = 0,
) -> CurateOutcome:
    """Apply the rating rule, then keep at most ``limits[language]`` instances per language.

    ``limits`` maps a language (``Java``...) or ``*`` (every other language) to a maximum.
    The sample is drawn with ``random.Random(seed)`` from the instances sorted by id, so
    the same inputs and seed always give the same subset; the kept instances stay in
    their input order.
    """
    outcome = CurateOutcome()
    passing: list[Instance] = []
    for instance in instances:
        reasons = rule_violations(ratings.get(instance.instance_id, []))
        if reasons:
            outcome.removed[instance.instance_id] = "; ".join(reasons)
        else:
            passing.append(instance)
    rng = random.Random(seed)
    chosen: set[str] = set()
    by_language: dict[str, list[str]] = {}
    for instance in passing:
        by_language.setdefault(instance.language.value, []).append(instance.instance_id)
    for language in sorted(by_language):
        ids = sorted(by_language[language])
        limit = limits.get(language, limits.get("*"))
        if limit is None or len(ids) <= limit:
            chosen.update(ids)
            continue
        picked = set(rng.sample(ids, limit))
        chosen.update(picked)
        for instance_id in ids:
            if instance_id not in picked:
                outcome.removed[instance_id] = (
                    f"downsampled: {language} kept {limit} of {len(ids)} (seed {seed})"
                )
    outcome.kept = [i for i in passing if i.instance_id in chosen]
    return outcome


def parse_limits(values: list[str]) -> dict[str, int]:
    """``["Java=69", "100"]`` -> ``{"Java": 69, "*": 100}``."""
    limits: dict[str, int] = {}
    for value in values:
        for part in value.split(","):
            part = part.strip()
            if not part:
                continue
            name, _, number = part.rpartition("=")
            if not number.isdigit():
                raise ValueError(f"bad limit {part!r}: expected LANGUAGE=N or N")
            if name:
                name = Language.parse(name).value
            limits[name or "*"] = int(number)
    return limits
