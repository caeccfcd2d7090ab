"""Candidates from a local clone: merged pull requests found in the commit history.

Walking the first-parent history of ``HEAD``, a commit is a pull request when its subject
is GitHub's merge message (``Merge pull request #12 from ...``) or ends with a squash
reference (``Fix the parser (#12)``). Its change is the diff from its first parent (the
``base_commit``) to it. It resolves the issues that its message, or the messages of the
commits it merged, close with a closing keyword (``fixes #11``). The issue text comes
from the API when an issue source is given, and is otherwise the pull request's own
message (title and description), with no hints.
"""

from __future__ import annotations

import re
import subprocess
from collections import Counter
from pathlib import Path

from polybench.curation.candidates import (
    Candidate,
    Rejection,
    closing_issue_refs,
    instance_id_for,
)
from polybench.curation.collect import Issue, IssueSource, RepoCollection, hints_before, parse_time
from polybench.curation.testpaths import TestPathRules
from polybench.dataset.models import Language

_MERGE = re.compile(r"^Merge pull request #(?P<n>\d+)\b")
_SQUASH = re.compile(r"\(#(?P<n>\d+)\)\s*$")
_REMOTE = re.compile(r"github\.com[:/](?P<repo>[\w.-]+/[\w.-]+?)(?:\.git)?/?$")
_SUFFIX_LANGUAGE = {
    ".py": Language.PYTHON,
    ".java": Language.JAVA,
    **dict.fromkeys((".ts", ".tsx", ".mts", ".cts"), Language.TYPESCRIPT),
    **dict.fromkeys((".js", ".jsx", ".mjs", ".cjs"), Language.JAVASCRIPT),
}


def _git(clone: Path, *args: str) -> str:
    completed = subprocess.run(
        ["git", "-C", str(clone), *args], capture_output=True, text=True, check=False
    )
    if completed.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)}: {completed.stderr.strip()}")
    return completed.stdout


def repo_from_remote(clone: Path) -> str | None:
    """``owner/name`` from the clone's ``origin`` URL when it points at GitHub."""
    try:
        url = _git(clone, "remote", "get-url", "origin").strip()
    except RuntimeError:
        return None
    match = _REMOTE.search(url)
    return match["repo"] if match else None


def guess_language(clone: Path) -> Language | None:
    """The language with the most source files at ``HEAD``."""
    counts: Counter[Language] = Counter()
    for path in _git(clone, "ls-files").splitlines():
        language = _SUFFIX_LANGUAGE.get(Path(path).suffix)
        if language is not None:
            counts[language] += 1
    return counts.most_common(1)[0][0] if counts else None


def _commits(clone: Path) -> list[tuple[str, list[str], str, str]]:
    """(sha, parents, author date, message) of the first-parent history, oldest first."""
    log = _git(clone, "log", "--first-parent", "--reverse", "--format=%H%x00%P%x00%aI%x00%B%x1e")
    commits = []
    for record in log.split("\x1e"):
        record = record.strip("\n")
        if not record:
            continue
        sha, parents, date, message = record.split("\x00", 3)
        commits.append((sha, parents.split(), date, message.strip()))
    return commits


def candidates_from_git(
    clone: Path,
    repo: str,
    language: Language,
    rules: TestPathRules,
    issues: IssueSource | None = None,
) -> RepoCollection:
    """Classify every pull request merged into ``HEAD`` of ``clone``."""
    collection = RepoCollection(repo=repo)
    for sha, parents, _date, message in _commits(clone):
        subject = message.splitlines()[0] if message else ""
        match = _MERGE.match(subject) or _SQUASH.search(subject)
        if match is None or not parents:
            continue
        number = int(match["n"])
        item = instance_id_for(repo, number)
        collection.seen += 1
        base = parents[0]
        merged_log = _git(clone, "log", "--format=%aI%x00%B%x1e", f"{base}..{sha}")
        entries = [e.strip("\n").split("\x00", 1) for e in merged_log.split("\x1e") if e.strip()]
        texts = [message, *(entry[1] for entry in entries if len(entry) == 2)]
        numbers = closing_issue_refs("\n".join(texts), repo)
        if not numbers:
            collection.rejected.append(Rejection(item=item, reason="no_issue"))
            continue
        found: list[Issue] = []
        if issues is not None:
            found = [i for i in (issues.get(n) for n in numbers) if i is not None]
            if not found:
                collection.rejected.append(
                    Rejection(item=item, reason="no_issue", detail="references are not issues")
                )
                continue
        files = _git(clone, "diff", "--name-only", base, sha).splitlines()
        tests = [f for f in files if rules.is_test(f, language)]
        if not tests:
            collection.rejected.append(Rejection(item=item, reason="no_test_files"))
            continue
        if len(tests) == len(files):
            collection.rejected.append(Rejection(item=item, reason="no_code_files"))
            continue
        dates = [entry[0] for entry in entries if entry[0]]
        first_commit = min(dates, key=parse_time) if dates else None
        description = message.split("\n", 1)[1].strip() if _MERGE.match(subject) else message
        collection.candidates.append(
            Candidate(
                instance_id=item,
                repo=repo,
                pull_number=number,
                language=language.value,
                base_commit=base,
                created_at=first_commit,
                merged_at=None,
                title=description.splitlines()[0] if description else subject,
                body=description,
                issue_numbers=[str(i.number) for i in found] or [str(n) for n in numbers],
                problem_statement="\n\n".join(i.text for i in found) or description,
                hints_text=hints_before(found, first_commit) if found else "",
                diff=_git(clone, "diff", "--no-color", "--no-ext-diff", base, sha),
                source="git",
            )
        )
    return collection
