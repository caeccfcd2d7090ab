"""Untrusted code never runs unisolated unless the user asked for it.

A run of untrusted code (a predictions file, an agent) on a backend whose sandboxes would
not be isolated (the local backend without bubblewrap, a backend that says ``none``) is
refused before anything runs, with one line saying how to get isolation, unless the user
asked for no isolation in so many words (``--isolation none``). The dataset's own gold or
empty patches may run unisolated; the run then says so before it starts.
"""

from __future__ import annotations

from dataclasses import dataclass

from polybench.environments.backends.registry import get_backend
from polybench.environments.backends.settings import ProviderSettings

HOW_TO_ISOLATE = (
    "install bubblewrap (`apt-get install bubblewrap`, `dnf install bubblewrap`) or use "
    "--backend docker; --isolation none runs it on this machine at your own risk"
)


class UnisolatedRefused(ValueError):
    """Untrusted code would run without isolation and nobody asked for that."""


@dataclass(frozen=True)
class IsolationDecision:
    """The isolation a run's sandboxes will have (None: each sandbox says), and a
    warning to show before the run starts when they will have none."""

    isolation: str | None
    warning: str | None = None


def decide_isolation(settings: ProviderSettings, untrusted: str | None) -> IsolationDecision:
    """Check that the run may start. ``untrusted`` names what would run (``predictions
    from p.jsonl``, ``an agent``), or is None for the dataset's own patches.

    Raises :class:`UnisolatedRefused` when untrusted code would run unisolated unasked.
    """
    backend = get_backend(settings.backend)
    isolation = backend.isolation(settings)
    if isolation != "none":
        return IsolationDecision(isolation)
    why = _why_unisolated(settings)
    if backend.unisolated_by_request(settings):
        what = untrusted or "the dataset's own patches"
        return IsolationDecision(
            "none",
            f"isolation none: {what} run(s) on this machine as this user, with its network "
            "and files, as asked",
        )
    if untrusted is None:
        return IsolationDecision(
            "none",
            f"running the dataset's own patches without isolation ({why}); untrusted "
            f"predictions would be refused: {HOW_TO_ISOLATE}",
        )
    raise UnisolatedRefused(
        f"refusing to run {untrusted} without isolation ({why}): {HOW_TO_ISOLATE}"
    )


def _why_unisolated(settings: ProviderSettings) -> str:
    if settings.backend == "local":
        from polybench.sandbox.local import bubblewrap_problem

        return bubblewrap_problem() or "isolation none"
    return f"the {settings.backend} backend does not isolate its sandboxes"
