"""Run the harness as an unprivileged user, from a test suite that runs as root.

The process keeps this machine's file system as it is (``bwrap --dev-bind / /``, as root,
with no other namespace), except that folders other users cannot search (``/root`` with
a Python under it, the test's temporary folders) are replaced by an empty folder holding
only what the harness needs: its interpreter, its source tree and its work folder. Then
``setpriv`` becomes :data:`UID` with no capability, and the command runs: the harness as
any user without rights would run it (its own sandboxes then make a user namespace).
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from polybench.environments.hiding import package_paths

UID = 4242
"""The unprivileged user (and group) the harness runs as."""


def can_drop_privileges() -> bool:
    """True when this process is root and has bwrap and setpriv to become :data:`UID`."""
    return os.geteuid() == 0 and bool(shutil.which("bwrap")) and bool(shutil.which("setpriv"))


needs_root = pytest.mark.skipif(
    not can_drop_privileges(), reason="needs root, bwrap and setpriv to become another user"
)


def _searchable_by_others(folder: Path) -> bool:
    return bool(folder.stat().st_mode & stat.S_IXOTH)


def _view_arguments(needed: list[Path]) -> list[str]:
    """bwrap arguments that let :data:`UID` reach ``needed`` (and nothing else new)."""
    masked: list[Path] = []
    for path in needed:
        for folder in reversed(path.parents):
            if folder == Path("/") or any(folder == m or m in folder.parents for m in masked):
                continue
            if not _searchable_by_others(folder):
                masked.append(folder)
                break
    args: list[str] = []
    for folder in masked:
        args += ["--tmpfs", str(folder)]
        for path in needed:
            if folder in path.parents:
                made = [p for p in reversed(path.parents) if folder in p.parents]
                for parent in made:
                    args += ["--perms", "0755", "--dir", str(parent)]
                args += ["--ro-bind", str(path), str(path)]
    return args


def work_folder(tmp_root: Path) -> Path:
    """A folder the unprivileged user owns, reachable by it (its parents searchable)."""
    base = Path("/var/tmp") / f"polybench-unprivileged-{os.getpid()}-{tmp_root.name}"
    base.mkdir(mode=0o755, parents=True, exist_ok=True)
    os.chown(base, UID, UID)
    return base


def run_unprivileged(
    argv: list[str], work: Path, env: dict[str, str] | None = None, timeout: float = 3600
) -> subprocess.CompletedProcess[str]:
    """Run ``argv`` as :data:`UID` with ``HOME`` and the polybench cache in ``work``."""
    needed = [Path(sys.prefix).resolve(), Path(sys.base_prefix).resolve()]
    needed += [p for p in package_paths()[1:]]
    needed += [Path(p).resolve() for p in sys.path if p and Path(p).is_dir()]
    unique = sorted(set(needed), key=lambda p: len(p.parts))
    kept: list[Path] = []
    for path in unique:
        if not any(other in path.parents for other in kept):
            kept.append(path)
    outer = ["bwrap", "--dev-bind", "/", "/", *_view_arguments(kept), "--die-with-parent"]
    setpriv = ["setpriv", f"--reuid={UID}", f"--regid={UID}", "--clear-groups",
               "--inh-caps=-all", "--bounding-set=-all", "--"]  # fmt: skip
    full_env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(work),
        "POLYBENCH_CACHE_DIR": str(work / "cache"),
        "LANG": "C.UTF-8",
        "COLUMNS": "200",
        **(env or {}),
    }
    for name, value in os.environ.items():
        # This machine's certificate settings (a proxy with its own CA) and Python path.
        if "CERT" in name or name.endswith("_CA_BUNDLE") or name == "PYTHONPATH":
            full_env.setdefault(name, value)
    return subprocess.run(
        [*outer, "--chdir", str(work), "--", *setpriv, *argv],
        env=full_env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
