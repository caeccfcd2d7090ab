"""``acme/textkit``: a small Python + pytest repository with a history of pull requests.

The clone is made with real git commits (fixed dates), each pull request on a branch
merged with ``--no-ff`` and GitHub's merge message. :func:`register` serves the same
history through :class:`FakeGitHub`, with issues, comments, a GraphQL link and 100
closed-but-unmerged pull requests (so the repository passes the ``>= 100 PRs`` rule).

| PR  | issue          | what it is                                                     |
|-----|----------------|----------------------------------------------------------------|
| #3  | fixes #2       | bug fix in case.py; tests/test_case.py holds a flaky test      |
| #5  | linked #4      | bug fix in wrap.py, the issue linked on GitHub (no keyword)    |
| #7  | "fixes #3"     | #3 is a pull request, not an issue: no issue                   |
| #9  | closes #8      | adds textkit/slugify.py, which its new test imports            |
| #11 | fixes #10      | README only: no test file                                      |
| #13 | resolves #12   | refactoring whose new test already passes: no F2P              |
| #15 | fixes #14      | changes behaviour an existing test checks: pass -> fail        |
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

from tests.curation.fake_github import FakeGitHub

REPO = "acme/textkit"
FLAKY_TEST = "tests/test_case.py:None:test_run_parity"

README = """# textkit

textkit is a small library of helpers for working with text in Python. It converts
identifiers between naming conventions, wraps paragraphs to a width, and will grow more
helpers over time. It has no dependencies, and every function is covered by tests that
run with pytest. Contributions are welcome: open an issue first so that we can discuss
the change with you.
"""

REQUIREMENTS = (
    "# Packages needed to run the test suite (the library itself has no dependencies).\n"
    "pytest>=7.0\n"
)

CASE_V1 = '''"""Convert identifiers between naming conventions."""

import re


def snake_case(name: str) -> str:
    """``someName`` -> ``some_name``."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def camel_case(name: str) -> str:
    """``some_name`` -> ``someName``."""
    first, *rest = name.split("_")
    return first + "".join(part.title() for part in rest)
'''

CASE_V2 = CASE_V1.replace(
    """    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()""",
    """    name = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\\1_\\2", name)
    name = re.sub(r"([a-z0-9])([A-Z])", r"\\1_\\2", name)
    return name.lower()""",
)

CASE_V3 = CASE_V2.replace(
    """    first, *rest = name.split("_")
    return first + "".join(part.title() for part in rest)""",
    """    words = name.split("_")
    return words[0] + "".join(word.title() for word in words[1:])""",
)

TEST_CASE_V1 = '''from pathlib import Path

from textkit.case import camel_case, snake_case


def test_snake_case_simple():
    assert snake_case("someName") == "some_name"


def test_snake_case_keeps_snake():
    assert snake_case("already_snake") == "already_snake"


def test_camel_case():
    assert camel_case("some_name") == "someName"


def test_run_parity():
    """Passes on odd-numbered runs only: state left by the previous run decides."""
    counter = Path(__file__).with_name(".run_counter")
    count = int(counter.read_text()) + 1 if counter.exists() else 1
    counter.write_text(str(count))
    assert count % 2 == 1
'''

TEST_CASE_V2 = (
    TEST_CASE_V1
    + """

def test_snake_case_acronyms():
    assert snake_case("HTTPServer") == "http_server"
    assert snake_case("parseJSON") == "parse_json"
"""
)

TEST_CASE_V3 = (
    TEST_CASE_V2
    + """

def test_camel_case_single_word():
    assert camel_case("word") == "word"
"""
)

WRAP_V1 = '''"""Wrap text to a width."""


def wrap(text: str, width: int) -> list[str]:
    """Break ``text`` into lines of at most ``width`` characters, at spaces."""
    lines: list[str] = []
    current = ""
    for word in text.split():
        if current and len(current) + 1 + len(word) >= width:
            lines.append(current)
            current = word
        else:
            current = f"{current} {word}" if current else word
    if current:
        lines.append(current)
    return lines
'''

WRAP_V2 = WRAP_V1.replace(">= width", "> width")
WRAP_V3 = WRAP_V2.replace(
    "    if current:\n        lines.append(current)\n    return lines",
    "    if current or not lines:\n        lines.append(current)\n    return lines",
)

TEST_WRAP_V1 = """from textkit.wrap import wrap


def test_wrap_breaks_at_spaces():
    assert wrap("one two three", 8) == ["one two", "three"]


def test_wrap_empty_returns_no_lines():
    assert wrap("", 10) == []
"""

TEST_WRAP_V2 = (
    TEST_WRAP_V1
    + """

def test_wrap_line_of_exact_width():
    assert wrap("aaa bbb", 7) == ["aaa bbb"]
"""
)

TEST_WRAP_V3 = (
    TEST_WRAP_V2
    + """

def test_wrap_whitespace_only_is_one_empty_line():
    assert wrap("   ", 10) == [""]
"""
)

SLUGIFY = '''"""URL slugs."""

import re


def slugify(text: str) -> str:
    """``Hello, World!`` -> ``hello-world``."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
'''

TEST_SLUGIFY = """from textkit.slugify import slugify


def test_slugify():
    assert slugify("Hello, World!") == "hello-world"
"""


@dataclass(frozen=True)
class PullSpec:
    number: int
    title: str
    body: str
    commit_message: str
    changes: dict[str, str]
    date: str
    issue: tuple[int, str, str] | None = None
    linked: tuple[int, ...] = ()


PULLS = (
    PullSpec(
        3,
        "Split acronyms in snake_case",
        "Fixes #2\n\nAcronyms are kept together.",
        "Keep acronyms together in snake_case\n\nFixes #2",
        {"textkit/case.py": CASE_V2, "tests/test_case.py": TEST_CASE_V2},
        "2024-02-10T10:00:00+00:00",
        (
            2,
            "snake_case splits acronyms into letters",
            'snake_case("HTTPServer") returns "h_t_t_p_server" instead of "http_server". '
            "This is a bug: acronyms should stay together.",
        ),
    ),
    PullSpec(
        5,
        "Allow lines exactly as long as the width",
        "A line may be exactly `width` characters long.",
        "Allow lines of exactly the width",
        {"textkit/wrap.py": WRAP_V2, "tests/test_wrap.py": TEST_WRAP_V2},
        "2024-02-20T10:00:00+00:00",
        (
            4,
            "wrap breaks lines that fit exactly",
            'wrap("aaa bbb", 7) gives two lines, but "aaa bbb" is 7 characters wide and '
            "should stay on one line. The result is wrong by one.",
        ),
        linked=(4,),
    ),
    PullSpec(
        7,
        "Tidy the wrap docstring",
        "Follow-up to the review of #3 (fixes #3 comments).",
        "Tidy the wrap docstring",
        {"textkit/wrap.py": WRAP_V2.replace("at spaces.", "breaking at spaces.")},
        "2024-03-01T10:00:00+00:00",
    ),
    PullSpec(
        9,
        "Add slugify",
        "Closes #8",
        "Add slugify (closes #8)",
        {"textkit/slugify.py": SLUGIFY, "tests/test_slugify.py": TEST_SLUGIFY},
        "2024-03-10T10:00:00+00:00",
        (8, "Add a slugify helper", "Please add a helper that turns a title into a URL slug."),
    ),
    PullSpec(
        11,
        "Document the wrap width",
        "Fixes #10",
        "Document the width (fixes #10)",
        {"README.md": README + "\n`wrap(text, width)` never returns lines wider than width.\n"},
        "2024-03-20T10:00:00+00:00",
        (10, "Document wrap's width", "The README does not say what width means."),
    ),
    PullSpec(
        13,
        "Simplify camel_case",
        "Resolves #12",
        "Simplify camel_case (resolves #12)",
        {"textkit/case.py": CASE_V3, "tests/test_case.py": TEST_CASE_V3},
        "2024-04-01T10:00:00+00:00",
        (12, "camel_case is hard to read", "The unpacking in camel_case is hard to follow."),
    ),
    PullSpec(
        15,
        "Whitespace-only text wraps to one empty line",
        "fixes #14",
        "Return one empty line for blank text (fixes #14)",
        {"textkit/wrap.py": WRAP_V3, "tests/test_wrap.py": TEST_WRAP_V3},
        "2024-04-10T10:00:00+00:00",
        (
            14,
            "wrap of blank text",
            "wrap('   ', 10) should give one empty line, like an empty paragraph in an editor.",
        ),
    ),
)


def _git(repo: Path, *args: str, date: str = "2024-01-01T00:00:00+00:00") -> str:
    env = dict(
        os.environ,
        GIT_AUTHOR_NAME="Dev",
        GIT_AUTHOR_EMAIL="dev@example.invalid",
        GIT_COMMITTER_NAME="Dev",
        GIT_COMMITTER_EMAIL="dev@example.invalid",
        GIT_AUTHOR_DATE=date,
        GIT_COMMITTER_DATE=date,
    )
    return subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=True, env=env
    ).stdout


def _write(repo: Path, files: dict[str, str]) -> None:
    for name, content in files.items():
        path = repo / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content)


@dataclass(frozen=True)
class BuiltPull:
    spec: PullSpec
    base: str
    head: str
    diff: str
    files: list[dict[str, object]]


def make_textkit(root: Path) -> tuple[Path, list[BuiltPull]]:
    """Create the clone at ``root/acme__textkit``; returns it and its merged PRs."""
    repo = root / "acme__textkit"
    repo.mkdir(parents=True)
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "config", "core.autocrlf", "false")
    _write(
        repo,
        {
            "README.md": README,
            "LICENSE": "MIT License\n",
            "requirements-dev.txt": REQUIREMENTS,
            "textkit/__init__.py": '"""Text helpers."""\n',
            "textkit/case.py": CASE_V1,
            "textkit/wrap.py": WRAP_V1,
            "tests/test_case.py": TEST_CASE_V1,
            "tests/test_wrap.py": TEST_WRAP_V1,
        },
    )
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "Initial commit")
    built = []
    for spec in PULLS:
        base = _git(repo, "rev-parse", "HEAD").strip()
        _git(repo, "checkout", "-q", "-b", f"pr-{spec.number}")
        _write(repo, spec.changes)
        _git(repo, "add", "-A")
        _git(repo, "commit", "-q", "-m", spec.commit_message, date=spec.date)
        head = _git(repo, "rev-parse", "HEAD").strip()
        diff = _git(repo, "diff", base, head)
        status = {"A": "added", "M": "modified", "D": "removed"}
        files: list[dict[str, object]] = []
        for line in _git(repo, "diff", "--name-status", base, head).splitlines():
            code, name = line.split("\t", 1)
            files.append(
                {
                    "sha": head,
                    "filename": name,
                    "status": status[code[0]],
                    "additions": 1,
                    "deletions": 0,
                    "changes": 1,
                }
            )
        _git(repo, "checkout", "-q", "main")
        message = f"Merge pull request #{spec.number} from contributor/pr-{spec.number}\n\n"
        _git(
            repo,
            "merge",
            "-q",
            "--no-ff",
            f"pr-{spec.number}",
            "-m",
            message + spec.title,
            date=spec.date,
        )
        built.append(BuiltPull(spec, base, head, diff, files))
    return repo, built


def register(fake: FakeGitHub, pulls: list[BuiltPull], unmerged: int = 100) -> None:
    """Serve ``acme/textkit`` and its pull requests, issues and comments."""
    fake.add_repo(
        REPO,
        language="Python",
        licence="MIT",
        description="Small text helpers for Python.",
        topics=["text", "strings"],
        readme=README,
    )
    for index in range(unmerged):
        fake.add_pull(
            REPO,
            100 + index,
            title=f"Experiment {index}",
            created_at=f"2023-06-{1 + index % 28:02d}T00:00:00Z",
            merged_at=None,
        )
    for pull in pulls:
        spec = pull.spec
        when = spec.date.replace("+00:00", "Z")
        commit = {
            "sha": pull.head,
            "commit": {
                "author": {"name": "Dev", "email": "dev@example.invalid", "date": when},
                "committer": {"name": "Dev", "email": "dev@example.invalid", "date": when},
                "message": spec.commit_message,
            },
            "author": {"login": "contributor"},
            "parents": [{"sha": pull.base}],
        }
        fake.add_pull(
            REPO,
            spec.number,
            title=spec.title,
            body=spec.body,
            created_at=when,
            merged_at=when.replace("T10", "T12"),
            base_sha=pull.base,
            head_sha=pull.head,
            diff=pull.diff,
            files=pull.files,
            commits=[commit],
            linked=list(spec.linked),
        )
        if spec.issue is not None:
            number, title, body = spec.issue
            before = when.replace("T10", "T08")
            after = when.replace("T10", "T11")
            fake.add_issue(
                REPO,
                number,
                title=title,
                body=body,
                comments=[
                    (before, f"I can reproduce issue {number}; the helper is to blame."),
                    (after, "Fixed by the pull request, thanks!"),
                ],
            )
    fake.pull_as_issue(REPO, 3)
