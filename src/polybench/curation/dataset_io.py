"""Write instances as a dataset file in the official column layout (JSONL, JSON or CSV).

CSV cells follow the published ``test.csv``: ``F2P``, ``P2P`` and ``issue_numbers`` as
Python list literals, ``modified_nodes`` as a JSON list, booleans as ``True``/``False``,
missing values empty. JSONL and JSON keep real lists and booleans. Every file reads
back with ``polybench.dataset.loaders.load_dataset``.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

from polybench.atomic import atomic_write_text
from polybench.dataset.models import Instance

OFFICIAL_COLUMNS = (
    "instance_id",
    "repo",
    "base_commit",
    "patch",
    "test_patch",
    "problem_statement",
    "hints_text",
    "language",
    "Dockerfile",
    "test_command",
    "F2P",
    "P2P",
    "modified_nodes",
    "task_category",
    "pull_number",
    "issue_numbers",
    "created_at",
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
_PY_LIST_COLUMNS = ("F2P", "P2P", "issue_numbers")


def instance_row(instance: Instance) -> dict[str, Any]:
    """The instance as a row: official columns first, then polybench's extra columns."""
    data = instance.model_dump(mode="json")
    row = {column: data.pop(column, None) for column in OFFICIAL_COLUMNS}
    row.update(data)
    return row


def _csv_cell(column: str, value: Any) -> str:
    if value is None:
        return ""
    if column in _PY_LIST_COLUMNS and isinstance(value, list):
        return repr([str(item) for item in value])
    if isinstance(value, (list, dict)):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, bool):
        return "True" if value else "False"
    return str(value)


def write_dataset(instances: list[Instance], path: Path) -> None:
    """Write ``instances`` to ``path``; the format follows the suffix."""
    rows = [instance_row(instance) for instance in instances]
    suffix = path.suffix.lower()
    if suffix in {".jsonl", ".ndjson"}:
        text = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
    elif suffix == ".json":
        text = json.dumps(rows, ensure_ascii=False, indent=1) + "\n"
    elif suffix == ".csv":
        columns = list(dict.fromkeys(column for row in rows for column in row)) or list(
            OFFICIAL_COLUMNS
        )
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(columns)
        for row in rows:
            writer.writerow([_csv_cell(column, row.get(column)) for column in columns])
        text = buffer.getvalue()
    else:
        raise ValueError(f"{path}: unknown dataset format {suffix!r} (jsonl, json, csv)")
    atomic_write_text(path, text)
