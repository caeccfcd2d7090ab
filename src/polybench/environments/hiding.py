"""The harness's own paths, which no sandbox may see.

Local sandboxes are built from an allow-list (:mod:`polybench.sandbox.mounts`), so most
of these are simply absent from them. They are listed anyway, because any of them may
lie inside a folder a sandbox does see (a package installed under ``/usr/local``, a
cache under a toolchain's folder): there they are masked. Each holds answers or results:
the package (the built-in dataset's gold patches) and the source tree it was installed
from (whose git objects hold them too), caches (clones whose history holds the fix,
environments, hub downloads), the dataset file, the run folder (other instances'
patches, logs and results) and a folder of repository clones.
"""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

from polybench.paths import cache_root

_SOURCE_MARKERS = (".git", "pyproject.toml", "setup.py")


def package_paths() -> list[Path]:
    """The installed package, and the source tree it comes from when it is a checkout
    (an editable install): the nearest folder above it holding a ``.git`` or a project
    file."""
    package = Path(str(resources.files("polybench"))).resolve()
    found = [package]
    for folder in package.parents:
        if any((folder / marker).exists() for marker in _SOURCE_MARKERS):
            found.append(folder)
            break
    return found


def answer_paths(
    dataset: object = None, output_dir: Path | None = None, repo_dir: Path | None = None
) -> list[Path]:
    """Every host path of this run that holds answers or results (existing ones only)."""
    found: list[Path] = [cache_root(), *package_paths()]
    hub = os.environ.get("HF_HOME")
    found.append(Path(hub) if hub else Path.home() / ".cache" / "huggingface")
    for variable in ("HF_DATASETS_CACHE", "HUGGINGFACE_HUB_CACHE", "XDG_CACHE_HOME"):
        if os.environ.get(variable):
            found.append(Path(os.environ[variable]))
    if isinstance(dataset, str) and Path(dataset).exists():
        found.append(Path(dataset))
    if output_dir is not None:
        found.append(output_dir)
    if repo_dir is not None:
        found.append(repo_dir)
    unique: list[Path] = []
    for path in found:
        resolved = path.expanduser().resolve()
        if resolved.exists() and resolved not in unique:
            unique.append(resolved)
    return unique
