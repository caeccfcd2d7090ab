"""Turn candidates into dataset instances: split the diff, check it, fill the columns.

A candidate is rejected (with the reason) when:

- ``no_recipe``: no recipe names its repository;
- ``invalid_patch``: its diff is not a usable git diff;
- ``no_code_changes`` / ``no_test_changes``: one side of the split is empty;
- ``new_file_tested``: the code patch creates a file the test patch exercises
  (see :func:`polybench.curation.testpaths.new_files_tested`);
- ``no_runnable_tests``: none of the test patch's files is a test file the recipe runs.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from polybench.curation.candidates import Candidate, Rejection, rejection_counts
from polybench.curation.recipes import RepoRecipe
from polybench.curation.testpaths import TestPathRules, new_files_tested, split_diff
from polybench.dataset.models import Instance, Language
from polybench.patches.diff import PatchError, check_patch

BUILD_REJECTION_REASONS = (
    "no_recipe",
    "invalid_patch",
    "no_code_changes",
    "no_test_changes",
    "new_file_tested",
    "no_runnable_tests",
)


@dataclass
class BuildOutcome:
    """The instances built and the candidates rejected."""

    instances: list[Instance] = field(default_factory=list)
    rejected: list[Rejection] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        """Rejections per reason."""
        return rejection_counts(self.rejected)


def build_instance(
    candidate: Candidate, recipe: RepoRecipe | None, rules: TestPathRules
) -> Instance | Rejection:
    """One candidate as an instance (F2P/P2P still empty), or why it cannot be one."""
    item = candidate.instance_id
    if recipe is None:
        return Rejection(item=item, reason="no_recipe", detail=f"no recipe for {candidate.repo}")
    language = recipe.language or Language.parse(candidate.language)
    try:
        check_patch(candidate.diff)
    except PatchError as exc:
        return Rejection(item=item, reason="invalid_patch", detail=str(exc))
    split = split_diff(candidate.diff, language, rules)
    if not split.patch.strip():
        return Rejection(item=item, reason="no_code_changes")
    if not split.test_patch.strip():
        return Rejection(item=item, reason="no_test_changes")
    uses = new_files_tested(split, language)
    if uses:
        detail = "; ".join(f"{use.path} (test patch mentions {use.name!r})" for use in uses)
        return Rejection(item=item, reason="new_file_tested", detail=detail)
    runnable = recipe.runnable_tests(split.test_files)
    if not runnable:
        files = ", ".join(split.test_files) or "none left"
        return Rejection(item=item, reason="no_runnable_tests", detail=f"test files: {files}")
    return Instance(
        instance_id=item,
        repo=candidate.repo,
        base_commit=candidate.base_commit,
        patch=split.patch,
        test_patch=split.test_patch,
        problem_statement=candidate.problem_statement,
        hints_text=candidate.hints_text,
        language=language,
        Dockerfile=recipe.dockerfile(candidate.base_commit),
        test_command=recipe.render_test_command(runnable),
        pull_number=candidate.pull_number,
        issue_numbers=candidate.issue_numbers,
        created_at=candidate.created_at,
        log_parser=recipe.log_parser,
    )


def build_all(
    candidates: list[Candidate], recipes: dict[str, RepoRecipe], rules: TestPathRules
) -> BuildOutcome:
    """Build every candidate; duplicates (same instance id) keep the first."""
    outcome = BuildOutcome()
    seen: set[str] = set()
    for candidate in candidates:
        if candidate.instance_id in seen:
            continue
        seen.add(candidate.instance_id)
        built = build_instance(candidate, recipes.get(candidate.repo.lower()), rules)
        if isinstance(built, Instance):
            outcome.instances.append(built)
        else:
            outcome.rejected.append(built)
    return outcome
