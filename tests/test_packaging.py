"""The built wheel ships every file of the built-in dataset, dotfiles included."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from polybench.dataset.builtin import builtin_root

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_wheel_contains_the_whole_mini_dataset(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(tmp_path), str(ROOT)],
        check=True,
        cwd=tmp_path,
    )
    (wheel,) = tmp_path.glob("polybench-*.whl")
    prefix = "polybench/dataset/mini_data/"
    in_wheel = {n[len(prefix) :] for n in zipfile.ZipFile(wheel).namelist() if n.startswith(prefix)}
    source = builtin_root("mini")
    on_disk = {
        str(p.relative_to(source))
        for p in source.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }
    assert on_disk, "the mini dataset is empty"
    assert in_wheel == on_disk
