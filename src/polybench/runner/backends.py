"""Sandbox backends by name: picklable settings and the factory that makes each provider.

A provider holds live objects (caches, clients), so it is not sent to other processes.
What travels (to a thread pool or to a Ray worker on another machine) is a
:class:`ProviderSettings`, and :func:`build_provider` turns it into the backend's provider
where the instances run. A backend is a name mapped to a factory; ``local`` and ``docker``
are built in, :func:`register_backend` adds others, and ``package.module:function`` names
a factory directly.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from polybench.environments.manager import EnvironmentManager
from polybench.environments.provider import LocalProvider, SandboxProvider
from polybench.environments.repos import RepoStore
from polybench.sandbox.local import ISOLATION_MODES


@dataclass
class ProviderSettings:
    """Everything needed to make a backend's provider, in any process.

    ``cache_dir`` is the polybench cache root (clones, environments, images); None means
    the default of the process that builds the provider (``$POLYBENCH_CACHE_DIR`` there).
    ``work_dir`` is where sandboxes are made (a run's ``.sandboxes`` folder).
    ``isolation`` applies to the local backend. ``options`` holds backend-specific
    settings: for ``docker``, ``image`` (fields of ``ImageSettings``) and ``limits``
    (fields of ``ContainerLimits``).
    """

    backend: str = "local"
    repo_dir: Path | None = None
    cache_dir: Path | None = None
    work_dir: Path | None = None
    isolation: str = "auto"
    allow_network: bool = False
    options: dict[str, Any] = field(default_factory=dict)

    def repo_store(self) -> RepoStore:
        """The repository store these settings describe."""
        cache = self.cache_dir / "repos" if self.cache_dir is not None else None
        return RepoStore(repo_dir=self.repo_dir, cache_dir=cache)


ProviderFactory = Callable[[ProviderSettings], SandboxProvider]


def _local_provider(settings: ProviderSettings) -> SandboxProvider:
    if settings.isolation not in ISOLATION_MODES:
        raise ValueError(f"isolation must be one of {ISOLATION_MODES}, not {settings.isolation!r}")
    environments = EnvironmentManager(
        settings.cache_dir / "envs" if settings.cache_dir is not None else None
    )
    return LocalProvider(
        settings.repo_store(),
        environments,
        work_dir=settings.work_dir,
        isolation=settings.isolation,
        allow_network=settings.allow_network,
    )


def _docker_provider(settings: ProviderSettings) -> SandboxProvider:
    # Imported here: the Docker SDK is only needed where this backend is used.
    from polybench.environments.docker_provider import DockerProvider
    from polybench.environments.images.manager import ImageManager
    from polybench.environments.images.settings import ImageSettings
    from polybench.sandbox.docker import ContainerLimits

    image_options = dict(settings.options.get("image", {}))
    if settings.cache_dir is not None:
        image_options.setdefault("cache_dir", settings.cache_dir / "docker")
    limits = ContainerLimits(
        **{"allow_network": settings.allow_network, **settings.options.get("limits", {})}
    )
    images = ImageManager(settings.repo_store(), ImageSettings(**image_options))
    return DockerProvider(images, limits)


_FACTORIES: dict[str, ProviderFactory] = {
    "local": _local_provider,
    "docker": _docker_provider,
}


def register_backend(name: str, factory: ProviderFactory) -> None:
    """Make ``name`` a backend whose providers ``factory`` builds (replacing any)."""
    _FACTORIES[name] = factory


def available_backends() -> list[str]:
    """The names of the registered backends."""
    return sorted(_FACTORIES)


def provider_factory(backend: str) -> ProviderFactory:
    """The factory of ``backend``: a registered name, or ``package.module:function``.

    The second form works in every process that can import the module (Ray workers
    included), where a name registered at run time exists only in the process that
    registered it. Raises ``ValueError`` for an unknown backend.
    """
    factory = _FACTORIES.get(backend)
    if factory is not None:
        return factory
    module_name, sep, attribute = backend.partition(":")
    if sep and module_name and attribute:
        try:
            found = getattr(importlib.import_module(module_name), attribute)
        except (ImportError, AttributeError) as exc:
            raise ValueError(f"backend {backend!r} cannot be loaded: {exc}") from exc
        if callable(found):
            return cast(ProviderFactory, found)
    raise ValueError(f"unknown backend {backend!r} (available: {', '.join(available_backends())})")


def build_provider(settings: ProviderSettings) -> SandboxProvider:
    """The provider of ``settings.backend``; ``ValueError`` for an unknown backend."""
    return provider_factory(settings.backend)(settings)
