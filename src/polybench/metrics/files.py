"""File-level retrieval: the files a predicted patch touches against the gold patch's.

Every real path counts: a new file is its new path, a deleted file its old path, and a
rename both paths (the official harness keys new files as ``/dev/null``, so all new files
collapse into one item; that defect is not copied).
"""

from __future__ import annotations

from polybench.metrics.prf import PRF, set_prf
from polybench.patches.diff import PatchError, check_patch


def patch_files(patch: str) -> list[str]:
    """Every real path ``patch`` touches, in order; [] for an empty or invalid patch."""
    if not patch.strip():
        return []
    try:
        changes = check_patch(patch)
    except PatchError:
        return []
    return list(dict.fromkeys(path for change in changes for path in change.paths))


def file_retrieval(reference_files: list[str], predicted_files: list[str]) -> PRF:
    """Set precision / recall / F1 of the predicted files (0 for all three when none)."""
    if not predicted_files:
        return PRF.zero()
    return set_prf(reference_files, predicted_files)


def file_retrieval_of_patches(gold_patch: str, predicted_patch: str) -> PRF:
    """File retrieval of a predicted patch against a gold patch, from the patch texts alone.

    An empty or invalid prediction scores 0. Whether the prediction applies is not checked
    here; :class:`polybench.metrics.retrieval.RetrievalScorer` also scores an unappliable
    prediction 0.
    """
    return file_retrieval(patch_files(gold_patch), patch_files(predicted_patch))
