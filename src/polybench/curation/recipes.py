"""Repository recipes: how to build a repository's environment and run some of its tests.

One YAML file per repository (a directory of them, or a single file)::

    repo: acme/textkit
    base_image: python:3.11-slim        # FROM line of the Dockerfile
    install:                            # RUN steps, in /testbed at the base commit
      - pip install -r requirements-dev.txt
    env: {PYTHONDONTWRITEBYTECODE: "1"} # ENV lines (optional)
    test_command: python -m pytest -rA {test_files}
    log_parser: pytest                  # a registered parser (polybench parse-log --help)
    test_files: ["**/test_*.py"]        # optional: which test-patch files to run

``test_command`` is a template. ``{test_files}`` becomes the shell-quoted paths of the
files the test patch adds or changes that match ``test_files`` (default: every one),
``{test_classes}`` their names without extension joined by commas (for Maven's
``-Dtest=``) and ``{test_modules}`` their dotted module paths (for ``unittest``).
The Dockerfile clones the repository into ``/testbed``, checks the base commit out and
runs the install steps.
"""

from __future__ import annotations

import shlex
from pathlib import Path, PurePosixPath

import yaml
from pydantic import BaseModel, Field, ValidationError, field_validator

from polybench.curation.testpaths import matches_any
from polybench.dataset.models import Language
from polybench.grading.parsers import get_parser


class RecipeError(ValueError):
    """A recipe file is malformed; the message names the file."""


class RepoRecipe(BaseModel):
    """How one repository is installed and tested."""

    repo: str
    base_image: str
    test_command: str
    log_parser: str
    language: Language | None = None
    install: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    test_files: list[str] | None = None
    clone_url: str | None = None

    @field_validator("language", mode="before")
    @classmethod
    def _language(cls, value: object) -> object:
        return Language.parse(value) if isinstance(value, str) else value

    @field_validator("log_parser")
    @classmethod
    def _known_parser(cls, value: str) -> str:
        try:
            get_parser(value)
        except KeyError as exc:
            raise ValueError(str(exc)) from exc
        return value

    def runnable_tests(self, files: list[str]) -> list[str]:
        """The files of ``files`` that the test command should be given."""
        if self.test_files is None:
            return list(files)
        return [f for f in files if matches_any(f, self.test_files)]

    def render_test_command(self, files: list[str]) -> str:
        """The test command for these test files."""
        paths = [PurePosixPath(f) for f in files]
        values = {
            "test_files": " ".join(shlex.quote(f) for f in files),
            "test_classes": ",".join(dict.fromkeys(p.stem for p in paths)),
            "test_modules": " ".join(
                ".".join(p.with_suffix("").parts) for p in paths if p.suffix == ".py"
            ),
        }
        command = self.test_command
        for key, value in values.items():
            command = command.replace("{" + key + "}", value)
        return command

    def dockerfile(self, base_commit: str) -> str:
        """The Dockerfile of an instance at ``base_commit``."""
        url = self.clone_url or f"https://github.com/{self.repo}.git"
        lines = [
            f"FROM {self.base_image}",
            f"RUN git clone {shlex.quote(url)} /testbed",
            "WORKDIR /testbed",
            f"RUN git checkout {base_commit}",
            *(f"RUN {step}" for step in self.install),
        ]
        if self.env:
            pairs = [f"{key}={shlex.quote(value)}" for key, value in self.env.items()]
            lines.append("ENV " + " \\\n    ".join(pairs))
        return "\n".join(lines) + "\n"


def _load_file(path: Path) -> list[RepoRecipe]:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise RecipeError(f"{path}: cannot read: {exc}") from exc
    documents = data if isinstance(data, list) else [data]
    recipes = []
    for document in documents:
        if not isinstance(document, dict):
            raise RecipeError(f"{path}: expected a mapping (or a list of mappings)")
        try:
            recipes.append(RepoRecipe.model_validate(document))
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(part) for part in first["loc"]) or "recipe"
            raise RecipeError(f"{path}: {where}: {first['msg']}") from exc
    return recipes


def load_recipes(path: Path) -> dict[str, RepoRecipe]:
    """Recipes by repository (lower-cased) from a YAML file or a directory of them."""
    if path.is_dir():
        files = sorted([*path.glob("*.yaml"), *path.glob("*.yml")])
    elif path.exists():
        files = [path]
    else:
        raise RecipeError(f"{path}: no such file or directory")
    recipes: dict[str, RepoRecipe] = {}
    for file in files:
        for recipe in _load_file(file):
            key = recipe.repo.lower()
            if key in recipes:
                raise RecipeError(f"{file}: a second recipe for {recipe.repo}")
            recipes[key] = recipe
    return recipes
