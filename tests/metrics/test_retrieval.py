"""Retrieval scores of predictions, computed from a clone without a checkout."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from polybench.metrics.prf import PRF
from polybench.metrics.retrieval import (
    InstanceRetrieval,
    RetrievalScorer,
    official_metrics_json,
    summarise,
)

from .conftest import Project

CALC = """\
class Calculator:
    precision = 2

    def add(self, a, b):
        return round(a + b, self.precision)

    def sub(self, a, b):
        return round(a - b, self.precision)


def helper(x):
    return x
"""
FILES = {"calc.py": CALC, "util.py": "def util():\n    return 1\n", "README.md": "# calc\n"}
ADD = "module->class_definition:Calculator->function_definition:add"
SUB = "module->class_definition:Calculator->function_definition:sub"

ProjectMaker = Callable[[dict[str, str]], Project]
ScorerMaker = Callable[[Project], RetrievalScorer]


def edit(text: str, old: str, new: str) -> str:
    assert old in text
    return text.replace(old, new)


@pytest.fixture
def calc(project: ProjectMaker) -> Project:
    return project(FILES)


def test_gold_prediction_scores_one(calc: Project, scorer_for: ScorerMaker) -> None:
    gold = calc.instance({"calc.py": edit(CALC, "a + b,", "a + b + 0,")})
    result = scorer_for(calc).score(gold, gold.patch)
    assert result.file == PRF(precision=1, recall=1, f1=1)
    assert result.node == PRF(precision=1, recall=1, f1=1)
    assert result.reference_nodes == [f"calc.py->{ADD}"]
    assert result.predicted_nodes == [f"calc.py->{ADD}"]
    assert result.reference_files == ["calc.py"] and result.note == ""


def test_partial_prediction_by_hand(calc: Project, scorer_for: ScorerMaker) -> None:
    gold = calc.instance(
        {
            "calc.py": edit(edit(CALC, "a + b,", "a + b + 0,"), "a - b,", "a - b - 0,"),
            "util.py": "def util():\n    return 2\n",
        }
    )
    # Right file calc.py (one of two gold nodes, plus a wrong one), and a wrong file.
    prediction = calc.diff(
        {
            "calc.py": edit(edit(CALC, "a + b,", "b + a,"), "return x", "return -x"),
            "README.md": "# calculator\n",
        }
    )
    result = scorer_for(calc).score(gold, prediction)
    assert result.reference_nodes == [
        f"calc.py->{ADD}",
        f"calc.py->{SUB}",
        "util.py->module->function_definition:util",
    ]
    assert result.predicted_nodes == [
        f"calc.py->{ADD}",
        "calc.py->module->function_definition:helper",
    ]
    # files: gold {calc.py, util.py}, predicted {calc.py, README.md}
    assert result.file.precision == pytest.approx(1 / 2)
    assert result.file.recall == pytest.approx(1 / 2)
    # nodes: 1 hit of 2 predicted and of 3 gold: P = 1/2, R = 1/3, F1 = 2/5
    assert result.node is not None
    assert result.node.precision == pytest.approx(1 / 2)
    assert result.node.recall == pytest.approx(1 / 3)
    assert result.node.f1 == pytest.approx(2 / 5)


def test_empty_prediction_scores_zero(calc: Project, scorer_for: ScorerMaker) -> None:
    gold = calc.instance({"calc.py": edit(CALC, "a + b,", "a + b + 0,")})
    result = scorer_for(calc).score(gold, "")
    assert result.file == PRF.zero() and result.node == PRF.zero()
    assert result.predicted_files == [] and result.predicted_nodes == []
    assert result.note == "empty prediction"


def test_gold_without_nodes_gives_node_none(calc: Project, scorer_for: ScorerMaker) -> None:
    # Only class-free, function-free lines: a module-level constant and the README.
    gold = calc.instance({"calc.py": CALC + "\nLIMIT = 3\n", "README.md": "# calc 2\n"})
    scorer = scorer_for(calc)
    same = scorer.score(gold, gold.patch)
    assert same.reference_nodes == [] and same.node is None
    assert same.file.f1 == 1.0
    other = scorer.score(gold, calc.diff({"calc.py": edit(CALC, "a + b,", "b + a,")}))
    assert other.node is None and other.predicted_nodes == [f"calc.py->{ADD}"]
    assert official_metrics_json(other)["node_retrieval_metrics"] is None


def test_prediction_touching_only_non_code_files(calc: Project, scorer_for: ScorerMaker) -> None:
    gold = calc.instance({"calc.py": edit(CALC, "a + b,", "a + b + 0,")})
    prediction = calc.diff({"README.md": "# other\n", "docs/notes.txt": "new\n"})
    result = scorer_for(calc).score(gold, prediction)
    assert result.predicted_files == ["README.md", "docs/notes.txt"]
    assert result.predicted_nodes == []
    assert result.file == PRF.zero()
    assert result.node == PRF.zero()


def test_unappliable_and_invalid_predictions(calc: Project, scorer_for: ScorerMaker) -> None:
    gold = calc.instance({"calc.py": edit(CALC, "a + b,", "a + b + 0,")})
    scorer = scorer_for(calc)
    stale = (
        "--- a/calc.py\n+++ b/calc.py\n@@ -4,2 +4,2 @@\n"
        "     def add(self, a, b):\n-        return a + b\n+        return b + a\n"
    )
    result = scorer.score(gold, stale)
    assert result.file == PRF.zero() and result.node == PRF.zero()
    assert result.predicted_nodes == []
    assert result.note.startswith("patch does not apply: calc.py: hunk 1")
    missing = "--- a/nope.py\n+++ b/nope.py\n@@ -1 +1 @@\n-a\n+b\n"
    assert "nope.py does not exist" in scorer.score(gold, missing).note
    exists = calc.make_diff({}, {"util.py": "x = 1\n"})  # "new file" that is already there
    assert "new file util.py already exists" in scorer.score(gold, exists).note
    invalid = scorer.score(gold, "--- a/../x.py\n+++ b/../x.py\n@@ -1 +1 @@\n-a\n+b\n")
    assert invalid.file == PRF.zero() and invalid.note.startswith("invalid patch:")
    prose = scorer.score(gold, "I fixed it by editing calc.py.")
    assert prose.file == PRF.zero() and prose.note.startswith("invalid patch:")


def test_new_deleted_and_renamed_files(project: ProjectMaker, scorer_for: ScorerMaker) -> None:
    legacy = "def old_api():\n    return 1\n\n\nclass Legacy:\n    pass\n"
    mover = "def move_me():\n" + "    x = 1\n" * 8 + "    return x\n"
    proj = project({"legacy.py": legacy, "mover.py": mover, "keep.py": "K = 1\n"})
    gold = proj.instance(
        {
            "legacy.py": None,
            "mover.py": None,
            "moved.py": mover.replace("return x", "return x + 1"),
            "fresh/new.ts": "export function made(): number {\n  return 1;\n}\n",
        }
    )
    result = scorer_for(proj).score(gold, gold.patch)
    assert sorted(result.reference_files) == ["fresh/new.ts", "legacy.py", "moved.py", "mover.py"]
    assert result.reference_nodes == [
        "fresh/new.ts->program->function_declaration:made",
        "legacy.py->module->class_definition:Legacy",
        "legacy.py->module->function_definition:old_api",
        "moved.py->module->function_definition:move_me",
        "mover.py->module->function_definition:move_me",
    ]
    assert result.node == PRF(precision=1, recall=1, f1=1)


def test_syntax_errors_are_noted_and_recovered(calc: Project, scorer_for: ScorerMaker) -> None:
    gold = calc.instance({"calc.py": edit(CALC, "a + b,", "a + b + 0,")})
    broken = calc.diff({"calc.py": edit(CALC, "return round(a + b,", "return round(a + ]b,")})
    result = scorer_for(calc).score(gold, broken)
    assert result.predicted_nodes == [f"calc.py->{ADD}"]
    assert result.node == PRF(precision=1, recall=1, f1=1)
    assert "syntax errors in calc.py" in result.note


def test_gold_nodes_are_cached_and_fall_back_to_the_dataset(
    calc: Project, scorer_for: ScorerMaker
) -> None:
    gold = calc.instance(
        {"calc.py": edit(CALC, "a + b,", "a + b + 0,")},
        modified_nodes=["calc.py->module->function_definition:from_dataset"],
    )
    scorer = scorer_for(calc)
    assert scorer.gold(gold) is scorer.gold(gold)
    broken_gold = gold.model_copy(
        update={"instance_id": "acme__widget-2", "patch": gold.patch.replace("precision)", "p)")}
    )
    result = scorer.score(broken_gold, gold.patch)
    assert result.reference_nodes == ["calc.py->module->function_definition:from_dataset"]
    assert "gold patch does not apply" in result.note


def test_official_json_and_summary() -> None:
    one = PRF(precision=1, recall=1, f1=1)
    half = PRF(precision=0.5, recall=0.5, f1=0.5)
    results = [
        InstanceRetrieval(
            instance_id="a",
            file=one,
            node=half,
            reference_files=["x"],
            predicted_files=["x"],
            reference_nodes=["n1", "n2"],
            predicted_nodes=["n1"],
        ),
        InstanceRetrieval(
            instance_id="b",
            file=half,
            node=None,
            reference_files=["x"],
            predicted_files=[],
            reference_nodes=[],
            predicted_nodes=[],
        ),
        InstanceRetrieval(
            instance_id="c",
            file=PRF.zero(),
            node=PRF.zero(),
            reference_files=["x"],
            predicted_files=[],
            reference_nodes=["n"],
            predicted_nodes=[],
            note="empty prediction",
        ),
    ]
    assert official_metrics_json(results[0]) == {
        "instance_id": "a",
        "file_retrieval_metrics": {"recall": 1.0, "precision": 1.0, "f1": 1.0},
        "node_retrieval_metrics": {"recall": 0.5, "precision": 0.5, "f1": 0.5},
        "reference_nodes": ["n1", "n2"],
        "predicted_nodes": ["n1"],
    }
    summary = summarise(results)
    assert summary["instances"] == 3 and summary["node_instances"] == 2
    assert summary["file_retrieval_metrics"]["precision"] == pytest.approx((1 + 0.5 + 0) / 3)
    # b has no gold node: it is left out of the node mean, which is (0.5 + 0) / 2.
    assert summary["node_retrieval_metrics"]["recall"] == pytest.approx(0.25)
    assert summarise([]) == {
        "instances": 0,
        "file_retrieval_metrics": None,
        "node_instances": 0,
        "node_retrieval_metrics": None,
    }


def test_scorer_is_a_context_manager(calc: Project) -> None:
    gold = calc.instance({"calc.py": edit(CALC, "a + b,", "a + b + 0,")})
    with RetrievalScorer(calc.store) as scorer:
        scorer.score(gold, gold.patch)
        readers = list(scorer.analyzer._readers.values())
        assert readers and all(r._process is not None for r in readers)
    assert all(r._process is None for r in readers)
