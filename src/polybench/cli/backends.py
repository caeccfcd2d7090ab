"""Turning command-line options into a sandbox provider (``local`` or ``docker``)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

from polybench.environments.manager import EnvironmentManager
from polybench.environments.provider import LocalProvider, SandboxProvider
from polybench.environments.repos import RepoStore
from polybench.sandbox.local import ISOLATION_MODES

BACKENDS = ("local", "docker")
_NO_LIMIT = {"", "0", "none", "unlimited"}


@dataclass(frozen=True)
class BackendOptions:
    """The options of ``polybench eval`` that choose and configure the sandbox backend."""

    backend: str = "local"
    isolation: str = "auto"
    allow_network: bool = False
    memory: str = "8g"
    cpus: float = 2.0
    pids_limit: int = 8192
    image_source: str = "build"
    base_source: str = "registry"
    trust_host_ca: bool = False

    def problem(self) -> str | None:
        """Why these options cannot work, or None."""
        from polybench.environments.images.settings import BASE_SOURCES, IMAGE_SOURCES

        if self.backend not in BACKENDS:
            return f"unknown backend {self.backend!r} (available: {', '.join(BACKENDS)})"
        if self.isolation not in ISOLATION_MODES:
            return f"--isolation must be one of {ISOLATION_MODES}"
        if self.image_source not in IMAGE_SOURCES:
            return f"--image-source must be one of {IMAGE_SOURCES}"
        if self.base_source not in BASE_SOURCES:
            return f"--base-source must be one of {BASE_SOURCES}"
        if self.cpus < 0 or self.pids_limit < 0:
            return "--cpus and --pids-limit cannot be negative"
        if self.memory.strip().lower() not in _NO_LIMIT:
            from docker.utils import parse_bytes

            try:
                parse_bytes(self.memory)
            except Exception:
                return f"--memory {self.memory!r} is not a size (e.g. 512m, 8g, or 'none')"
        return None

    def metadata(self) -> dict[str, object]:
        """What to record in ``run.json`` (only what applies to the backend)."""
        recorded = asdict(self)
        if self.backend == "local":
            return {"backend": "local", "isolation": self.isolation}
        recorded.pop("isolation")
        return recorded


def make_provider(
    options: BackendOptions, repos: RepoStore, work_dir: Path | None = None
) -> SandboxProvider:
    """The provider for ``options`` (the Docker SDK is only imported for ``docker``).

    ``work_dir`` is where the local backend puts its checkouts.
    """
    if options.backend == "local":
        return LocalProvider(
            repos,
            EnvironmentManager(),
            work_dir=work_dir,
            isolation=options.isolation,
            allow_network=options.allow_network,
        )
    from polybench.environments.docker_provider import DockerProvider
    from polybench.environments.images.manager import ImageManager
    from polybench.environments.images.settings import ImageSettings
    from polybench.sandbox.docker import ContainerLimits, docker_client

    docker_client()  # fail early, with one clear message, when there is no daemon
    settings = ImageSettings(
        base_source=options.base_source,
        image_source=options.image_source,
        trust_host_ca=options.trust_host_ca,
    )
    memory = options.memory.strip().lower()
    limits = ContainerLimits(
        memory=None if memory in _NO_LIMIT else memory,
        cpus=options.cpus or None,
        pids=options.pids_limit or None,
        allow_network=options.allow_network,
    )
    return DockerProvider(ImageManager(repos, settings), limits)
