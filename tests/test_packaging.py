"""The built wheel: its distribution name (not ``polybench``, another project's on the
package index), the ``polybench`` command and import package, and every file of the
built-in dataset, dotfiles included."""

from __future__ import annotations

import re
import subprocess
import sys
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest
import tomllib

from polybench import DISTRIBUTION

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: the copy pip carries
    from pip._vendor import tomli as tomllib
from polybench.dataset.builtin import builtin_root

ROOT = Path(__file__).resolve().parents[1]
TAKEN = "polybench"
"""The name on the package index of an unrelated project (polynomial arithmetic benchmarks)."""


def test_the_distribution_name_is_ours_and_every_install_hint_uses_it() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["name"] == DISTRIBUTION == "polybench-harness" != TAKEN
    assert project["scripts"] == {"polybench": "polybench.cli.main:main"}
    extras = " ".join(project["optional-dependencies"]["dev"])
    assert f"{TAKEN}[" not in extras.replace(f"{DISTRIBUTION}[", "")
    # No message or document tells anyone to install the other project.
    wrong = re.compile(r"pip install\s+['\"]?polybench(?![-\w])")
    texts = [*ROOT.glob("src/**/*.py"), *ROOT.glob("docs/*.md"), ROOT / "README.md",
             ROOT / ".ci" / "run"]  # fmt: skip
    offenders = [str(path) for path in texts if wrong.search(path.read_text())]
    assert offenders == []


def _wheel(tmp_path: Path) -> Path:
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(tmp_path), str(ROOT)],
        check=True,
        cwd=tmp_path,
    )
    (wheel,) = tmp_path.glob("polybench_harness-*.whl")
    return wheel


@pytest.mark.slow
def test_wheel_is_named_polybench_harness_with_the_polybench_command(tmp_path: Path) -> None:
    wheel = _wheel(tmp_path)
    names = zipfile.ZipFile(wheel).namelist()
    info = next(n for n in names if n.endswith(".dist-info/METADATA"))
    metadata = Parser().parsestr(zipfile.ZipFile(wheel).read(info).decode())
    assert metadata["Name"] == DISTRIBUTION
    points = zipfile.ZipFile(wheel).read(info.replace("METADATA", "entry_points.txt")).decode()
    assert "polybench = polybench.cli.main:main" in points
    assert {
        name.split("/", 1)[0] for name in names if not name.split("/", 1)[0].endswith(".dist-info")
    } == {"polybench"}


@pytest.mark.slow
def test_wheel_contains_the_whole_mini_dataset(tmp_path: Path) -> None:
    wheel = _wheel(tmp_path)
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
