"""Candidates from a local clone: merged pull requests found in the commit history.

Walking the first-parent history of ``HEAD``, a commit is a pull request when its subject
is GitHub's merge message (``Merge pull request #12 from ...``) or ends with a squash
reference (``Fix the parser (#12)``). Which commits stand for the pull request's base and
head is decided by :func:`pull_range`; its change is the diff between the two, and the
messages of the commits in between count as its description. It resolves the issues that
these messages close with a closing keyword (``fixes #11``). The issue text comes from
the API when an issue source is given, and is otherwise the pull request's own message
(title and description), with no hints.

Pull requests named by number (``--pr``) are looked for further, in this order: the
first-parent history; every commit of ``HEAD``'s history (a pull request merged into a
side branch that was merged later); then, when the clone has the PR head
(``refs/pull/<n>/head``), the commit that merged that head, or the commit of ``HEAD``'s
first-parent history whose change equals the pull request's or its last commit's (a
squash or rebase merge whose subject does not name it). A named pull request is kept
even when its messages close no issue, with a note saying so.
"""

from __future__ import annotations

import re
import subprocess
from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

from polybench.curation.candidates import (
    Candidate,
    Rejection,
    closing_issue_refs,
    instance_id_for,
)
from polybench.curation.collect import (
    NAMED_WITHOUT_ISSUE,
    Issue,
    IssueSource,
    RepoCollection,
    hints_before,
    parse_time,
)
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
PULL_HEAD_REF = "refs/pull/{number}/head"
"""Where ``git fetch origin '+refs/pull/*/head:refs/pull/*/head'`` puts pull request heads."""


def _run(clone: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "-C", str(clone), *args], capture_output=True, text=True, check=False
    )


def _git(clone: Path, *args: str) -> str:
    completed = _run(clone, *args)
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


def _commits(clone: Path) -> list[tuple[str, list[str], str, str, str]]:
    """(sha, parents, author date, committer date, message) of the first-parent history,
    oldest first."""
    log = _git(
        clone,
        "log",
        "--first-parent",
        "--reverse",
        "--format=%H%x00%P%x00%aI%x00%cI%x00%B%x1e",
    )
    commits = []
    for record in log.split("\x1e"):
        record = record.strip("\n")
        if not record:
            continue
        sha, parents, authored, committed, message = record.split("\x00", 4)
        commits.append((sha, parents.split(), authored, committed, message.strip()))
    return commits


def _is_ancestor(clone: Path, older: str, newer: str) -> bool:
    return _run(clone, "merge-base", "--is-ancestor", older, newer).returncode == 0


def _commit_or_none(completed: subprocess.CompletedProcess[str]) -> str | None:
    if completed.returncode != 0:
        return None
    return completed.stdout.strip() or None


def _merge_base(clone: Path, one: str, other: str) -> str | None:
    return _commit_or_none(_run(clone, "merge-base", one, other))


def _pull_head(clone: Path, number: int) -> str | None:
    ref = PULL_HEAD_REF.format(number=number)
    return _commit_or_none(_run(clone, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"))


@dataclass(frozen=True)
class PullRange:
    """The commits that stand for one merged pull request."""

    base: str
    """The ``base_commit``: where the pull request's change applies."""
    head: str
    """The commit whose tree is the base plus the pull request's change."""
    target: str
    """The target branch just before the merge; ``target..head`` are the PR's commits."""


def pull_range(
    clone: Path, sha: str, parents: list[str], number: int, known_head: str | None = None
) -> PullRange:
    """Base and head of the pull request merged by ``sha``.

    The base is ``git merge-base <PR head> <target tip at merge time>``, and the change is
    the diff from it to the PR head, as GitHub shows a pull request:

    - a merge commit has the target tip as first parent and the PR head as second, so the
      base is their merge base, even when the target branch moved on after the PR
      branched. When the PR head is already on the target branch (its second parent is
      an ancestor of the first), the merge commit's own parents are the pair: base is the
      first parent and the change is what the merge commit adds;
    - a single-parent commit (a squash or rebase merge) has only the target tip as
      parent. When the clone has the PR head (``refs/pull/<n>/head``, fetched from
      GitHub) that is not yet on the target branch, the same merge-base rule applies;
      otherwise the parent is the base and the commit itself carries the change.

    ``known_head`` is the PR head when the caller found the merge through it.
    """
    target = parents[0]
    if known_head is not None:
        head: str | None = known_head
    elif len(parents) >= 2:
        head = parents[1]
    else:
        head = _pull_head(clone, number)
    if head is None or _is_ancestor(clone, head, target):
        return PullRange(base=target, head=sha, target=target)
    base = _merge_base(clone, target, head)
    if base is None:  # unrelated histories: nothing better than the merge commit itself
        return PullRange(base=target, head=sha, target=target)
    return PullRange(base=base, head=head, target=target)


def _pull_number(message: str) -> int | None:
    subject = message.splitlines()[0] if message else ""
    match = _MERGE.match(subject) or _SQUASH.search(subject)
    return int(match["n"]) if match else None


def candidates_from_git(
    clone: Path,
    repo: str,
    language: Language,
    rules: TestPathRules,
    issues: IssueSource | None = None,
    numbers: Collection[int] | None = None,
) -> RepoCollection:
    """Classify every pull request merged into ``HEAD`` of ``clone`` (only ``numbers``,
    when given: each is looked for as the module docstring says, kept without a closing
    keyword, and rejected as ``not_found`` or ``not_merged`` only when it cannot be
    found)."""
    collection = RepoCollection(repo=repo)
    wanted = list(dict.fromkeys(numbers)) if numbers is not None else None
    merges: dict[int, _Merge] = {}
    for sha, parents, _authored, committed, message in _commits(clone):
        number = _pull_number(message)
        if number is None or not parents:
            continue
        if wanted is not None and number not in wanted:
            continue
        merges.setdefault(number, _Merge(sha, parents, committed, message, number))
    missing = [n for n in wanted or [] if n not in merges]
    if missing:
        merges.update(_named_merges(clone, missing))
    for merge in merges.values():
        collection.seen += 1
        outcome = _classify(clone, repo, language, rules, issues, merge, wanted is not None)
        if isinstance(outcome, Candidate):
            collection.candidates.append(outcome)
        else:
            collection.rejected.append(outcome)
    for number in [n for n in wanted or [] if n not in merges]:
        collection.rejected.append(_not_found(clone, repo, number))
    return collection


def _not_found(clone: Path, repo: str, number: int) -> Rejection:
    item = instance_id_for(repo, number)
    if _pull_head(clone, number) is not None:
        return Rejection(
            item=item,
            reason="not_merged",
            detail=f"{PULL_HEAD_REF.format(number=number)} is in the clone, but neither it "
            "nor a commit with its change is in the history of HEAD",
        )
    return Rejection(
        item=item,
        reason="not_found",
        detail="no merge or squash commit names it in the history of HEAD; a pull request "
        "merged by rebase is found through its head: git fetch origin "
        "'+refs/pull/*/head:refs/pull/*/head'",
    )


def _named_merges(clone: Path, numbers: list[int]) -> dict[int, _Merge]:
    """The commits that merged ``numbers`` outside the first-parent history of ``HEAD``."""
    found: dict[int, _Merge] = {}
    wanted = set(numbers)
    for sha, parents, committed, message in _all_commits(clone):
        number = _pull_number(message)
        if number in wanted and number not in found and parents:
            found[number] = _Merge(sha, parents, committed, message, number)
    for number in numbers:
        if number in found:
            continue
        head = _pull_head(clone, number)
        if head is None:
            continue
        merge = _merge_of_head(clone, head, number) or _equivalent_commit(clone, head, number)
        if merge is not None:
            found[number] = merge
    return found


def _all_commits(clone: Path) -> list[tuple[str, list[str], str, str]]:
    """(sha, parents, committer date, message) of every commit of ``HEAD``'s history."""
    log = _git(clone, "log", "--reverse", "--format=%H%x00%P%x00%cI%x00%B%x1e")
    commits = []
    for record in log.split("\x1e"):
        record = record.strip("\n")
        if record:
            sha, parents, committed, message = record.split("\x00", 3)
            commits.append((sha, parents.split(), committed, message.strip()))
    return commits


def _message(clone: Path, commit: str) -> tuple[str, str]:
    """(committer date, message) of ``commit``."""
    date, _, message = _git(clone, "log", "-1", "--format=%cI%x00%B", commit).partition("\x00")
    return date.strip(), message.strip()


def _merge_of_head(clone: Path, head: str, number: int) -> _Merge | None:
    """The commit of ``HEAD``'s history that merged ``head`` (it has ``head`` as a parent
    after the first; ``head`` itself when it came in by fast-forward)."""
    if not _is_ancestor(clone, head, "HEAD"):
        return None
    listing = _git(clone, "rev-list", "--parents", "--ancestry-path", f"{head}..HEAD")
    for line in reversed(listing.splitlines()):
        sha, *parents = line.split()
        if head in parents[1:]:
            committed, message = _message(clone, sha)
            return _Merge(sha, parents, committed, message, number, head)
    parents = _git(clone, "rev-list", "--parents", "-n", "1", head).split()[1:]
    if not parents:
        return None
    committed, message = _message(clone, head)
    return _Merge(head, parents, committed, message, number)


def _patch_id(clone: Path, diff: str) -> str | None:
    completed = subprocess.run(
        ["git", "-C", str(clone), "patch-id", "--stable"],
        input=diff,
        capture_output=True,
        text=True,
        check=False,
    )
    fields = completed.stdout.split()
    return fields[0] if completed.returncode == 0 and fields else None


def _equivalent_commit(clone: Path, head: str, number: int) -> _Merge | None:
    """The first-parent commit of ``HEAD`` whose change equals the pull request's whole
    change (a squash) or that of its last commit (a rebase): the merge of an unmerged
    ``head`` whose subject does not name the pull request."""
    base = _merge_base(clone, head, "HEAD")
    if base is None:
        return None
    wanted = {
        _patch_id(clone, _git(clone, "diff", "--no-color", "--no-ext-diff", base, head)),
        _patch_id(clone, _git(clone, "show", "--no-color", "--no-ext-diff", "--format=", head)),
    } - {None}
    if not wanted:
        return None
    listing = _git(clone, "rev-list", "--first-parent", "--reverse", f"{base}..HEAD")
    for sha in listing.splitlines():
        change = _git(clone, "show", "--no-color", "--no-ext-diff", "--format=", sha)
        if _patch_id(clone, change) in wanted:
            committed, message = _message(clone, sha)
            parents = _git(clone, "rev-list", "--parents", "-n", "1", sha).split()[1:]
            return _Merge(sha, parents, committed, message, number, head)
    return None


@dataclass(frozen=True)
class _Merge:
    """A commit of the first-parent history that names a pull request."""

    sha: str
    parents: list[str]
    committed: str
    message: str
    number: int
    head: str | None = None
    """The PR head when it was found through ``refs/pull/<n>/head``."""


def _classify(
    clone: Path,
    repo: str,
    language: Language,
    rules: TestPathRules,
    issues: IssueSource | None,
    merge: _Merge,
    named: bool = False,
) -> Candidate | Rejection:
    item = instance_id_for(repo, merge.number)
    message = merge.message
    span = pull_range(clone, merge.sha, merge.parents, merge.number, merge.head)
    # The PR's own commits: those of its head that the target branch did not have yet.
    # A merge commit that brought nothing new falls back to itself.
    log_range = f"{span.target}..{span.head}"
    merged_log = _git(clone, "log", "--format=%aI%x00%B%x1e", log_range)
    entries = [e.strip("\n").split("\x00", 1) for e in merged_log.split("\x1e") if e.strip()]
    texts = [message, *(entry[1] for entry in entries if len(entry) == 2)]
    numbers = closing_issue_refs("\n".join(texts), repo)
    notes: list[str] = []
    if merge.head is not None:
        notes.append(
            f"found through {PULL_HEAD_REF.format(number=merge.number)}: merged by "
            f"{merge.sha[:12]} ({message.splitlines()[0][:80] if message else 'no message'})"
        )
    found: list[Issue] = []
    if not numbers:
        if not named:
            return Rejection(item=item, reason="no_issue")
        notes.append(NAMED_WITHOUT_ISSUE.format(why="its messages close none with a keyword"))
    elif issues is not None:
        found = [i for i in (issues.get(n) for n in numbers) if i is not None]
        if not found:
            if not named:
                return Rejection(item=item, reason="no_issue", detail="references are not issues")
            refs = ", ".join(f"#{n}" for n in numbers)
            notes.append(NAMED_WITHOUT_ISSUE.format(why=f"{refs} are not issues"))
    files = _git(clone, "diff", "--name-only", span.base, span.head).splitlines()
    if not files:
        return Rejection(item=item, reason="empty_diff")
    tests = [f for f in files if rules.is_test(f, language)]
    if not tests:
        return Rejection(item=item, reason="no_test_files")
    if len(tests) == len(files):
        return Rejection(item=item, reason="no_code_files")
    dates = [entry[0] for entry in entries if entry[0]]
    first_commit = min(dates, key=parse_time) if dates else None
    subject = message.splitlines()[0] if message else ""
    description = message.partition("\n")[2].strip() if _MERGE.match(subject) else message
    if not description and span.head != merge.sha:
        # A merge commit with a subject alone: the PR head's message says what it does.
        description = _message(clone, span.head)[1]
    issue_numbers = [str(i.number) for i in found]
    if issues is None:
        issue_numbers = [str(n) for n in numbers]
    return Candidate(
        instance_id=item,
        repo=repo,
        pull_number=merge.number,
        language=language.value,
        base_commit=span.base,
        created_at=first_commit,
        merged_at=merge.committed,
        title=description.splitlines()[0] if description else subject,
        body=description,
        issue_numbers=issue_numbers,
        problem_statement="\n\n".join(i.text for i in found) or description,
        hints_text=hints_before(found, first_commit) if found else "",
        diff=_git(clone, "diff", "--no-color", "--no-ext-diff", span.base, span.head),
        source="git",
        notes=notes,
    )
