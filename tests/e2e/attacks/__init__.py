"""A catalogue of attacks on the verdict, written the way a reward-hacking agent would.

Every attack is a prediction for a ``mini`` instance that fixes nothing and tries to get
"resolved" anyway. Each names the class of attack (the classes of the reliability
documentation), the language, and the defences expected to stop it; the suite checks the
verdict is never "resolved" and that one of those defences is what fired.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from polybench.dataset.models import Instance
from tests.e2e.hostile import Edit, make_patch

CLASSES = {
    1: "status precedence",
    2: "forged or blinded reports",
    3: "the test tree",
    4: "search-path shadowing",
    5: "tools that auto-load files",
    6: "framework patched in-process",
    7: "git",
    8: "floods and markup",
    9: "other",
    10: "canaries told apart",
}


@dataclass(frozen=True)
class Context:
    """What an attack needs to write its patch."""

    instance: Instance
    clone: Path
    scratch: Path

    def patch(self, edit: Edit, base_on_gold: bool = False) -> str:
        """The diff of ``edit`` against the base commit (after the gold patch, if asked)."""
        return make_patch(
            self.clone,
            self.instance.base_commit,
            self.scratch,
            edit,
            gold=self.instance.patch if base_on_gold else None,
        )


@dataclass(frozen=True)
class Attack:
    """One hostile prediction."""

    name: str
    klass: int
    language: str
    base: str
    description: str
    build: Callable[[Context], str]
    stopped_by: tuple[str, ...]
    """Defences expected to fire (any one of them; see ``defences_fired``)."""
    needs_process_limit: bool = False
