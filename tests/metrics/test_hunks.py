"""The in-memory hunk applier: exact, offset and fuzzy matches, spans, line endings."""

from __future__ import annotations

import pytest
from unidiff.patch import PatchSet

from polybench.metrics.hunks import (
    HunkMismatch,
    apply_hunks,
    hunks_from_unidiff,
    split_lines,
)

OLD = "".join(f"line {n}\n" for n in range(1, 21))


def hunks(patch: str) -> list:  # type: ignore[type-arg]
    (patched,) = PatchSet(patch)
    return hunks_from_unidiff(patched)


def header(body: str) -> str:
    return "--- a/f.txt\n+++ b/f.txt\n" + body


def test_split_lines_only_on_newline() -> None:
    assert split_lines("") == []
    assert split_lines("a\nb") == ["a\n", "b"]
    assert split_lines("a\r\nb\n") == ["a\r\n", "b\n"]
    # A form feed or a lone CR is not a line break for git or tree-sitter.
    assert split_lines("a\x0cb\rc\n\u2028d\n") == ["a\x0cb\rc\n", "\u2028d\n"]


def test_exact_hunk_and_its_spans() -> None:
    patch = header(
        "@@ -4,7 +4,7 @@\n"
        " line 4\n line 5\n line 6\n"
        "-line 7\n"
        "+line seven\n+line seven and a half\n"
        " line 8\n"
        "-line 9\n"
        " line 10\n"
    )
    applied = apply_hunks(OLD, hunks(patch))
    new = applied.text.split("\n")
    assert new[6:9] == ["line seven", "line seven and a half", "line 8"]
    assert "line 9" not in applied.text
    # Removed: old line 7, then old line 9 (two runs). Added: new lines 7-8.
    assert applied.removed == ((7, 7), (9, 9))
    assert applied.added == ((7, 8),)
    assert applied.fuzz == 0


def test_offset_is_found_and_spans_follow_the_real_position() -> None:
    # The header says line 4, but the lines are at 10-12 (6 lines later).
    patch = header("@@ -4,3 +4,3 @@\n line 10\n-line 11\n+eleven\n line 12\n")
    applied = apply_hunks(OLD, hunks(patch))
    assert applied.removed == ((11, 11),)
    assert applied.added == ((11, 11),)
    assert applied.text.split("\n")[10] == "eleven"


def test_second_hunk_keeps_the_offset_of_the_first() -> None:
    old = "top\n" * 3 + OLD
    patch = header(
        "@@ -2,3 +2,3 @@\n line 2\n-line 3\n+three\n line 4\n"
        "@@ -16,3 +16,4 @@\n line 16\n-line 17\n+seventeen\n+more\n line 18\n"
    )
    applied = apply_hunks(old, hunks(patch))
    assert applied.removed == ((6, 6), (20, 20))
    assert applied.added == ((6, 6), (20, 21))


def test_fuzz_ignores_context_that_changed_but_never_removed_lines() -> None:
    edited = OLD.replace("line 5\n", "line five\n")  # leading context no longer matches
    patch = header("@@ -4,4 +4,4 @@\n line 4\n line 5\n-line 6\n+six\n line 7\n")
    applied = apply_hunks(edited, hunks(patch))
    assert applied.fuzz == 2
    assert applied.removed == ((6, 6),)
    assert "line five\nsix\nline 7\n" in applied.text
    wrong_removal = header("@@ -4,3 +4,3 @@\n line 4\n-line 5\n+five\n line 6\n")
    with pytest.raises(HunkMismatch, match="hunk 1"):
        apply_hunks(edited, hunks(wrong_removal))


def test_hunks_must_not_go_backwards() -> None:
    patch = header(
        "@@ -10,3 +10,3 @@\n line 10\n-line 11\n+eleven\n line 12\n"
        "@@ -2,3 +2,3 @@\n line 2\n-line 3\n+three\n line 4\n"
    )
    with pytest.raises(HunkMismatch, match="hunk 2"):
        apply_hunks(OLD, hunks(patch))


def test_new_file_and_full_deletion() -> None:
    new_file = "--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n"
    applied = apply_hunks("", hunks(new_file))
    assert applied.text == "one\ntwo\n"
    assert applied.added == ((1, 2),) and applied.removed == ()
    deletion = "--- a/n.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-one\n-two\n"
    gone = apply_hunks("one\ntwo\n", hunks(deletion))
    assert gone.text == "" and gone.removed == ((1, 2),)


def test_insertion_after_a_line_and_at_the_top() -> None:
    after_third = header("@@ -3,0 +4,1 @@\n+inserted\n")
    applied = apply_hunks("a\nb\nc\nd\n", hunks(after_third))
    assert applied.text == "a\nb\nc\ninserted\nd\n"
    assert applied.added == ((4, 4),)
    at_top = header("@@ -0,0 +1 @@\n+first\n")
    assert apply_hunks("a\n", hunks(at_top)).text == "first\na\n"


def test_no_newline_at_end_of_file() -> None:
    patch = header(
        "@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n"
    )
    applied = apply_hunks("a\nb", hunks(patch))
    assert applied.text == "a\nc"
    adds_newline = header("@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n")
    assert apply_hunks("a\nb", hunks(adds_newline)).text == "a\nb\n"


def test_crlf_lines_match_whatever_the_patch_line_endings() -> None:
    old = "one\r\ntwo\r\nthree\r\n"
    patch = header("@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n")
    applied = apply_hunks(old, hunks(patch))
    assert applied.text == "one\r\nTWO\nthree\r\n"
    assert applied.removed == ((2, 2),)


def test_mismatch_names_the_hunk() -> None:
    patch = header("@@ -1,2 +1,2 @@\n line 1\n-not here\n+x\n")
    with pytest.raises(HunkMismatch, match=r"hunk 1 \(line 1\)"):
        apply_hunks(OLD, hunks(patch))
