"""Fixtures for the curation tests: fake GitHub and LLM servers, the textkit repository."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import typer

from polybench.cli.annotate_cmd import annotate_command
from polybench.cli.build_cmd import build_command
from polybench.cli.collect_cmd import collect_command
from polybench.cli.curate_cmd import curate_command
from polybench.cli.validate_cmd import validate_command
from tests.curation.fake_github import FakeGitHub
from tests.curation.fake_openai import FakeOpenAI
from tests.curation.textkit import BuiltPull, make_textkit, register

RECIPE = """\
repo: acme/textkit
base_image: python:3.11-slim
install:
  - pip install -r requirements-dev.txt
env:
  PYTHONDONTWRITEBYTECODE: "1"
test_command: python -m pytest -rA -p no:cacheprovider {test_files}
log_parser: pytest
test_files: ["tests/test_*.py"]
"""


def curation_app() -> typer.Typer:
    """The curation commands, registered as the main CLI registers them."""
    app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
    app.command("collect")(collect_command)
    app.command("build")(build_command)
    app.command("validate")(validate_command)
    app.command("annotate")(annotate_command)
    app.command("curate")(curate_command)
    return app


@pytest.fixture
def fake_github() -> Iterator[FakeGitHub]:
    fake = FakeGitHub()
    fake.start()
    yield fake
    fake.stop()


@pytest.fixture
def fake_llm() -> Iterator[FakeOpenAI]:
    fake = FakeOpenAI()
    fake.start()
    yield fake
    fake.stop()


@pytest.fixture
def textkit(tmp_path: Path, fake_github: FakeGitHub) -> tuple[Path, list[BuiltPull]]:
    """The textkit clone (in ``tmp_path/repos``), served by ``fake_github``."""
    clone, pulls = make_textkit(tmp_path / "repos")
    register(fake_github, pulls)
    return clone, pulls


@pytest.fixture
def recipe_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "recipes"
    folder.mkdir()
    (folder / "textkit.yaml").write_text(RECIPE)
    return folder
