"""The contract every log parser follows, and the registry that names them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum


class TestStatus(str, Enum):
    """Outcome of one test as read from a log."""

    __test__ = False  # not a pytest test class

    PASSED = "passed"
    FAILED = "failed"
    ERRORED = "errored"
    SKIPPED = "skipped"
    XFAIL = "xfail"


@dataclass
class ParseResult:
    """What a parser read from a log.

    ``statuses`` maps the official test id to its status. ``parsed_anything`` is False
    when the log held nothing this parser recognises (an infrastructure problem, not
    "every test failed"). ``notes`` explains anything odd (truncated JSON, several
    reports, ...).
    """

    statuses: dict[str, TestStatus] = field(default_factory=dict)
    parsed_anything: bool = False
    notes: list[str] = field(default_factory=list)

    def set(self, test_id: str, status: TestStatus) -> None:
        """Record a status; a failure seen for the same id is never overwritten by a pass."""
        self.parsed_anything = True
        previous = self.statuses.get(test_id)
        if previous in (TestStatus.FAILED, TestStatus.ERRORED) and status is TestStatus.PASSED:
            return
        self.statuses[test_id] = status


LogParser = Callable[[str], ParseResult]
"""A parser takes the whole test log (text) and never raises."""

_REGISTRY: dict[str, LogParser] = {}


def register(name: str) -> Callable[[LogParser], LogParser]:
    """Decorator: register ``func`` as the parser called ``name``."""

    def decorator(func: LogParser) -> LogParser:
        if name in _REGISTRY and _REGISTRY[name] is not func:
            raise ValueError(f"parser {name!r} registered twice")
        _REGISTRY[name] = func
        return func

    return decorator


def registered_parsers() -> dict[str, LogParser]:
    """All registered parsers by name (importing the package registers the built-ins)."""
    return dict(_REGISTRY)
