"""What a sandbox backend is: a typed options model, a provider factory and a self-check.

A backend turns :class:`ProviderSettings` into a
:class:`~polybench.environments.provider.SandboxProvider`, which makes one sandbox per
instance. Backends are found by name (:mod:`.registry`): the built-in ``local`` and
``docker``, those registered at run time, and those other packages declare in the
``polybench.backends`` entry-point group, so Kubernetes or Modal backends need no fork.
Every registered backend can be checked against the sandbox contract with
:func:`polybench.environments.conformance.run_conformance`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel, ValidationError

from polybench.environments.backends.settings import ProviderSettings
from polybench.environments.provider import SandboxProvider


class BackendOptionsError(ValueError):
    """A backend's options do not validate; the message names each bad field."""


class NoOptions(BaseModel):
    """The options of a backend that has none."""

    model_config = {"extra": "forbid"}


class Backend(ABC):
    """A sandbox backend (see the module docstring)."""

    name: ClassVar[str]
    description: ClassVar[str] = ""
    Options: ClassVar[type[BaseModel]] = NoOptions

    def options(self, raw: BaseModel | Mapping[str, Any] | None) -> BaseModel:
        """``raw`` validated by this backend's options model."""
        if isinstance(raw, self.Options):
            return raw
        data = raw.model_dump() if isinstance(raw, BaseModel) else dict(raw or {})
        try:
            return self.Options.model_validate(data)
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in error['loc']) or 'options'}: {error['msg']}"
                for error in exc.errors()
            )
            raise BackendOptionsError(f"{self.name} backend options: {problems}") from exc

    @abstractmethod
    def provider(self, settings: ProviderSettings) -> SandboxProvider:
        """The provider these settings describe (options already valid or validated here)."""

    def self_check(self, settings: ProviderSettings) -> list[str]:
        """What keeps this backend from working here (empty when it can run)."""
        return []

    def isolation(self, settings: ProviderSettings) -> str | None:
        """What isolates this backend's sandboxes with these settings (``none`` when
        nothing does), or None when only a sandbox can say (``Sandbox.isolation``)."""
        return None

    def shows(self, settings: ProviderSettings, path: Path) -> bool | None:
        """Whether this backend's sandboxes see this machine's ``path`` (its folders
        resolved) at the same place: True, False, or None when only a sandbox can tell
        (the default)."""
        return None

    def unisolated_by_request(self, settings: ProviderSettings) -> bool:
        """True when choosing these settings asks for sandboxes without isolation: untrusted
        code may then run unisolated. By default, choosing a backend that says its
        sandboxes are not isolated is that request (the local backend asks for
        ``--isolation none`` in so many words instead)."""
        return self.isolation(settings) == "none"

    def metadata(self, settings: ProviderSettings) -> dict[str, object]:
        """What a run records about its backend in ``run.json``."""
        options = self.options(settings.options).model_dump(mode="json")
        return {"backend": self.name, "allow_network": settings.allow_network, **options}
