"""The ``strict`` test dataset (``tests/data/strict``): repositories that build with
warnings as errors (Error Prone and ``-Werror``, TypeScript ``noUnused*``, pytest
``-W error --strict-markers``), one task each, in the layout of the built-in ``mini``."""

from __future__ import annotations

import json
from pathlib import Path

from filelock import FileLock

from polybench.dataset.materialise import materialise_tree
from polybench.dataset.models import Instance

STRICT = Path(__file__).resolve().parents[1] / "data" / "strict"
_TEXT_FILES = {
    "problem_statement": "problem_statement.md",
    "patch": "patch.diff",
    "test_patch": "test_patch.diff",
    "Dockerfile": "Dockerfile",
}


def strict_dataset(repo_dir: Path) -> list[Instance]:
    """Make the repositories under ``repo_dir`` (one commit each) and return the tasks,
    with ``base_commit`` set to those commits."""
    repo_dir.mkdir(parents=True, exist_ok=True)
    commits = {}
    for source in sorted(p for p in (STRICT / "repos").iterdir() if p.is_dir()):
        with FileLock(str(repo_dir / f".{source.name}.lock")):
            commits[source.name] = materialise_tree(source, repo_dir / source.name)
    instances = []
    for folder in sorted(p for p in (STRICT / "instances").iterdir() if p.is_dir()):
        row = json.loads((folder / "instance.json").read_text(encoding="utf-8"))
        for column, name in _TEXT_FILES.items():
            row[column] = (folder / name).read_text(encoding="utf-8")
        row["base_commit"] = commits[row["repo"].replace("/", "__", 1)]
        instances.append(Instance.model_validate(row))
    return instances
