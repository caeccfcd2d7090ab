"""Prepared environments are checked before use: what changed is named, and rebuilt."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from polybench.dataset.models import Instance
from polybench.environments.integrity import manifest_path, record, verify
from polybench.environments.manager import EnvironmentManager, forget_checks
from polybench.environments.repos import RepoStore

MakeRepo = Callable[[dict[str, str]], tuple[Path, str]]


def _environment(root: Path) -> Path:
    env = root / "env-1"
    (env / "venv" / "lib").mkdir(parents=True)
    (env / "venv" / "lib" / "module.py").write_text("VALUE = 1\n")
    (env / "venv" / "bin").mkdir()
    (env / "venv" / "bin" / "python").symlink_to("/usr/bin/python3")
    record(env)
    return env


def test_an_unchanged_environment_verifies(tmp_path: Path) -> None:
    env = _environment(tmp_path)
    assert manifest_path(env).is_file() and not manifest_path(env).is_relative_to(env)
    assert verify(env).ok


@pytest.mark.parametrize(
    "change, expected",
    [
        (lambda env: (env / "venv/lib/module.py").write_text("VALUE = 2\n"), "venv/lib/module.py"),
        (
            lambda env: (env / "venv/lib/planted.pth").write_text("import os\n"),
            "venv/lib/planted.pth",
        ),
        (lambda env: (env / "venv/lib/module.py").unlink(), "venv/lib/module.py"),
        (lambda env: (env / "venv/lib/module.py").chmod(0o777), "venv/lib/module.py"),
        (
            lambda env: (
                (env / "venv/bin/python").unlink(),
                (env / "venv/bin/python").symlink_to("/tmp/evil"),
            ),
            "venv/bin/python",
        ),
    ],
    ids=["content", "added", "removed", "mode", "link-target"],
)
def test_every_kind_of_change_is_named(
    tmp_path: Path, change: Callable[[Path], object], expected: str
) -> None:
    env = _environment(tmp_path)
    change(env)
    found = verify(env)
    assert not found.ok and expected in found.changed, found.changed
    assert expected in found.describe()


def test_deep_paths_are_named_from_the_root_and_linked_folders_are_not_entered(
    tmp_path: Path,
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "lib.js").write_text("1\n")
    env = tmp_path / "env-2"
    deep = env / "node_modules" / "a" / "b" / "c"
    deep.mkdir(parents=True)
    (deep / "index.js").write_text("module.exports = 1\n")
    (env / "node_modules" / "linked").symlink_to(outside, target_is_directory=True)
    record(env)
    recorded = json.loads(manifest_path(env).read_text())["entries"]
    assert "node_modules/a/b/c/index.js" in recorded and "node_modules/linked" in recorded
    assert not any(name.startswith("node_modules/linked/") for name in recorded)
    (outside / "lib.js").write_text("2\n")  # behind a link: not the environment's content
    assert verify(env).ok
    (deep / "index.js").write_text("module.exports = 2\n")
    assert verify(env).changed == ["node_modules/a/b/c/index.js"]


def test_a_change_that_keeps_size_and_time_is_still_seen(tmp_path: Path) -> None:
    env = _environment(tmp_path)
    module = env / "venv/lib/module.py"
    before = module.stat()
    module.write_text("VALUE = 9\n")
    os.utime(module, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert verify(env).changed == ["venv/lib/module.py"]


def test_the_same_bytes_elsewhere_are_accepted_and_the_manifest_refreshed(tmp_path: Path) -> None:
    env = _environment(tmp_path)
    copy = tmp_path / "copy" / env.name
    shutil.copytree(env, copy, symlinks=True)
    shutil.copy(manifest_path(env), manifest_path(copy))
    before = manifest_path(copy).read_text()
    assert verify(copy).ok
    assert manifest_path(copy).read_text() != before  # new inodes recorded
    assert verify(copy).ok


def test_an_environment_without_a_manifest_is_not_trusted(tmp_path: Path) -> None:
    env = _environment(tmp_path)
    manifest_path(env).unlink()
    found = verify(env)
    assert found.missing_manifest and not found.ok and "no manifest" in found.describe()


EMPTY_LOCK = json.dumps(
    {"name": "r", "version": "1.0.0", "lockfileVersion": 3, "requires": True,
     "packages": {"": {"name": "r", "version": "1.0.0"}}}
)  # fmt: skip


@pytest.mark.slow
def test_a_changed_environment_is_rebuilt_and_the_change_reported(
    make_repo: MakeRepo, tmp_path: Path
) -> None:
    package = {"name": "r", "version": "1.0.0"}
    repo, commit = make_repo({"package.json": json.dumps(package), "package-lock.json": EMPTY_LOCK})
    repos = tmp_path / "repos"
    repos.mkdir()
    (repos / "o__r").symlink_to(repo)
    instance = Instance(instance_id="o__r-1", repo="o/r", base_commit=commit,
                        language="JavaScript")  # fmt: skip
    manager = EnvironmentManager(tmp_path / "cache" / "envs")
    clone = RepoStore(repo_dir=repos).clone_for(instance.repo, commit)
    first = manager.prepare(instance, clone)
    assert first.env_dir is not None and first.rebuilt is None
    again = manager.prepare(instance, clone)
    assert again.reused and again.fingerprint == first.fingerprint is not None
    planted = first.env_dir / "node_modules.planted.js"
    planted.write_text("globalThis.pwned = true\n")  # as an unisolated run could
    forget_checks()
    second = manager.prepare(instance, clone)
    assert second.rebuilt is not None and "node_modules.planted.js" in second.rebuilt
    assert not second.reused and not planted.exists()
    assert second.fingerprint is not None and second.fingerprint != first.fingerprint
    forget_checks()
    assert manager.prepare(instance, clone).rebuilt is None
