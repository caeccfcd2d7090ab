"""What travels to wherever sandboxes are made: the backend's name and its settings.

A provider holds live objects (caches, clients), so it is not sent to other processes.
What travels (to a thread pool or to a Ray worker on another machine) is a
:class:`ProviderSettings`; the backend named by it turns it into a provider where the
instances run (:func:`polybench.environments.backends.build_provider`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, InstanceOf

from polybench.environments.repos import RepoStore


class ProviderSettings(BaseModel):
    """Everything needed to make a backend's provider, in any process.

    ``cache_dir`` is the polybench cache root (clones, environments, images); None means
    the default of the process that builds the provider (``$POLYBENCH_CACHE_DIR`` there).
    ``work_dir`` is where sandboxes are made (a run's ``.sandboxes`` folder).
    ``options`` are the backend's own settings: an instance of its options model, or a
    mapping that the model validates (see :meth:`Backend.options`).
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    backend: str = "local"
    repo_dir: Path | None = None
    cache_dir: Path | None = None
    work_dir: Path | None = None
    allow_network: bool = False
    options: InstanceOf[BaseModel] | dict[str, Any] = Field(default_factory=dict)
    hide: list[Path] = Field(default_factory=list)
    """Host paths that hold answers (caches, dataset files, run folders): backends that
    share the host's file system keep them out of sandboxes."""
    mounts: list[Path] = Field(default_factory=list)
    """Host folders sandboxes must see read-only, at the same paths, besides the
    environment (an agent command's own installation, say)."""
    channel: bool = False
    """Sandboxes get a folder of this machine's, read-only inside, where the harness puts
    Unix sockets their commands may connect to (an agent command's way to the metering
    proxy), for backends whose sandboxes have no such folder already."""
    history: str = "base"
    """How much of the repository's history sandboxes keep: ``base`` (the base commit)
    or ``full`` (every ancestor too); never anything newer."""

    def repo_store(self) -> RepoStore:
        """The repository store these settings describe."""
        cache = self.cache_dir / "repos" if self.cache_dir is not None else None
        return RepoStore(repo_dir=self.repo_dir, cache_dir=cache)
