"""Dataset files written in the official column layout read back unchanged."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from polybench.curation.dataset_io import OFFICIAL_COLUMNS, write_dataset
from polybench.dataset.loaders import load_instances_from_file
from polybench.dataset.models import Instance

INSTANCE = Instance(
    instance_id="acme__lib-7",
    repo="acme/lib",
    base_commit="c" * 40,
    patch="diff --git a/a b/a\n",
    test_patch="diff --git a/t b/t\n",
    problem_statement='Quotes " and, commas\nand lines',
    language="TypeScript",
    F2P=["/testbed/t.test.ts->it 'works'"],
    P2P=["a", "b"],
    modified_nodes=["a.ts->program->function_declaration:f"],
    issue_numbers=["6"],
    pull_number=7,
    is_func_only=True,
    num_nodes=1,
    log_parser="jest_json",
    informativeness_location="B",
)


@pytest.mark.parametrize("suffix", [".jsonl", ".json", ".csv"])
def test_round_trip(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"d{suffix}"
    write_dataset([INSTANCE], path)
    [back] = load_instances_from_file(path)
    assert back.model_dump() == INSTANCE.model_dump()


def test_csv_cells_follow_the_published_file(tmp_path: Path) -> None:
    path = tmp_path / "d.csv"
    write_dataset([INSTANCE], path)
    with path.open(newline="") as handle:
        [row] = list(csv.DictReader(handle))
    assert list(row)[: len(OFFICIAL_COLUMNS)] == list(OFFICIAL_COLUMNS)
    assert row["F2P"] == "[\"/testbed/t.test.ts->it 'works'\"]"
    assert row["P2P"] == "['a', 'b']"
    assert row["modified_nodes"] == '["a.ts->program->function_declaration:f"]'
    assert row["is_func_only"] == "True" and row["is_mixed"] == ""
    assert row["informativeness_location"] == "B"
    with pytest.raises(ValueError, match="unknown dataset format"):
        write_dataset([INSTANCE], tmp_path / "d.txt")
