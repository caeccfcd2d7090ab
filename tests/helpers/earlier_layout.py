"""The local sandbox as the local backend built it before its boundary, for comparisons.

Every top-level host folder bound read-only, the folders known to hold answers hidden
under empty ones, the harness's own user and capabilities kept, no seccomp filter. Tests
use it to show that each boundary check fails where the boundary is missing; the
isolation benchmark uses it as its baseline.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from polybench.environments.backends import Backend, ProviderSettings
from polybench.environments.backends.local import LocalBackend
from polybench.environments.provider import LocalProvider, SandboxProvider
from polybench.sandbox.local import SCRATCH, TESTBED, LocalSandbox


class EarlierLayoutSandbox(LocalSandbox):
    """The local sandbox as it was built before the boundary: ``/`` read-only, hidden
    folders replaced by empty ones, the harness's user and capabilities."""

    def _hand_over(self, path: Path, recursive: bool = False) -> None:
        return  # the sandbox ran as the harness's own user

    def _argv(
        self, command: list[str] | str, cwd: str, env: dict[str, str]
    ) -> tuple[list[str], tuple[int, ...]]:
        argv = ["bash", "-c", command] if isinstance(command, str) else list(command)
        wrapped = ["bwrap"]
        for entry in sorted(Path("/").iterdir()):
            if entry.name in {"proc", "dev", "tmp", "testbed", "polybench"}:
                continue
            if entry.is_symlink():
                wrapped += ["--symlink", os.readlink(entry), str(entry)]
            elif entry.exists():
                wrapped += ["--ro-bind", str(entry), str(entry)]
        wrapped += ["--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
        for path in self.plan.hidden:
            if path.is_dir():
                wrapped += ["--tmpfs", str(path)]
        for path in self.plan.read_only:
            wrapped += ["--ro-bind", str(path), str(path)]
        wrapped += ["--bind", str(self.checkout), TESTBED, "--bind", str(self.scratch), SCRATCH]
        wrapped += ["--unshare-pid", "--die-with-parent", "--new-session", "--chdir", cwd]
        wrapped += ["--unshare-net", "--clearenv"]
        for key, value in env.items():
            wrapped += ["--setenv", key, value]
        return [*wrapped, "--", *argv], ()


class EarlierLayoutProvider(LocalProvider):
    """A :class:`LocalProvider` whose sandboxes are :class:`EarlierLayoutSandbox`."""

    sandbox_type = EarlierLayoutSandbox


class EarlierLayoutBackend(Backend):
    """The ``earlier-layout`` backend: the local backend with :class:`EarlierLayoutSandbox`."""

    name = "earlier-layout"
    description = "the local sandbox before its boundary (for tests and benchmarks)"

    def provider(self, settings: ProviderSettings) -> SandboxProvider:
        """The local backend's provider, making earlier-layout sandboxes."""
        provider = LocalBackend().provider(settings.model_copy(update={"options": {}}))
        assert isinstance(provider, LocalProvider)
        provider.sandbox_type = EarlierLayoutSandbox
        return provider

    def isolation(self, settings: ProviderSettings) -> str:
        """``bubblewrap``, as it said then."""
        return "bubblewrap"

    def metadata(self, settings: ProviderSettings) -> dict[str, Any]:
        """The name only."""
        return {"backend": self.name}
