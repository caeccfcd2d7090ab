"""Where the benchmarks find the official SWE-PolyBench harness, and how they call it.

The official harness (amazon-science/SWE-PolyBench) is never part of this project: a
benchmark that compares with it takes the location of a checkout (``--official DIR``, or
the ``POLYBENCH_OFFICIAL`` variable) and runs the code found there, unchanged. Its
parsers are plain Python and are imported from the checkout's ``src`` folder without its
package ``__init__`` (which imports Docker and pandas). Its retrieval metrics need the
old tree-sitter its requirements pin and a grammar library it compiles, so no benchmark
runs them (``bench_retrieval.py`` names its baseline for what it is).
"""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

ENV_VAR = "POLYBENCH_OFFICIAL"
PACKAGE = "poly_bench_evaluation"

# Our parser name -> the official parser class that reads the same format, for logs that
# name no repository. Formats the official harness never reads are absent.
DEFAULT_CLASS = {
    "pytest": "PythonPyUnit",
    "unittest": "PythonPyUnit",
    "pytest_or_unittest": "PythonPyUnit",
    "junit_xml": "JavaGenericParser",
    "mocha_json": "JavascriptMocha",
    "mocha_json_file": "TypescriptMochaFileName",
    "mocha_json_or_tap": "JavascriptGenericParser",
    "tap": "JavascriptGenericParser",
    "tap_raw": "JavascriptGenericParser",
    "jest_json": "JavascriptJestPR",
    "jest_json_title": "TypescriptJestTW",
    "bazel": "TypescriptBazelAngular",
}


class OfficialMissing(RuntimeError):
    """The official checkout is not where it was said to be (the message says what to do)."""


def add_argument(parser: Any) -> None:
    """Add ``--official DIR`` to an ``argparse`` parser."""
    parser.add_argument(
        "--official",
        type=Path,
        default=os.environ.get(ENV_VAR) or None,
        help=(
            "checkout of the official harness (amazon-science/SWE-PolyBench), kept outside "
            f"this project; default: ${ENV_VAR}"
        ),
    )


def source_dir(checkout: Path | None) -> Path:
    """The folder holding the official ``poly_bench_evaluation`` package."""
    if checkout is None:
        raise OfficialMissing(
            "no official harness given: clone amazon-science/SWE-PolyBench outside this "
            f"project and pass --official DIR (or set {ENV_VAR})"
        )
    for candidate in (checkout / "src", checkout):
        if (candidate / PACKAGE / "parsers" / "__init__.py").is_file():
            return candidate
    raise OfficialMissing(
        f"{checkout} holds no official harness (no src/{PACKAGE}/parsers): clone "
        "amazon-science/SWE-PolyBench there, or pass --official with its location"
    )


def commit_of(checkout: Path) -> str:
    """The commit of the official checkout (or ``unknown``)."""
    head = checkout / ".git" / "HEAD"
    try:
        ref = head.read_text().strip()
        if ref.startswith("ref: "):
            return (checkout / ".git" / ref[5:]).read_text().strip()[:12]
        return ref[:12]
    except OSError:
        return "unknown"


def project_commit(root: Path) -> str:
    """The commit of this project's checkout at ``root``, with ``+changes`` when its
    ``src`` differs from it (``unknown`` outside a git checkout)."""
    try:
        commit = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        changed = subprocess.run(
            ["git", "-C", str(root), "diff", "--quiet", "HEAD", "--", "src"], check=False
        ).returncode
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return commit + ("+changes" if changed else "")


class OfficialParsers:
    """The official parser classes, loaded from a checkout."""

    def __init__(self, checkout: Path | None) -> None:
        src = source_dir(checkout)
        assert checkout is not None
        self.checkout = checkout
        self.commit = commit_of(checkout)
        if PACKAGE not in sys.modules:
            # The package's own __init__ imports its Docker code; only the parsers are
            # needed, so the package is registered as a bare namespace over its folder.
            stub = types.ModuleType(PACKAGE)
            stub.__path__ = [str(src / PACKAGE)]
            sys.modules[PACKAGE] = stub
        self._parsers = importlib.import_module(f"{PACKAGE}.parsers")
        constants = importlib.import_module(f"{PACKAGE}.constants")
        self.repo_classes: dict[str, str] = dict(constants.REPO_TO_PARSER_CLASS)

    def class_for(self, parser: str, repo: str | None = None) -> str | None:
        """The official class for a log of ``repo`` (if known) or of format ``parser``."""
        if repo is not None and repo in self.repo_classes:
            return self.repo_classes[repo]
        return DEFAULT_CLASS.get(parser)

    def parse_function(self, class_name: str) -> Callable[[str], Any]:
        """``text -> official result dict``, as the official harness calls its parsers."""
        cls = getattr(self._parsers, class_name)

        def parse(text: str) -> Any:
            return cls(test_content=text).parse()

        parse.__name__ = class_name
        return parse

    def repo_of_log(self, stem: str) -> str | None:
        """The repository a corpus log is named after (``official_<owner>__<name>...``)."""
        if not stem.startswith("official_"):
            return None
        for repo in self.repo_classes:
            if stem[len("official_") :].startswith(repo.replace("/", "__")):
                return repo
        return None
