"""Which paths are tests, per language, and splitting a pull request's diff by them.

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

import yaml

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


@dataclass(frozen=True)
class DiffSection:
    """One file's part of a git diff, text kept byte for byte."""

    old_path: str | None
    new_path: str | None
    text: str

    @property
    def path(self) -> str:
        """The path after the change (before it, for a deletion)."""
        return self.new_path or self.old_path or ""

    @property
    def is_new(self) -> bool:
        """True when the section creates the file."""
        return self.old_path is None and self.new_path is not None

    def added_lines(self) -> list[str]:
        """The ``+`` lines of the section, without the ``+``."""
        return [
            line[1:]
            for line in self.text.splitlines()
            if line.startswith("+") and not line.startswith("+++")
        ]


_DIFF_GIT = re.compile(r"^diff --git (?:\"?a/(?P<a>.+?)\"?) (?:\"?b/(?P<b>.+?)\"?)$")


def _header_path(line: str, prefix: str) -> str | None:
    value = line[len(prefix) :].split("\t", 1)[0].strip().strip('"')
    if value == "/dev/null":
        return None
    return value[2:] if value.startswith(("a/", "b/")) else value


def diff_sections(diff: str) -> list[DiffSection]:
    """Cut a git diff into its per-file sections (``diff --git`` headers)."""
    sections: list[DiffSection] = []
    chunk: list[str] = []

    def flush() -> None:
        if not chunk:
            return
        header = _DIFF_GIT.match(chunk[0].rstrip("\n"))
        old = new = None
        if header:
            old, new = header["a"], header["b"]
        for line in chunk[1:]:
            if line.startswith("@@"):
                break
            stripped = line.rstrip("\n")
            if stripped.startswith("--- "):
                old = _header_path(stripped, "--- ")
            elif stripped.startswith("+++ "):
                new = _header_path(stripped, "+++ ")
            elif stripped.startswith("new file mode"):
                old = None
            elif stripped.startswith("deleted file mode"):
                new = None
            elif stripped.startswith("rename from "):
                old = stripped[len("rename from ") :]
            elif stripped.startswith("rename to "):
                new = stripped[len("rename to ") :]
        sections.append(DiffSection(old, new, "".join(chunk)))

    for line in diff.splitlines(keepends=True):
        if line.startswith("diff --git "):
            flush()
            chunk = [line]
        elif chunk:
            chunk.append(line)
    flush()
    return sections


@dataclass(frozen=True)
class SplitDiff:
    """A pull request's diff cut into the code patch and the test patch."""

    patch: str
    test_patch: str
    code_sections: list[DiffSection]
    test_sections: list[DiffSection]

    @property
    def test_files(self) -> list[str]:
        """Files the test patch leaves in place (deleted ones excluded)."""
        return [s.new_path for s in self.test_sections if s.new_path]


def split_diff(diff: str, language: Language, rules: TestPathRules) -> SplitDiff:
    """Separate test files from code files in ``diff``; each keeps its exact text."""
    code: list[DiffSection] = []
    tests: list[DiffSection] = []
    for section in diff_sections(diff):
        paths = [p for p in (section.old_path, section.new_path) if p]
        is_test = any(rules.is_test(p, language) for p in paths)
        (tests if is_test else code).append(section)
    return SplitDiff(
        patch="".join(s.text for s in code),
        test_patch="".join(s.text for s in tests),
        code_sections=code,
        test_sections=tests,
    )


_GENERIC_STEMS = {"__init__", "index", "main", "mod", "__main__"}
_DECLARATION = re.compile(
    r"^\s*(?:export\s+)?(?:default\s+)?(?:public\s+|abstract\s+|final\s+)*"
    r"(?:class|interface|enum|record)\s+(?P<name>[A-Za-z_$][\w$]*)"
)


def _names_of_new_file(section: DiffSection) -> list[str]:
    path = Path(section.path)
    stem = path.name.split(".", 1)[0]
    names = [path.parent.name if stem in _GENERIC_STEMS and path.parent.name else stem]
    for line in section.added_lines():
        match = _DECLARATION.match(line)
        if match:
            names.append(match["name"])
    return [n for n in dict.fromkeys(names) if len(n) >= 3]


@dataclass(frozen=True)
class NewFileUse:
    """A file the code patch creates, and the name by which the test patch uses it."""

    path: str
    name: str


def new_files_tested(split: SplitDiff, language: Language) -> list[NewFileUse]:
    """New source files of the code patch that the test patch exercises.

    Heuristic (paper section 3: such PRs cannot fairly grade a solution that puts the
    code elsewhere): a new file counts as exercised when a line the test patch adds
    mentions, as a whole word, the file's module name (its name without extension, or
    its directory's name for ``__init__``/``index`` files) or a class, interface, enum
    or record the file declares. Names shorter than three characters are ignored.
    """
    added_test_text = "\n".join(line for s in split.test_sections for line in s.added_lines())
    uses: list[NewFileUse] = []
    for section in split.code_sections:
        if not section.is_new or not section.path.endswith(SOURCE_SUFFIXES[language]):
            continue
        for name in _names_of_new_file(section):
            if re.search(rf"(?<![\w$]){re.escape(name)}(?![\w$])", added_test_text):
                uses.append(NewFileUse(section.path, name))
                break
    return uses
