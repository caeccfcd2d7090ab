"""The ``docker`` backend: one container per instance, from layered cached images.

The Docker SDK is imported only when this backend makes a provider or checks itself.
"""

from __future__ import annotations

import dataclasses
import tempfile
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, field_validator, model_validator

from polybench.environments.backends.base import Backend
from polybench.environments.backends.settings import ProviderSettings
from polybench.environments.images.settings import (
    OFFICIAL_REGISTRY,
    OFFICIAL_TAG,
    official_reference_problem,
)
from polybench.environments.provider import SandboxProvider
from polybench.sandbox.mounts import is_within

_NO_LIMIT = {"", "0", "none", "unlimited"}


class DockerOptions(BaseModel):
    """Options of the Docker backend (limits of each container, and where images come from)."""

    model_config = ConfigDict(extra="forbid")

    memory: str | None = "8g"
    """A Docker size (``512m``, ``8g``) or None for no limit."""
    cpus: float | None = 2.0
    pids: int | None = 8192
    image_source: Literal["build", "pull", "auto"] = "build"
    base_source: Literal["registry", "rootfs"] = "registry"
    trust_host_ca: bool = False
    image_registry: str = OFFICIAL_REGISTRY
    image_tag: str = OFFICIAL_TAG

    @field_validator("memory", mode="before")
    @classmethod
    def _memory(cls, value: object) -> object:
        if value is None or (isinstance(value, str) and value.strip().lower() in _NO_LIMIT):
            return None
        from docker.utils import parse_bytes

        try:
            parse_bytes(str(value))
        except Exception as exc:
            raise ValueError(f"{value!r} is not a size (e.g. 512m, 8g, or 'none')") from exc
        return str(value)

    @field_validator("cpus", "pids", mode="before")
    @classmethod
    def _limit(cls, value: object) -> object:
        if value in (0, "0", None):
            return None
        if isinstance(value, (int, float)) and value < 0:
            raise ValueError("cannot be negative")
        return value

    @model_validator(mode="after")
    def _reference(self) -> DockerOptions:
        problem = official_reference_problem(self.image_registry, self.image_tag)
        if problem is not None:
            raise ValueError(f"image registry/tag: {problem}")
        return self


class DockerBackend(Backend):
    """Containers from polybench's layered images (see :mod:`polybench.sandbox.docker`)."""

    name = "docker"
    description = "one container per instance (limits, no network), cached layered images"
    Options = DockerOptions

    def provider(self, settings: ProviderSettings) -> SandboxProvider:
        """A :class:`DockerProvider`: image manager and container limits from ``settings``."""
        from polybench.environments.docker_provider import DockerProvider
        from polybench.environments.images.manager import ImageManager
        from polybench.environments.images.settings import ImageSettings
        from polybench.sandbox.docker import ContainerLimits

        options = self.options(settings.options)
        assert isinstance(options, DockerOptions)
        image = ImageSettings(
            base_source=options.base_source,
            image_source=options.image_source,
            trust_host_ca=options.trust_host_ca,
            image_registry=options.image_registry,
            image_tag=options.image_tag,
        )
        if settings.cache_dir is not None:
            image = dataclasses.replace(image, cache_dir=settings.cache_dir / "docker")
        limits = ContainerLimits(
            memory=options.memory,
            cpus=options.cpus,
            pids=options.pids,
            allow_network=settings.allow_network,
        )
        images = ImageManager(settings.repo_store(), image)
        channels = None
        if settings.channel:
            channels = settings.work_dir or Path(tempfile.gettempdir()) / "polybench-channels"
        return DockerProvider(
            images,
            limits,
            history=settings.history,
            mounts=tuple(p.resolve() for p in settings.mounts),
            channel_parent=channels,
            hidden=tuple(p.resolve() for p in settings.hide),
        )

    def shows(self, settings: ProviderSettings, path: Path) -> bool | None:
        """True inside ``settings.mounts`` (False where a hidden path masks it); elsewhere
        only a container can tell (its image has its own files)."""
        if any(is_within(path, secret.resolve()) for secret in settings.hide):
            return False
        if any(is_within(path, mount.resolve()) for mount in settings.mounts):
            return True
        return None

    def isolation(self, settings: ProviderSettings) -> str:
        """``docker``: a container of its own per sandbox."""
        return "docker"

    def metadata(self, settings: ProviderSettings) -> dict[str, object]:
        """The options, and what the containers' boundary is made of."""
        from polybench.sandbox.docker_client import CONTAINER_CAPABILITIES

        record = super().metadata(settings)
        record["isolation"] = "docker"
        layers = [
            "a container per sandbox (its own file system, processes and network)",
            f"capabilities {', '.join(CONTAINER_CAPABILITIES)} only",
            "no new privileges",
            "the engine's default seccomp profile",
        ]
        if settings.mounts:
            folders = ", ".join(str(p) for p in settings.mounts)
            layers.append(f"this machine's {folders} mounted read-only")
        if settings.channel:
            layers.append("a folder for the harness's Unix sockets mounted read-only")
        if not settings.mounts and not settings.channel:
            layers.append("no host socket or folder mounted")
        record["isolation_layers"] = layers
        return record

    def self_check(self, settings: ProviderSettings) -> list[str]:
        """The Docker daemon must answer."""
        from polybench.sandbox.docker import DockerUnavailable, docker_client

        try:
            docker_client()
        except DockerUnavailable as exc:
            return [str(exc)]
        return []
