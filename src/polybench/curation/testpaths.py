"""Splitting a pull request's diff into the code patch and the test patch.

Which paths are tests is decided by :mod:`polybench.grading.testpaths` (the same rules
the tamper policy uses after a model patch).
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from pathlib import Path

from polybench.dataset.models import Language
from polybench.grading.testpaths import (
    DEFAULT_TEST_PATTERNS,
    SOURCE_SUFFIXES,
    TestPathRules,
    glob_regex,
    matches_any,
)

__all__ = [
    "DEFAULT_TEST_PATTERNS",
    "SOURCE_SUFFIXES",
    "DiffSection",
    "NewFileUse",
    "SplitDiff",
    "TestPathRules",
    "diff_sections",
    "glob_regex",
    "matches_any",
    "new_files_tested",
    "split_diff",
]


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

    def link_target(self) -> str | None:
        """Where a new symbolic link points (its text), or None when the section does not
        create a link."""
        header = self.text.split("\n@@", 1)[0]
        if not re.search(r"^new file mode 120000$", header, re.MULTILINE):
            return None
        lines = self.added_lines()
        return lines[0] if len(lines) == 1 else None

    def links_inside_repository(self) -> bool:
        """True when the section creates a symbolic link to a path of the repository (an
        alias of a file, not new code)."""
        target = self.link_target()
        if target is None or not target or target.startswith("/"):
            return False
        resolved = posixpath.normpath(posixpath.join(posixpath.dirname(self.path), target))
        return resolved != ".." and not resolved.startswith("../") and resolved != "."

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
    or record the file declares. Names shorter than three characters are ignored. A new
    symbolic link to a path inside the repository is no new code (its target is, and is
    checked when the patch creates it), so it never counts.
    """
    added_test_text = "\n".join(line for s in split.test_sections for line in s.added_lines())
    uses: list[NewFileUse] = []
    for section in split.code_sections:
        if not section.is_new or not section.path.endswith(SOURCE_SUFFIXES[language]):
            continue
        if section.links_inside_repository():
            continue
        for name in _names_of_new_file(section):
            if re.search(rf"(?<![\w$]){re.escape(name)}(?![\w$])", added_test_text):
                uses.append(NewFileUse(section.path, name))
                break
    return uses
