"""Which paths are tests, per language: the rules curation splits patches by and the
tamper policy resets after a model patch.

Rules are glob patterns matched against the whole repository-relative path: ``*`` and
``?`` stay within one path segment, ``**/`` matches any number of leading directories
(including none) and a trailing ``/**`` anything below a directory. The defaults below
can be replaced per language from a YAML file::

    Python: ["**/tests/**", "**/test_*.py"]
    JavaScript: ["**/__tests__/**", "**/*.test.js"]

Languages missing from the file keep their defaults.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from polybench.dataset.models import Language

_JS_TEST_DIRS = (
    "**/test/**",
    "**/tests/**",
    "**/__tests__/**",
    "**/__mocks__/**",
    "**/__snapshots__/**",
    "**/spec/**",
    "**/e2e/**",
)

DEFAULT_TEST_PATTERNS: dict[Language, tuple[str, ...]] = {
    Language.PYTHON: (
        "**/test/**",
        "**/tests/**",
        "**/testing/**",
        "**/test_*.py",
        "**/*_test.py",
        "**/*_tests.py",
        "**/conftest.py",
    ),
    Language.JAVA: (
        "**/src/test/**",
        "**/test/**",
        "**/tests/**",
        "**/*Test.java",
        "**/*Tests.java",
        "**/*TestCase.java",
        "**/*IT.java",
    ),
    Language.JAVASCRIPT: (
        *_JS_TEST_DIRS,
        "**/*.test.*",
        "**/*.spec.*",
        "**/*-test.js",
        "**/*_test.js",
    ),
    Language.TYPESCRIPT: (
        *_JS_TEST_DIRS,
        "**/*.test.*",
        "**/*.spec.*",
        "**/*-test.ts",
        "**/*_test.ts",
    ),
}
"""Paths that belong to the test patch (anything else is code)."""

SOURCE_SUFFIXES: dict[Language, tuple[str, ...]] = {
    Language.PYTHON: (".py",),
    Language.JAVA: (".java",),
    Language.JAVASCRIPT: (".js", ".jsx", ".mjs", ".cjs"),
    Language.TYPESCRIPT: (".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"),
}
"""Source files of each language (new files of other kinds are not checked for tests)."""


@lru_cache(maxsize=512)
def glob_regex(pattern: str) -> re.Pattern[str]:
    """Compile a path glob (see the module docstring) to a regular expression."""
    out = []
    index = 0
    while index < len(pattern):
        if pattern.startswith("**/", index):
            out.append("(?:.*/)?")
            index += 3
        elif pattern.startswith("/**", index) and index + 3 == len(pattern):
            out.append("/.*")
            index += 3
        elif pattern.startswith("**", index):
            out.append(".*")
            index += 2
        elif pattern[index] == "*":
            out.append("[^/]*")
            index += 1
        elif pattern[index] == "?":
            out.append("[^/]")
            index += 1
        else:
            out.append(re.escape(pattern[index]))
            index += 1
    return re.compile("".join(out) + r"\Z")


def matches_any(path: str, patterns: tuple[str, ...] | list[str]) -> bool:
    """True when ``path`` matches one of the glob ``patterns``."""
    return any(glob_regex(pattern).match(path) for pattern in patterns)


@dataclass(frozen=True)
class TestPathRules:
    """Test-path patterns for every language."""

    __test__ = False  # not a pytest test class

    patterns: dict[Language, tuple[str, ...]] = field(
        default_factory=lambda: dict(DEFAULT_TEST_PATTERNS)
    )

    @classmethod
    def from_yaml(cls, path: Path) -> TestPathRules:
        """The defaults, with the languages named in the YAML file replaced."""
        import yaml  # only when a file of rules is given: a run uses the defaults

        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        if not isinstance(data, dict):
            raise ValueError(f"{path}: expected a mapping of language to a list of globs")
        patterns = dict(DEFAULT_TEST_PATTERNS)
        for name, globs in data.items():
            if not isinstance(globs, list) or not all(isinstance(g, str) for g in globs):
                raise ValueError(f"{path}: {name}: expected a list of glob strings")
            patterns[Language.parse(str(name))] = tuple(globs)
        return cls(patterns)

    def is_test(self, path: str, language: Language) -> bool:
        """True when ``path`` is a test file (or test data) for ``language``."""
        return matches_any(path, self.patterns[language])
