"""What a conformance check is given, and how it says a promise does not hold."""

from __future__ import annotations

from dataclasses import dataclass

from polybench.dataset.models import Instance
from polybench.environments.backends.settings import ProviderSettings
from polybench.environments.provider import ReadySandbox, SandboxProvider
from polybench.sandbox.base import Sandbox


class CheckFailed(AssertionError):
    """A promise of the contract does not hold; the message says what was seen."""


class CheckSkipped(Exception):
    """A check that does not apply to this sandbox (say, no network isolation at all)."""


@dataclass(frozen=True)
class Probe:
    """A sandbox under check, the instance it holds, and how it was made."""

    sandbox: Sandbox
    instance: Instance
    allow_network: bool
    ready: ReadySandbox | None = None
    provider: SandboxProvider | None = None
    settings: ProviderSettings | None = None


def expect(condition: bool, message: str) -> None:
    """Raise :class:`CheckFailed` with ``message`` unless ``condition`` holds."""
    if not condition:
        raise CheckFailed(message)


def run_ok(probe: Probe, command: str | list[str], **kwargs: object) -> str:
    """The output of ``command``, which must exit 0."""
    result = probe.sandbox.exec(command, timeout=120, **kwargs)  # type: ignore[arg-type]
    expect(result.ok, f"`{command}` failed ({result.exit_code}): {result.output[-500:]}")
    return result.output
