"""The ``local`` backend: checkouts on this machine, commands under bubblewrap when it works."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from polybench.environments.backends.base import Backend
from polybench.environments.backends.settings import ProviderSettings
from polybench.environments.hiding import answer_paths
from polybench.environments.manager import EnvironmentManager
from polybench.environments.provider import LocalProvider, SandboxProvider
from polybench.sandbox.boundary import current_boundary
from polybench.sandbox.local import bubblewrap_available, bubblewrap_problem
from polybench.sandbox.mounts import MountPlan


class LocalOptions(BaseModel):
    """Options of the local backend."""

    model_config = ConfigDict(extra="forbid")

    isolation: Literal["auto", "bubblewrap", "none"] = "auto"
    """``bubblewrap`` (the boundary of :mod:`polybench.sandbox.boundary`), ``none``
    (commands run on this machine as the harness's user), or ``auto`` (bubblewrap when
    it works here; without it, untrusted code is refused unless ``none`` is asked for)."""


def default_hidden(settings: ProviderSettings) -> list[Path]:
    """What to hide when the caller named nothing: the caches, the built-in dataset, the
    run folder around the sandboxes and the folder of clones."""
    run_dir = settings.work_dir.parent if settings.work_dir is not None else None
    return answer_paths(None, run_dir, settings.repo_dir)


class LocalBackend(Backend):
    """Sandboxes on this machine (see :mod:`polybench.sandbox.local`)."""

    name = "local"
    description = "checkouts on this machine; bubblewrap isolation where it works"
    Options = LocalOptions

    def provider(self, settings: ProviderSettings) -> SandboxProvider:
        """A :class:`LocalProvider` with the environment cache of ``settings``."""
        options = self.options(settings.options)
        assert isinstance(options, LocalOptions)
        environments = EnvironmentManager(
            settings.cache_dir / "envs" if settings.cache_dir is not None else None
        )
        return LocalProvider(
            settings.repo_store(),
            environments,
            work_dir=settings.work_dir,
            isolation=self.isolation(settings),
            allow_network=settings.allow_network,
            hidden_paths=tuple(settings.hide or default_hidden(settings)),
            history=settings.history,
            mounts=tuple(settings.mounts),
        )

    def shows(self, settings: ProviderSettings, path: Path) -> bool | None:
        """Under bubblewrap: whether ``path`` is in the allow-list (system folders and
        ``settings.mounts``) and not hidden; the environment of an instance, which is
        visible too, is not counted. Without isolation every path is seen."""
        if self.isolation(settings) == "none":
            return True
        hidden = tuple(p.resolve() for p in settings.hide or default_hidden(settings))
        mounts = tuple(p.resolve() for p in settings.mounts)
        return MountPlan(read_only=mounts, hidden=hidden).shows(path)

    def isolation(self, settings: ProviderSettings) -> str:
        """``bubblewrap`` or ``none``: ``auto`` resolved on this machine."""
        options = self.options(settings.options)
        assert isinstance(options, LocalOptions)
        if options.isolation == "auto":
            return "bubblewrap" if bubblewrap_available() else "none"
        return options.isolation

    def unisolated_by_request(self, settings: ProviderSettings) -> bool:
        """True for ``--isolation none``."""
        options = self.options(settings.options)
        assert isinstance(options, LocalOptions)
        return options.isolation == "none"

    def metadata(self, settings: ProviderSettings) -> dict[str, object]:
        """The options, with the isolation actually used and what it is made of."""
        record = super().metadata(settings)
        isolation = self.isolation(settings)
        record["requested_isolation"] = record.get("isolation")
        record["isolation"] = isolation
        boundary = current_boundary()
        if isolation == "bubblewrap" and boundary is not None:
            record["isolation_layers"] = list(boundary.layers)
            record["isolation_missing"] = list(boundary.missing)
        elif isolation == "none":
            record["isolation_missing"] = [bubblewrap_problem() or "not asked for"]
        return record

    def self_check(self, settings: ProviderSettings) -> list[str]:
        """git must exist; bubblewrap must work when it is asked for."""
        problems = []
        if shutil.which("git") is None:
            problems.append("git is not on PATH")
        options = self.options(settings.options)
        assert isinstance(options, LocalOptions)
        if options.isolation == "bubblewrap" and not bubblewrap_available():
            problems.append("bubblewrap was asked for but `bwrap` cannot run here")
        return problems
