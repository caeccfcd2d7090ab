"""The Docker daemon for polybench: the client, the labels marking polybench's objects,
and the resources a sandbox container gets."""

from __future__ import annotations

import hashlib
import os
import threading
from dataclasses import dataclass
from typing import Any

import docker
from docker.errors import DockerException

from polybench.paths import cache_root
from polybench.sandbox.base import SandboxError

LABEL_PREFIX = "org.polybench."
MANAGED_LABEL = "org.polybench.managed"
KIND_LABEL = "org.polybench.kind"
LEVEL_LABEL = "org.polybench.level"
IMAGE_LABEL = "org.polybench.image"
INSTANCE_LABEL = "org.polybench.instance"
OWNER_LABEL = "org.polybench.owner"
"""Who made an object: this user with this cache (see :func:`owner_id`)."""

DEFAULT_MEMORY = "8g"
DEFAULT_CPUS = 2.0
DEFAULT_PIDS = 8192
DEFAULT_LIFETIME_SECONDS = 6 * 3600


class DockerUnavailable(SandboxError):
    """The Docker daemon cannot be reached."""


def owner_id() -> str:
    """One id per user and cache folder: the owner of the objects made here, so that
    cleaning on a shared daemon removes only this user's (with this cache)."""
    user = os.getuid() if hasattr(os, "getuid") else os.environ.get("USERNAME", "")
    return hashlib.sha256(f"{user}:{cache_root()}".encode()).hexdigest()[:16]


def managed_labels(kind: str, **extra: str) -> dict[str, str]:
    """The labels that mark an object as created by polybench, and by whom.

    ``kind`` is ``container`` or ``image``; keyword arguments become
    ``org.polybench.<name>`` labels (underscores turn into dashes).
    """
    labels = {MANAGED_LABEL: "true", KIND_LABEL: kind, OWNER_LABEL: owner_id()}
    for name, value in extra.items():
        labels[LABEL_PREFIX + name.replace("_", "-")] = value
    return labels


_clients = threading.local()


def docker_client(timeout: int = 600) -> docker.DockerClient:
    """A client for the daemon of the environment (``DOCKER_HOST``...), one per thread.

    Raises :class:`DockerUnavailable` when the daemon does not answer.
    """
    cache: dict[int, docker.DockerClient] | None = getattr(_clients, "by_timeout", None)
    if cache is None:
        cache = {}
        _clients.by_timeout = cache
    client = cache.get(timeout)
    if client is None:
        try:
            client = docker.from_env(timeout=timeout)
            client.ping()
        except DockerException as exc:
            raise DockerUnavailable(f"the Docker daemon cannot be reached: {exc}") from exc
        cache[timeout] = client
    return client


def docker_available() -> bool:
    """True when a Docker daemon answers."""
    try:
        docker_client()
    except DockerUnavailable:
        return False
    return True


CONTAINER_CAPABILITIES = ("CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "KILL", "SETGID", "SETUID")
"""What a container's root keeps: owning and changing its own files and processes, as the
official images' tests (run as root) expect. Gone: mounting, raw sockets, device nodes,
changing root, capabilities of files, binding low ports, auditing, and the rest."""


@dataclass(frozen=True)
class ContainerLimits:
    """Resources and network of a sandbox container.

    ``memory`` is a Docker size (``512m``, ``8g``) or None for no limit; swap is not
    allowed beyond it. ``cpus`` may be fractional. ``lifetime`` bounds how long a
    container lives if nobody removes it.
    """

    memory: str | None = DEFAULT_MEMORY
    cpus: float | None = DEFAULT_CPUS
    pids: int | None = DEFAULT_PIDS
    allow_network: bool = False
    lifetime: float = DEFAULT_LIFETIME_SECONDS

    def create_kwargs(self) -> dict[str, Any]:
        """Keyword arguments of ``containers.create`` for these limits and the boundary:
        every capability dropped but :data:`CONTAINER_CAPABILITIES`, no new privileges."""
        kwargs: dict[str, Any] = {
            "network_mode": "bridge" if self.allow_network else "none",
            "cap_drop": ["ALL"],
            "cap_add": list(CONTAINER_CAPABILITIES),
            "security_opt": ["no-new-privileges:true"],
        }
        if self.memory:
            kwargs["mem_limit"] = self.memory
            kwargs["memswap_limit"] = self.memory
        if self.cpus:
            kwargs["nano_cpus"] = int(self.cpus * 1e9)
        if self.pids:
            kwargs["pids_limit"] = self.pids
        return kwargs
