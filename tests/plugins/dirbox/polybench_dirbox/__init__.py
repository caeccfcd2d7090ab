"""A polybench backend from another package: folders on this machine, process groups."""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

from polybench.dataset.models import Instance
from polybench.environments.backends import Backend, ProviderSettings
from polybench.environments.manager import EnvironmentManager
from polybench.environments.provider import ReadySandbox, SandboxProvider
from polybench.sandbox.history import prune_script
from polybench_dirbox.sandbox import DirBox

__all__ = ["DirBox", "DirBoxBackend", "DirBoxProvider"]


class DirBoxProvider:
    """Makes one folder per instance: a clone at the base commit, history pruned."""

    name = "dirbox"

    def __init__(self, settings: ProviderSettings) -> None:
        self.repos = settings.repo_store()
        cache = settings.cache_dir / "envs" if settings.cache_dir is not None else None
        self.environments = EnvironmentManager(cache)
        self.work_dir = settings.work_dir

    def provide(self, instance: Instance) -> ReadySandbox:
        """A new folder sandbox for ``instance`` with its environment prepared."""
        clone = self.repos.clone_for(instance.repo, instance.base_commit)
        environment = self.environments.prepare(instance, clone)
        if self.work_dir is not None:
            self.work_dir.mkdir(parents=True, exist_ok=True)
        root = Path(tempfile.mkdtemp(prefix="dirbox-", dir=self.work_dir))
        checkout = root / "repo"
        for argv, cwd in (
            (["git", "clone", "-q", "--no-checkout", str(clone), str(checkout)], root),
            (["git", "checkout", "-q", "--detach", instance.base_commit], checkout),
            (prune_script(instance.base_commit), checkout),
        ):
            subprocess.run(argv, cwd=cwd, check=True, capture_output=True)
        return ReadySandbox(sandbox=DirBox(root), environment=environment)


class DirBoxBackend(Backend):
    """The ``dirbox`` backend (no options)."""

    name = "dirbox"
    description = "plain folders and process groups (a third-party example; no isolation)"

    def isolation(self, settings: ProviderSettings) -> str:
        """``none``: commands run in plain folders of this machine."""
        return "none"

    def provider(self, settings: ProviderSettings) -> SandboxProvider:
        """A :class:`DirBoxProvider` for ``settings``."""
        self.options(settings.options)
        return DirBoxProvider(settings)
