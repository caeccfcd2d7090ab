"""What a fresh sandbox of one environment holds, remembered across runs.

Before a prediction touches a sandbox the harness asks it two questions whose answers
depend only on the environment and the base commit: which files the commit has and
which paths a fresh checkout holds untracked (``inspect``), and which modules and pytest
plugins the environment's interpreter has (``facts``). Each answer costs a sandbox
entry (a container exec on Docker), so it is kept here, in the cache folder (which no
sandbox can see), under a key made of everything it depends on, the environment's
content fingerprint included: a rebuilt environment or image has a new fingerprint and
is asked again. An environment without a fingerprint is never remembered across runs.

Answers are only ever written by the harness from a sandbox in which nothing of a
prediction has run yet, so a prediction cannot plant one.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar, cast

from polybench.atomic import atomic_write_text
from polybench.environments.manager import PreparedEnvironment

_VERSION = 1
T = TypeVar("T")


class ProbeCache:
    """Answers kept for this process, and as JSON files in ``folder`` across runs (None:
    only for this process)."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder
        self._known: dict[tuple[str, str, str, str], object] = {}

    def answer(
        self,
        kind: str,
        environment: PreparedEnvironment,
        extra: str,
        ask: Callable[[], T],
        encode: Callable[[T], Any],
        decode: Callable[[Any], T | None],
    ) -> T:
        """The answer to ``kind`` about ``environment`` (and ``extra``): known in this
        process, else kept from an earlier run (``decode`` gives None for one it cannot
        read), else asked (``ask``) and kept (``encode``)."""
        key = (kind, environment.recipe, str(environment.env_dir), extra)
        if key in self._known:
            return cast(T, self._known[key])
        kept = self.get(kind, environment, extra)
        found = decode(kept) if kept is not None else None
        if found is None:
            found = ask()
            self.put(kind, environment, encode(found), extra)
        self._known[key] = found
        return found

    def _path(self, kind: str, environment: PreparedEnvironment, extra: str) -> Path | None:
        if self.folder is None or not environment.fingerprint:
            return None
        parts = [_VERSION, kind, environment.recipe, str(environment.env_dir)]
        key = json.dumps([*parts, environment.fingerprint, extra])
        return self.folder / f"{kind}-{hashlib.sha256(key.encode()).hexdigest()[:32]}.json"

    def get(self, kind: str, environment: PreparedEnvironment, extra: str = "") -> Any | None:
        """The answer kept for ``kind`` of ``environment`` (and ``extra``), or None."""
        path = self._path(kind, environment, extra)
        if path is None:
            return None
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None

    def put(
        self, kind: str, environment: PreparedEnvironment, answer: Any, extra: str = ""
    ) -> None:
        """Keep ``answer`` (JSON data); a cache that cannot be written is left alone."""
        path = self._path(kind, environment, extra)
        if path is None:
            return
        try:
            atomic_write_text(path, json.dumps(answer, separators=(",", ":")))
        except OSError:
            return
