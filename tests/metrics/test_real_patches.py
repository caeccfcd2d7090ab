"""Real agents' patches (leaderboard predictions, sliced into tests/data) through the hunk
applier and the parsers.

The repositories are not here, so each file's old text is rebuilt from the hunks (their
context and removed lines at the lines the headers name, filler lines between): the
applier must then produce exactly the new text the hunks describe, and the change spans
must point at the removed and added lines.
"""

from __future__ import annotations

import json
from pathlib import Path

from unidiff.errors import UnidiffParseError
from unidiff.patch import PatchSet

from polybench.metrics.cst import deepest_nodes, parse_nodes
from polybench.metrics.hunks import ADDED, REMOVED, Hunk, apply_hunks, hunks_from_unidiff
from polybench.metrics.languages import language_for

LEADERBOARD = Path(__file__).resolve().parents[1] / "data" / "leaderboard"


def side(line_text: str, no_newline: bool) -> str:
    return line_text[:-1] if no_newline and line_text.endswith("\n") else line_text


def rebuild(hunks: list[Hunk]) -> tuple[str, str, list[str], list[str]] | None:
    """Old and new texts that the hunks describe, plus the removed and added lines."""
    old: list[str] = []
    new: list[str] = []
    removed: list[str] = []
    added: list[str] = []
    for hunk in hunks:
        start = hunk.source_start - 1 if hunk.source_length else hunk.source_start
        if start < len(old):
            return None  # overlapping or unordered hunks: not a consistent patch
        while len(old) < start:
            filler = f"filler {len(old)}\n"
            old.append(filler)
            new.append(filler)
        for line in hunk.lines:
            text = side(line.text, line.no_newline)
            if line.tag != ADDED:
                old.append(text)
            if line.tag != REMOVED:
                new.append(text)
            (removed if line.tag == REMOVED else added if line.tag == ADDED else []).append(text)
    return "".join(old), "".join(new), removed, added


def real_files() -> list[tuple[str, str]]:
    files = sorted(LEADERBOARD.glob("*.predictions.jsonl"))
    assert files, f"no leaderboard predictions in {LEADERBOARD}"
    found = []
    for predictions in files:
        for raw in predictions.read_text().splitlines():
            patch = json.loads(raw).get("model_patch") or ""
            if patch.strip():
                found.append((predictions.name, patch))
    return found


def test_real_patches_apply_to_the_text_they_describe() -> None:
    checked = parsed = 0
    for _, patch in real_files():
        try:
            patch_set = PatchSet(patch)
        except UnidiffParseError:
            continue
        for patched in patch_set:
            hunks = hunks_from_unidiff(patched)
            built = rebuild(hunks) if hunks else None
            if built is None:
                continue
            old, new, removed, added = built
            applied = apply_hunks(old, hunks)
            assert applied.fuzz == 0
            new_lines = applied.text.split("\n")
            assert applied.text.rstrip("\n") == new.rstrip("\n"), patched.path
            old_lines = old.split("\n")
            got_removed = [old_lines[n - 1] for a, b in applied.removed for n in range(a, b + 1)]
            got_added = [new_lines[n - 1] for a, b in applied.added for n in range(a, b + 1)]
            assert got_removed == [r.rstrip("\n") for r in removed], patched.path
            assert got_added == [a.rstrip("\n") for a in added], patched.path
            checked += 1
            spec = language_for(patched.path)
            # Filler lines are not code: keep tree-sitter's error recovery on small texts.
            if spec is not None and len(applied.text) < 20_000 and parsed < 200:
                nodes = parse_nodes(applied.text, spec)
                for span in applied.added:
                    deepest_nodes(nodes, span)
                parsed += 1
    assert checked > 300 and parsed == 200, (checked, parsed)
