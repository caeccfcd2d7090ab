"""``build`` and gold patches that add symbolic links.

Shaped after a real TypeScript pull request (a monorepo that shares a module with a
vendored subproject through a link ``lib/vendor/src/common/util.ts ->
../../../../src/common/util.ts``, while the test patch tests that module): the diff is made
by git from a small repository, so the link section is exactly what git writes.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from polybench.curation.build import build_instance
from polybench.curation.candidates import Candidate, Rejection
from polybench.curation.recipes import RepoRecipe
from polybench.curation.testpaths import TestPathRules, new_files_tested, split_diff
from polybench.dataset.models import Instance, Language

RECIPE = RepoRecipe(
    repo="acme/editor",
    language=Language.TYPESCRIPT,
    base_image="polybench_typescript_base",
    test_command="yarn jest --json {test_files}",
    log_parser="jest_json",
    test_files=["test/**/*.test.ts"],
)
LINK = "lib/vendor/src/common/util.ts"


def _git(repo: Path, *args: str) -> str:
    completed = subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t.invalid", *args],
        capture_output=True,
        text=True,
        check=True,
    )
    return completed.stdout


def _write(repo: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = repo / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def _pull_diff(tmp_path: Path, link_target: str) -> str:
    """The diff of a pull request that adds a link to ``link_target`` at ``LINK``, changes
    the module and the test of the module, as ``git diff`` writes it."""
    repo = tmp_path / "editor"
    repo.mkdir()
    _git(repo, "init", "-q")
    _write(
        repo,
        {
            "src/common/util.ts": "export const normalize = (s: string) => s\n",
            "test/unit/util.test.ts": 'import { normalize } from "../../src/common/util"\n',
            "lib/vendor/src/main.ts": "export {}\n",
        },
    )
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "base")
    _write(
        repo,
        {
            "src/common/util.ts": "export const normalize = (s: string) => s.trim()\n",
            "test/unit/util.test.ts": (
                'import { normalize } from "../../src/common/util"\n'
                'describe("util", () => it("trims", () => expect(normalize(" a")).toBe("a")))\n'
            ),
        },
    )
    (repo / LINK).parent.mkdir(parents=True, exist_ok=True)
    os.symlink(link_target, repo / LINK)
    _git(repo, "add", "-A")
    return _git(repo, "diff", "--cached", "--no-color", "HEAD")


def _candidate(diff: str) -> Candidate:
    return Candidate(
        instance_id="acme__editor-3277",
        repo="acme/editor",
        pull_number=3277,
        language="TypeScript",
        base_commit="b" * 40,
        diff=diff,
    )


def test_a_link_to_a_file_of_the_repository_is_not_a_tested_new_file(tmp_path: Path) -> None:
    diff = _pull_diff(tmp_path, "../../../../src/common/util.ts")
    assert "new file mode 120000" in diff
    built = build_instance(_candidate(diff), RECIPE, TestPathRules())
    assert isinstance(built, Instance), built
    assert LINK in built.patch and "test/unit/util.test.ts" in built.test_patch


def test_a_link_that_leaves_the_repository_is_still_checked(tmp_path: Path) -> None:
    diff = _pull_diff(tmp_path, "../../../../../elsewhere/util.ts")
    split = split_diff(diff, Language.TYPESCRIPT, TestPathRules())
    uses = new_files_tested(split, Language.TYPESCRIPT)
    assert [(use.path, use.name) for use in uses] == [(LINK, "util")]
    rejected = build_instance(_candidate(diff), RECIPE, TestPathRules())
    assert isinstance(rejected, Rejection) and rejected.reason == "new_file_tested"
