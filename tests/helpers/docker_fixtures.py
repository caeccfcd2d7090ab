"""Fixtures for tests on a real Docker engine (import the ones a module uses).

The base images are built once per session (and reused across sessions by the daemon):
from the local root image ``polybench/debian:bookworm`` with the host's CA certificates
trusted, as on the CI machines (``scripts/ci-docker-setup.sh`` makes that image). Set
``POLYBENCH_TEST_BASE_SOURCE=registry`` to build them from public images instead.
Without a daemon the tests are skipped, unless ``POLYBENCH_REQUIRE_DOCKER=1`` (CI), which
turns that into a failure. ``local_registry`` is a container registry on 127.0.0.1 (see
:mod:`tests.helpers.local_registry`), for the tests that pull images.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from docker.errors import APIError, NotFound

from polybench.dataset.materialise import materialise_tree
from polybench.dataset.models import Instance
from polybench.environments.images.builder import BuiltImage
from polybench.environments.images.manager import ImageManager
from polybench.environments.images.settings import ImageSettings
from polybench.environments.repos import RepoStore
from polybench.sandbox.docker import docker_available, docker_client
from tests.helpers.local_registry import LocalRegistry, RegistryUnavailable, start_registry
from tests.helpers.session_cache import shared_root

TEST_LABEL = "org.polybench.test-run"


def require_docker() -> None:
    """Skip (or fail, when Docker is required) without a reachable daemon."""
    if docker_available():
        return
    message = "no Docker daemon (scripts/ci-docker-setup.sh starts one)"
    if os.environ.get("POLYBENCH_REQUIRE_DOCKER") == "1":
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture(scope="session")
def docker_settings(tmp_path_factory: pytest.TempPathFactory) -> ImageSettings:
    """Image settings of the test session (cache next to the e2e tests' cache)."""
    return ImageSettings(
        base_source=os.environ.get("POLYBENCH_TEST_BASE_SOURCE", "rootfs"),
        trust_host_ca=os.environ.get("POLYBENCH_TEST_TRUST_HOST_CA", "1") == "1",
        cache_dir=shared_root(tmp_path_factory) / "docker",
    )


@pytest.fixture(scope="session")
def docker_bases(docker_settings: ImageSettings) -> dict[str, BuiltImage]:
    """Every base image, built once per session (reused when the daemon has them)."""
    require_docker()
    manager = ImageManager(RepoStore(), docker_settings)
    if manager.builder.find(docker_settings.rootfs_image) is None and (
        docker_settings.base_source == "rootfs"
    ):
        message = f"{docker_settings.rootfs_image} is missing (run scripts/ci-docker-setup.sh)"
        if os.environ.get("POLYBENCH_REQUIRE_DOCKER") == "1":
            pytest.fail(message)
        pytest.skip(message)
    return {built.tag.split("/")[-1].split(":")[0]: built for built in manager.ensure_bases()}


@pytest.fixture(scope="session")
def local_registry(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalRegistry]:
    """A container registry on 127.0.0.1 for the session (one per test process), stopped
    at the end. Without the registry program the tests are skipped, or fail when Docker is
    required (``scripts/ci-docker-setup.sh`` installs it)."""
    require_docker()
    try:
        registry = start_registry(tmp_path_factory.mktemp("registry"))
    except RegistryUnavailable as exc:
        if os.environ.get("POLYBENCH_REQUIRE_DOCKER") == "1":
            pytest.fail(str(exc))
        pytest.skip(str(exc))
    try:
        yield registry
    finally:
        registry.stop()


@pytest.fixture
def python_base(docker_bases: dict[str, BuiltImage]) -> str:
    """The (content-addressed) tag of the Python base image."""
    return docker_bases["python"].tag


@pytest.fixture
def run_label() -> Iterator[dict[str, str]]:
    """A label unique to the test; whatever carries it is removed afterwards."""
    value = uuid.uuid4().hex[:12]
    yield {TEST_LABEL: value}
    client = docker_client()
    # The low-level listing: the high-level one inspects each container, and one that
    # removes itself (auto_remove) between the two steps would make it fail.
    for listed in client.api.containers(all=True, filters={"label": f"{TEST_LABEL}={value}"}):
        try:
            client.api.remove_container(listed["Id"], force=True)
        except NotFound:
            pass  # auto-removed since it was listed
        except APIError as exc:
            if "in progress" not in str(exc):  # an auto-removal under way is fine
                raise
    for image in client.images.list(filters={"label": f"{TEST_LABEL}={value}"}):
        for tag in image.tags:
            client.images.remove(tag, force=True)


def make_git_repo(root: Path, files: dict[str, str]) -> tuple[Path, str]:
    """A repository at ``root`` whose one commit holds ``files``; returns (path, commit)."""
    source = root.with_name(root.name + "-src")
    for name, content in files.items():
        target = source / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content)
    return root, materialise_tree(source, root)


def commit_on_top(repo: Path, changes: dict[str, str | None], message: str = "next") -> str:
    """Commit ``changes`` (path -> content, None deletes) on top of HEAD; returns the commit."""
    import subprocess

    for name, content in changes.items():
        target = repo / name
        if content is None:
            subprocess.run(["git", "-C", str(repo), "rm", "-q", name], check=True)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content)
        subprocess.run(["git", "-C", str(repo), "add", name], check=True)
    subprocess.run(
        [
            "git",
            "-C",
            str(repo),
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t.invalid",
            "commit",
            "-q",
            "-m",
            message,
        ],
        check=True,
    )
    completed = subprocess.run(
        ["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    )
    return completed.stdout.strip()


def make_instance(repo: str, commit: str, number: int, **fields: Any) -> Instance:
    """A Python instance of ``repo`` at ``commit`` (``fields`` override the defaults)."""
    values: dict[str, Any] = {
        "instance_id": f"{repo.replace('/', '__')}-{number}",
        "repo": repo,
        "base_commit": commit,
        "language": "Python",
    }
    values.update(fields)
    return Instance(**values)
