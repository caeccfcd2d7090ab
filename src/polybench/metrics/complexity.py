"""How complex a patch is: files, hunks, lines, and which kinds of CST nodes it changes.

The node columns are the dataset's (``num_nodes``, ``num_func_changes``, ...): a node id
whose last segment is a function or method type is a function change, a class type a
class change (a change to class-level lines outside any method, such as fields or the
class header, is a change of the class node). The node change categories are the
paper's (Tables 2 and 8): ``none`` (no class or function touched), ``function_only``,
``class_only`` and ``mixed`` are exclusive; ``single_function`` and ``single_class`` are
the one-node cases of ``function_only`` and ``class_only``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor

from pydantic import BaseModel
from unidiff.errors import UnidiffParseError
from unidiff.patch import PatchSet

from polybench.dataset.models import Instance
from polybench.environments.repos import RepositoryError
from polybench.metrics.edits import UnappliablePatch
from polybench.metrics.languages import CLASS, FUNCTION, NODE_KINDS
from polybench.metrics.nodes import NodeAnalyzer
from polybench.patches.diff import PatchError

NONE, FUNCTION_ONLY, CLASS_ONLY, MIXED = "none", "function_only", "class_only", "mixed"
SINGLE_FUNCTION, SINGLE_CLASS = "single_function", "single_class"
CATEGORIES = (NONE, FUNCTION_ONLY, CLASS_ONLY, MIXED)
"""The exclusive node change categories (paper Table 2)."""
TABLE8_STRATA = (NONE, SINGLE_FUNCTION, FUNCTION_ONLY, SINGLE_CLASS, CLASS_ONLY, MIXED)
"""The strata of paper Table 8; single function/class are also function/class only."""

COLUMNS = (
    "modified_nodes",
    "num_nodes",
    "num_func_changes",
    "num_class_changes",
    "is_func_only",
    "is_class_only",
    "is_mixed",
    "is_no_nodes",
    "is_single_func",
    "is_single_class",
)


class ComplexityColumns(BaseModel):
    """The dataset's complexity columns for one patch."""

    modified_nodes: list[str]
    num_nodes: int
    num_func_changes: int
    num_class_changes: int
    is_func_only: bool
    is_class_only: bool
    is_mixed: bool
    is_no_nodes: bool
    is_single_func: bool
    is_single_class: bool

    @property
    def category(self) -> str:
        """``none``, ``function_only``, ``class_only`` or ``mixed``."""
        return node_category(self.num_func_changes, self.num_class_changes)

    @property
    def strata(self) -> list[str]:
        """Every Table 8 stratum this patch belongs to (one or two)."""
        return node_strata(self.num_func_changes, self.num_class_changes)


class PatchComplexity(BaseModel):
    """Size of a patch and its node columns."""

    num_files: int
    num_hunks: int
    lines_added: int
    lines_removed: int
    columns: ComplexityColumns

    @property
    def lines_changed(self) -> int:
        """Added plus removed lines."""
        return self.lines_added + self.lines_removed


def node_kind(node_id: str) -> str | None:
    """``class`` or ``function`` for a node id (by its last segment's type), else None."""
    last = node_id.rsplit("->", 1)[-1]
    return NODE_KINDS.get(last.split(":", 1)[0])


def node_category(functions: int, classes: int) -> str:
    """The exclusive category of a patch that changes these many functions and classes."""
    if functions and classes:
        return MIXED
    if functions:
        return FUNCTION_ONLY
    if classes:
        return CLASS_ONLY
    return NONE


def node_strata(functions: int, classes: int) -> list[str]:
    """The Table 8 strata of a patch: its category, and ``single_*`` for exactly one node."""
    category = node_category(functions, classes)
    if category == FUNCTION_ONLY and functions == 1:
        return [SINGLE_FUNCTION, FUNCTION_ONLY]
    if category == CLASS_ONLY and classes == 1:
        return [SINGLE_CLASS, CLASS_ONLY]
    return [category]


def complexity_columns(node_ids: Iterable[str]) -> ComplexityColumns:
    """The dataset's complexity columns for a set of modified node ids."""
    nodes = sorted(set(node_ids))
    kinds = [node_kind(node) for node in nodes]
    functions, classes = kinds.count(FUNCTION), kinds.count(CLASS)
    return ComplexityColumns(
        modified_nodes=nodes,
        num_nodes=len(nodes),
        num_func_changes=functions,
        num_class_changes=classes,
        is_func_only=functions > 0 and classes == 0,
        is_class_only=classes > 0 and functions == 0,
        is_mixed=functions > 0 and classes > 0,
        is_no_nodes=functions == 0 and classes == 0,
        is_single_func=functions == 1 and classes == 0,
        is_single_class=classes == 1 and functions == 0,
    )


def patch_shape(patch: str) -> tuple[int, int, int, int]:
    """``(files, hunks, lines added, lines removed)`` of a diff; zeros when it is not one."""
    if not patch.strip():
        return 0, 0, 0, 0
    try:
        patch_set = PatchSet(patch)
    except UnidiffParseError:
        return 0, 0, 0, 0
    hunks = sum(len(patched) for patched in patch_set)
    return len(patch_set), hunks, patch_set.added, patch_set.removed


def patch_complexity(patch: str, node_ids: Iterable[str]) -> PatchComplexity:
    """Complexity of ``patch``, given the node ids it modifies."""
    files, hunks, added, removed = patch_shape(patch)
    return PatchComplexity(
        num_files=files,
        num_hunks=hunks,
        lines_added=added,
        lines_removed=removed,
        columns=complexity_columns(node_ids),
    )


def dataset_columns(instance: Instance) -> ComplexityColumns | None:
    """The complexity columns an instance carries, or None when any is missing."""
    values = {column: getattr(instance, column) for column in COLUMNS}
    if any(value is None for value in values.values()):
        return None
    return ComplexityColumns.model_validate(values)


def column_mismatches(instance: Instance, computed: ComplexityColumns) -> dict[str, object]:
    """``{column: dataset value}`` for every complexity column that differs from ``computed``.

    ``modified_nodes`` is compared as a set; a missing dataset column is a mismatch.
    """
    differences: dict[str, object] = {}
    for column in COLUMNS:
        theirs = getattr(instance, column)
        ours = getattr(computed, column)
        if column == "modified_nodes":
            same = set(theirs) == set(ours)
        else:
            same = theirs is not None and theirs == ours
        if not same:
            differences[column] = theirs
    return differences


def gold_columns(
    instances: Sequence[Instance], analyzer: NodeAnalyzer, workers: int = 1
) -> dict[str, ComplexityColumns | str]:
    """Recompute the complexity columns of each instance's gold patch.

    Returns ``{instance_id: columns}``, or an error message for an instance whose gold
    patch does not apply or whose repository is not available.
    """

    def one(instance: Instance) -> ComplexityColumns | str:
        try:
            found = analyzer.analyze(instance.repo, instance.base_commit, instance.patch)
        except (PatchError, UnappliablePatch) as exc:
            return f"gold patch does not apply: {exc}"
        except RepositoryError as exc:
            return f"repository unavailable: {exc}"
        return complexity_columns(found.nodes)

    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        results = list(pool.map(one, instances))
    return {i.instance_id: r for i, r in zip(instances, results, strict=True)}
