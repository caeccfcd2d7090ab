"""A repository's own ``.dockerignore`` does not empty the environment image's ``COPY``.

Shaped after a real TypeScript project whose ``.dockerignore`` lets only its release
folders into its own images (``**``, ``!release-packages``, ``!ci``): built with that file
honoured, ``COPY . .`` copies nothing else and the instance's install step fails.
"""

# Fixtures imported from tests.helpers.docker_fixtures are used as test arguments.
# ruff: noqa: F811

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from polybench.environments.images.builder import BuiltImage
from polybench.environments.images.inventory import managed_images, remove_images
from polybench.environments.images.manager import ImageManager
from polybench.environments.images.settings import ImageSettings
from polybench.environments.repos import RepoStore
from polybench.sandbox.docker import docker_client
from tests.helpers.docker_fixtures import (  # noqa: F401
    docker_bases,
    docker_settings,
    make_git_repo,
    make_instance,
)

pytestmark = pytest.mark.docker

DOCKERIGNORE = "**\n!release-packages\n!ci\n"
DOCKERFILE = """FROM polybench_python_base
WORKDIR /testbed
COPY . .
RUN python -m venv /opt/venv && /opt/venv/bin/pip install --no-index -r requirements.txt \\
 && /opt/venv/bin/python -B -c "import app.core"
ENV PATH=/opt/venv/bin:$PATH
"""
FILES = {
    ".dockerignore": DOCKERIGNORE,
    "requirements.txt": "# no dependencies\n",
    "app/__init__.py": "",
    "app/core.py": "VALUE = 1\n",
    "ci/build.sh": "echo build\n",
    "release-packages/README": "release artefacts\n",
}


@pytest.fixture
def repo_name() -> Iterator[str]:
    """A repository name of its own; its images are removed afterwards."""
    name = f"polybench-test/ignore-{uuid.uuid4().hex[:10]}"
    yield name
    client = docker_client()
    remove_images(client, managed_images(client, required={"org.polybench.repo": name}))


def _run(image: str, script: str) -> str:
    output = docker_client().containers.run(
        image, entrypoint=["/bin/sh", "-c", script], command=[], remove=True, network_mode="none"
    )
    return output.decode() if isinstance(output, bytes) else ""


def test_the_image_holds_the_whole_repository_with_its_dockerignore(
    docker_bases: dict[str, BuiltImage],
    docker_settings: ImageSettings,
    tmp_path: Path,
    repo_name: str,
) -> None:
    manager = ImageManager(RepoStore(repo_dir=tmp_path / "repos"), docker_settings)
    _, commit = make_git_repo(tmp_path / "repos" / repo_name.replace("/", "__"), FILES)
    instance = make_instance(repo_name, commit, 1, Dockerfile=DOCKERFILE)
    built = manager.ensure_instance(instance)
    listing = _run(
        built.tag,
        "cd /testbed && git status --porcelain --untracked-files=all && echo status-done"
        " && cat .dockerignore && ls -A",
    )
    status, _, rest = listing.partition("status-done\n")
    assert status == "", f"/testbed differs from the base commit: {status}"
    assert rest.startswith(DOCKERIGNORE)
    assert set(rest[len(DOCKERIGNORE) :].split()) == {
        ".dockerignore",
        ".git",
        "app",
        "ci",
        "release-packages",
        "requirements.txt",
    }
