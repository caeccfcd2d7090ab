"""A whole patch applied in memory to the files of a base commit.

:func:`patch_edits` reads each touched file's old text through a callback, applies the
file's hunks (:mod:`polybench.metrics.hunks`) and returns, per file, the old and new texts
and the change spans on each side. A patch that would not apply (a hunk that does not
match, a modified or deleted file that does not exist, a new file that already exists, a
deletion that leaves lines behind) raises :class:`UnappliablePatch` with the reason.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from unidiff.errors import UnidiffParseError
from unidiff.patch import PatchSet

from polybench.metrics.hunks import HunkMismatch, Span, apply_hunks, hunks_from_unidiff
from polybench.patches.diff import FileChange, PatchError, check_patch

ReadOld = Callable[[str], str | None]
"""Returns a file's text at the base commit, or None when the file does not exist there."""


class UnappliablePatch(ValueError):
    """The patch does not apply to the base commit."""


@dataclass(frozen=True)
class FileEdit:
    """One file of a patch: paths, texts before and after, and the change spans.

    ``old_text`` is None for a new file, ``new_text`` for a deleted one; both are None for
    a binary file. ``old_is_base`` is False when an earlier diff of the same patch already
    changed the file (then ``old_text`` is not the base commit's text).
    """

    old_path: str | None
    new_path: str | None
    old_text: str | None
    new_text: str | None
    removed: tuple[Span, ...] = ()
    added: tuple[Span, ...] = ()
    old_is_base: bool = True
    is_binary: bool = False


def _parse(patch: str) -> tuple[list[FileChange], PatchSet]:
    changes = check_patch(patch)
    try:
        patch_set = PatchSet(patch)
    except UnidiffParseError as exc:  # pragma: no cover - check_patch parsed it already
        raise PatchError(f"not a valid unified diff: {exc}") from exc
    return changes, patch_set


def patch_edits(patch: str, read_old: ReadOld) -> list[FileEdit]:
    """Apply ``patch`` in memory to the texts ``read_old`` gives.

    Raises :class:`~polybench.patches.diff.PatchError` for a patch that is not a safe diff
    and :class:`UnappliablePatch` for one that does not apply.
    """
    changes, patch_set = _parse(patch)
    state: dict[str, str | None] = {}  # texts already changed by this patch (None: deleted)

    def current(path: str) -> tuple[str | None, bool]:
        if path in state:
            return state[path], False
        return read_old(path), True

    edits: list[FileEdit] = []
    for change, patched in zip(changes, patch_set, strict=True):
        old_path, new_path = change.old_path, change.new_path
        old_text, from_base = _old_text(change, current)
        if change.is_binary:
            edits.append(FileEdit(old_path, new_path, None, None, is_binary=True))
            _record(state, old_path, new_path, "")
            continue
        try:
            applied = apply_hunks(old_text, hunks_from_unidiff(patched))
        except HunkMismatch as exc:
            raise UnappliablePatch(f"{change.path}: {exc}") from None
        if new_path is None and applied.text:
            raise UnappliablePatch(f"deletion of {old_path} leaves lines behind")
        edits.append(
            FileEdit(
                old_path,
                new_path,
                old_text if old_path is not None else None,
                applied.text if new_path is not None else None,
                applied.removed,
                applied.added,
                from_base,
            )
        )
        _record(state, old_path, new_path, applied.text)
    return edits


def _old_text(
    change: FileChange, current: Callable[[str], tuple[str | None, bool]]
) -> tuple[str, bool]:
    """The text the change applies to ("" for a new file), and whether it is the base's."""
    if change.old_path is None:
        existing, _ = current(change.path)
        if existing is not None:
            raise UnappliablePatch(f"new file {change.path} already exists")
        return "", True
    text, from_base = current(change.old_path)
    if text is None:
        raise UnappliablePatch(f"{change.old_path} does not exist at the base commit")
    return text, from_base


def _record(state: dict[str, str | None], old: str | None, new: str | None, text: str) -> None:
    if old is not None and old != new:
        state[old] = None
    if new is not None:
        state[new] = text
