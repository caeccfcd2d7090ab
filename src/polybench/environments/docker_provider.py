"""The ``docker`` provider: an instance's image (built or reused), then a container from it."""

from __future__ import annotations

import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from polybench.dataset.models import Instance
from polybench.environments.images.builder import BuiltImage
from polybench.environments.images.manager import ImageManager
from polybench.environments.manager import PreparedEnvironment
from polybench.environments.provider import ReadySandbox
from polybench.sandbox.base import DEFAULT_MAX_OUTPUT_BYTES, SandboxError
from polybench.sandbox.docker import INSTANCE_LABEL, ContainerLimits, DockerSandbox
from polybench.sandbox.history import prune_script


@dataclass
class ImageEnvironment(PreparedEnvironment):
    """An environment that lives in the image: commands keep the image's own ``PATH``."""

    def exec_env(self, workdir: str, base_path: str | None = None) -> dict[str, str]:
        """Only the extra variables; the container supplies ``PATH`` and the rest."""
        return {k: v.replace("{workdir}", workdir) for k, v in self.env.items()}


class DockerProvider:
    """Sandboxes in Docker containers, one per instance, from layered cached images."""

    name = "docker"

    def __init__(
        self,
        images: ImageManager,
        limits: ContainerLimits | None = None,
        max_output_bytes: int = DEFAULT_MAX_OUTPUT_BYTES,
        history: str = "base",
        mounts: tuple[Path, ...] = (),
        channel_parent: Path | None = None,
        hidden: tuple[Path, ...] = (),
    ) -> None:
        self.images = images
        self.limits = limits or ContainerLimits()
        self.max_output_bytes = max_output_bytes
        self.history = history
        self.mounts = mounts
        self.channel_parent = channel_parent
        """Where each container's channel folder is made (None: containers get none)."""
        self.hidden = hidden
        """Paths masked where they lie inside :attr:`mounts`."""

    def provide(self, instance: Instance) -> ReadySandbox:
        """Make sure the instance image exists, then start a container from it."""
        started = time.monotonic()
        image = self.images.ensure_instance(instance)
        channel = None
        if self.channel_parent is not None:
            self.channel_parent.mkdir(parents=True, exist_ok=True)
            channel = Path(tempfile.mkdtemp(prefix="channel-", dir=self.channel_parent))
        try:
            sandbox = DockerSandbox.create(
                image.tag,
                self.limits,
                labels={INSTANCE_LABEL: instance.instance_id},
                max_output_bytes=self.max_output_bytes,
                read_only_paths=self.mounts,
                channel=channel,
                hidden_paths=self.hidden,
            )
        except BaseException:
            if channel is not None:
                shutil.rmtree(channel, ignore_errors=True)
            raise
        # The image's repository may hold commits newer than this instance's base (an
        # environment image shared with later instances, a pulled official image), unless
        # polybench pruned it to this very commit when it built the image.
        if not pruned_at_build(image, instance.base_commit, self.history):
            pruned = sandbox.exec(prune_script(instance.base_commit, self.history), timeout=1800)
            if not pruned.ok:
                sandbox.cleanup()
                raise SandboxError(f"pruning the history failed: {pruned.output.strip()[:500]}")
        environment = ImageEnvironment(
            recipe=image.tag,
            env_dir=None,
            reused=image.reused,
            setup_seconds=time.monotonic() - started,
            fingerprint=image.image_id,
        )
        return ReadySandbox(sandbox=sandbox, environment=environment)


def pruned_at_build(image: BuiltImage, commit: str, history: str) -> bool:
    """Whether ``image`` is one polybench built with its repository already pruned to
    ``commit`` as ``history`` asks (its labels say so)."""
    return (
        image.level == "instance"
        and image.label("history") == history
        and image.label("commit") == commit
    )
