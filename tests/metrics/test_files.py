"""Set precision / recall / F1, and file-level retrieval with every real path counted."""

from __future__ import annotations

import pytest

from polybench.metrics.files import file_retrieval, file_retrieval_of_patches, patch_files
from polybench.metrics.prf import PRF, set_prf

from .conftest import DiffMaker

BASE = {"a.py": "x = 1\n", "b.py": "y = 2\n", "docs/readme.md": "hello\n"}


def test_set_prf_by_hand() -> None:
    score = set_prf({"a", "b", "c"}, {"b", "c", "d", "e"})
    assert score.precision == pytest.approx(2 / 4)
    assert score.recall == pytest.approx(2 / 3)
    assert score.f1 == pytest.approx(2 * 0.5 * (2 / 3) / (0.5 + 2 / 3))  # 4/7
    assert score.f1 == pytest.approx(4 / 7)
    assert set_prf({"a"}, {"a"}) == PRF(precision=1.0, recall=1.0, f1=1.0)
    assert set_prf({"a"}, {"b"}) == PRF.zero()
    assert set_prf({"a"}, []) == PRF.zero()  # nothing predicted: precision 0, not undefined
    assert set_prf([], {"a"}) == PRF.zero()  # nothing to find: recall 0
    assert set_prf(["a", "a", "b"], ["a"]).recall == pytest.approx(1 / 2)  # sets, not lists


def test_new_deleted_and_renamed_files_count_as_their_real_paths(make_diff: DiffMaker) -> None:
    base = {**BASE, "old_name.py": "def f():\n    return 1\n" * 5}
    patch = make_diff(
        base,
        {
            "new_one.py": "z = 3\n",
            "new_two.py": "w = 4\n",
            "b.py": None,
            "old_name.py": None,
            "new_name.py": "def f():\n    return 1\n" * 5,
        },
    )
    assert "rename from old_name.py" in patch
    assert sorted(patch_files(patch)) == [
        "b.py",
        "new_name.py",
        "new_one.py",
        "new_two.py",
        "old_name.py",
    ]


def test_new_files_do_not_collapse_into_dev_null(make_diff: DiffMaker) -> None:
    gold = make_diff(BASE, {"pkg/one.py": "1\n", "pkg/two.py": "2\n"})
    predicted = make_diff(BASE, {"pkg/one.py": "1\n", "pkg/three.py": "3\n"})
    score = file_retrieval_of_patches(gold, predicted)
    # The official harness sees {/dev/null} on both sides and scores 1.0.
    assert score.precision == pytest.approx(1 / 2)
    assert score.recall == pytest.approx(1 / 2)
    assert score.f1 == pytest.approx(1 / 2)


def test_partial_overlap_by_hand(make_diff: DiffMaker) -> None:
    gold = make_diff(BASE, {"a.py": "x = 10\n", "b.py": "y = 20\n"})
    predicted = make_diff(BASE, {"a.py": "x = 11\n", "docs/readme.md": "hi\n"})
    score = file_retrieval_of_patches(gold, predicted)
    assert (score.precision, score.recall) == (0.5, 0.5)


@pytest.mark.parametrize(
    "prediction",
    [
        "",
        "   \n",
        "this is not a diff\n",
        "--- a/../../etc/passwd\n+++ b/../../etc/passwd\n@@ -1 +1 @@\n-a\n+b\n",
        "--- a/.git/config\n+++ b/.git/config\n@@ -1 +1 @@\n-a\n+b\n",
    ],
)
def test_empty_invalid_or_unsafe_predictions_score_zero(
    make_diff: DiffMaker, prediction: str
) -> None:
    gold = make_diff(BASE, {"a.py": "x = 10\n"})
    assert patch_files(prediction) == []
    assert file_retrieval_of_patches(gold, prediction) == PRF.zero()


def test_file_retrieval_of_lists() -> None:
    assert file_retrieval(["a", "b"], []) == PRF.zero()
    assert file_retrieval(["a", "b"], ["a", "b"]).f1 == 1.0
