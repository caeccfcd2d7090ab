"""Turning an instance into a ready sandbox: repository at base commit, dependencies in place."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from polybench.dataset.models import Instance
from polybench.environments.manager import EnvironmentManager, PreparedEnvironment, activate
from polybench.environments.repos import RepoStore
from polybench.sandbox.base import Sandbox
from polybench.sandbox.local import LocalSandbox
from polybench.sandbox.pruned import PrunedStore


@dataclass
class ReadySandbox:
    """A sandbox at the instance's base commit and the environment to run its tests with."""

    sandbox: Sandbox
    environment: PreparedEnvironment

    def activate(self) -> None:
        """Put the environment into the checkout (after patches, so they cannot touch it)."""
        activate(self.sandbox, self.environment)


class SandboxProvider(Protocol):
    """Makes sandboxes for instances; one implementation per backend."""

    name: str

    def provide(self, instance: Instance) -> ReadySandbox:
        """A new sandbox for ``instance``; the caller cleans it up."""
        ...


class LocalProvider:
    """Sandboxes on this machine: cached clones, cached environments, local checkouts."""

    name = "local"
    sandbox_type: type[LocalSandbox] = LocalSandbox
    """What :meth:`provide` makes (a subclass can change how commands are wrapped)."""

    def __init__(
        self,
        repos: RepoStore,
        environments: EnvironmentManager,
        work_dir: Path | None = None,
        isolation: str = "auto",
        allow_network: bool = False,
        hidden_paths: tuple[Path, ...] = (),
        history: str = "base",
        mounts: tuple[Path, ...] = (),
    ) -> None:
        self.repos = repos
        self.mounts = mounts
        self.environments = environments
        self.work_dir = work_dir
        self.isolation = isolation
        self.allow_network = allow_network
        self.hidden_paths = hidden_paths
        self.history = history
        self.pruned = PrunedStore(repos.cache_dir / "pruned")
        """Pruned repositories kept per commit, next to the cached clones."""

    def provide(self, instance: Instance) -> ReadySandbox:
        """Prepare the environment (cached), then check the base commit out.

        The environment, the toolchains it runs with and :attr:`mounts` are bound
        read-only into the sandbox; nothing else of this machine but its system folders.
        """
        clone = self.repos.clone_for(instance.repo, instance.base_commit)
        environment = self.environments.prepare(instance, clone)
        sandbox = self.sandbox_type.create(
            clone,
            instance.base_commit,
            parent=self.work_dir,
            isolation=self.isolation,
            allow_network=self.allow_network,
            read_only_paths=(*environment.read_only_paths, *self.mounts),
            hidden_paths=self.hidden_paths,
            history=self.history,
            pruned=self.pruned,
        )
        return ReadySandbox(sandbox=sandbox, environment=environment)
