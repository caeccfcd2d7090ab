"""Patches that make symbolic links are rejected however git is told the mode."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from polybench.patches.diff import PatchError, check_patch

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
def test_every_spelling_git_reads_as_a_link_is_rejected(repo: Path, mode_line: str) -> None:
    patch = LINK_PATCH.format(mode_line=mode_line)
    # git itself makes a symbolic link from each of these headers...
    assert _git(repo, "apply", "-", stdin=patch).returncode == 0
    assert (repo / "leak").is_symlink()
    # ...so each one is refused before anything is applied.
    with pytest.raises(PatchError, match="creates a symbolic link"):
        check_patch(patch)


def test_a_mode_change_to_a_link_is_rejected() -> None:
    patch = (
        "diff --git a/f b/f\nold mode 100644\nnew mode 0120000\nindex 1111111..2222222\n"
        "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+/etc\n"
    )
    with pytest.raises(PatchError, match="creates a symbolic link"):
        check_patch(patch)


@pytest.mark.parametrize("mode", ["100644", "100755", "0100644"])
def test_regular_file_modes_are_accepted(mode: str) -> None:
    patch = LINK_PATCH.format(mode_line=f"new file mode {mode}")
    assert [change.path for change in check_patch(patch)] == ["leak"]


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
