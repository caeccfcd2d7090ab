"""Symbolic links in patches: every spelling git reads as a link is recognised (so the
``patch`` fallback is never used for them, it could write through one), and once a patch
lands a link that resolves outside the repository or into ``.git`` is removed, while a link
inside the repository stays (real gold patches make such links)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from polybench.dataset.models import Language
from polybench.grading.policy import PolicyInputs
from polybench.patches.diff import check_patch, creates_symlink
from polybench.runner.admission import admit
from polybench.runner.checkout import base_files, untracked_entries
from polybench.sandbox.local import LocalSandbox

LINK_PATCH = """diff --git a/leak b/leak
{mode_line}
index 0000000..1111111
--- /dev/null
+++ b/leak
@@ -0,0 +1 @@
+/etc
\\ No newline at end of file
"""


def _git(repo: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "-C", str(repo), *args], input=stdin, capture_output=True, text=True, check=False
    )


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    _git(tmp_path, "init", "-q")
    (tmp_path / "f").write_text("a\n")
    _git(tmp_path, "add", "f")
    _git(tmp_path, "-c", "user.email=a@b", "-c", "user.name=a", "commit", "-qm", "base")
    return tmp_path


@pytest.mark.parametrize(
    "mode_line",
    [
        "new file mode 120000",
        "new file mode 0120000",
        "new file mode  120000",
        "new file mode +120000",
        "new file mode 120000 ",
    ],
)
def test_every_spelling_git_reads_as_a_link_is_recognised(repo: Path, mode_line: str) -> None:
    patch = LINK_PATCH.format(mode_line=mode_line)
    # git itself makes a symbolic link from each of these headers...
    assert _git(repo, "apply", "-", stdin=patch).returncode == 0
    assert (repo / "leak").is_symlink()
    # ...so each one is known to make a link.
    assert creates_symlink(patch)


def test_a_mode_change_to_a_link_is_recognised() -> None:
    patch = (
        "diff --git a/f b/f\nold mode 100644\nnew mode 0120000\nindex 1111111..2222222\n"
        "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+/etc\n"
    )
    assert creates_symlink(patch)


@pytest.mark.parametrize("mode", ["100644", "100755", "0100644"])
def test_regular_file_modes_are_not_links(mode: str) -> None:
    patch = LINK_PATCH.format(mode_line=f"new file mode {mode}")
    assert not creates_symlink(patch)
    assert [change.path for change in check_patch(patch)] == ["leak"]


def _link(name: str, target: str) -> str:
    return (
        f"diff --git a/{name} b/{name}\nnew file mode 120000\n--- /dev/null\n+++ b/{name}\n"
        f"@@ -0,0 +1 @@\n+{target}\n\\ No newline at end of file\n"
    )


@pytest.mark.parametrize(
    ("target", "kept"),
    [
        ("lib/real.py", True),  # inside the repository: a real gold patch may do this
        ("../../../etc/passwd", False),  # out through ..
        ("/etc/passwd", False),  # an absolute path
        ("../.git/config", False),  # into .git
    ],
)
def test_links_are_checked_where_they_lead_once_the_patch_lands(
    make_repo: object, tmp_path: Path, target: str, kept: bool
) -> None:
    repo, commit = make_repo({"lib/real.py": "X = 1\n", "README.md": "hi\n"})  # type: ignore[operator]
    box = LocalSandbox.create(repo, commit, parent=tmp_path / "boxes", isolation="none")
    try:
        at_base = base_files(box, commit)
        inputs = PolicyInputs(language=Language.PYTHON, base_paths=frozenset(at_base))
        patch = _link("lib/alias.py", target)
        admission = admit(box, patch, inputs, untracked_entries(box), commit)
        assert admission.applied
        link = Path(box.workdir) / "lib" / "alias.py"
        assert link.is_symlink() is kept
        refused = [record.path for record in admission.refused]
        assert refused == ([] if kept else ["lib/alias.py"])
    finally:
        box.cleanup()


def test_replacing_a_link_by_a_file_or_deleting_it_is_accepted() -> None:
    delete = (
        "diff --git a/leak b/leak\ndeleted file mode 120000\nindex 1111111..0000000\n"
        "--- a/leak\n+++ /dev/null\n@@ -1 +0,0 @@\n-/etc\n\\ No newline at end of file\n"
    )
    assert check_patch(delete)[0].new_path is None
    to_file = (
        "diff --git a/leak b/leak\nold mode 120000\nnew mode 100644\nindex 1111111..2222222\n"
        "--- a/leak\n+++ b/leak\n@@ -1 +1 @@\n-/etc\n+text\n"
    )
    assert check_patch(to_file)[0].path == "leak"


@pytest.mark.parametrize("realpath_skips_one", [False, True])
def test_each_link_of_a_patch_is_judged_by_its_own_target(
    make_repo: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, realpath_skips_one: bool
) -> None:
    # The links' targets are asked of one realpath call; one it cannot answer must not
    # shift what the others are judged by (here a realpath that leaves out its first
    # answer when given several: the outside link must still go, the inside ones stay).
    if realpath_skips_one:
        tools = tmp_path / "tools"
        tools.mkdir()
        fake = tools / "realpath"
        real = subprocess.run(["sh", "-c", "command -v realpath"], capture_output=True,
                              text=True, check=True).stdout.strip()  # fmt: skip
        fake.write_text(
            f'#!/bin/bash\nif [ "$#" -gt 4 ]; then set -- "${{@:1:3}}" "${{@:5}}"; fi\n'
            f'exec {real} "$@"\n'
        )
        fake.chmod(0o755)
        monkeypatch.setenv("PATH", f"{tools}:{os.environ['PATH']}")
    repo, commit = make_repo({"lib/real.py": "X = 1\n"})  # type: ignore[operator]
    box = LocalSandbox.create(repo, commit, parent=tmp_path / "boxes", isolation="none")
    try:
        at_base = base_files(box, commit)
        inputs = PolicyInputs(language=Language.PYTHON, base_paths=frozenset(at_base))
        patch = (
            _link("lib/a_in.py", "real.py")
            + _link("lib/b_out.py", "/etc/passwd")
            + _link("lib/c_in.py", "real.py")
        )
        admission = admit(box, patch, inputs, untracked_entries(box), commit)
        assert admission.applied
        assert [record.path for record in admission.refused] == ["lib/b_out.py"]
        assert (Path(box.workdir) / "lib" / "a_in.py").is_symlink()
        assert (Path(box.workdir) / "lib" / "c_in.py").is_symlink()
        assert not (Path(box.workdir) / "lib" / "b_out.py").is_symlink()
    finally:
        box.cleanup()
