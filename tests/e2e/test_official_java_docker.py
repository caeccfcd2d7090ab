"""An official-shaped Java instance on Docker without network: built, pulled, and with a
dependency its environment does not have.

The instance (see :mod:`tests.environments.official_shaped`) has the official Dockerfile
(``mvn clean install -DskipTests`` after choosing a Corretto JDK) and test command (``mvn
test`` with the Surefire report goal, then every XML report ``cat``-ed). Only the test
command names the report plugin, so it is in no image built from the Dockerfile alone,
nor in the prebuilt image the official harness would make: the image is prepared for the
test command while it is built (the environment image) or pulled (a layer on the pulled
image). The prebuilt image is made here from the official Dockerfile alone and pushed to
a registry on 127.0.0.1, then pulled back as ``--image-source pull`` does.
"""

# Fixtures imported from tests.helpers.docker_fixtures are used as test arguments.
# ruff: noqa: F811

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from polybench.dataset.builtin import materialise_builtin_repos
from polybench.dataset.models import Instance
from polybench.environments.images.manager import ImageManager
from polybench.environments.images.settings import ImageSettings, official_image
from polybench.environments.repos import RepoStore
from polybench.sandbox.docker import docker_client
from tests.e2e.conftest import read_report, run_cli
from tests.environments.official_shaped import (
    JAVA_INSTANCE,
    official_java,
    official_java_hidden,
)
from tests.helpers.docker_fixtures import (  # noqa: F401
    docker_bases,
    docker_settings,
    local_registry,
)
from tests.helpers.local_registry import LocalRegistry
from tests.helpers.prebuilt import forget, push_official_like

pytestmark = [pytest.mark.docker, pytest.mark.slow]

TAG = "official"


@dataclass(frozen=True)
class Pushed:
    """The prebuilt image in the test registry."""

    registry: str
    reference: str
    value: str


@pytest.fixture(scope="module")
def repos(shared_cache: Path) -> Path:
    """The clones of the built-in repositories (the official instance's among them)."""
    folder = shared_cache / "builtin" / "mini" / "repos"
    materialise_builtin_repos("mini", folder)
    return folder


@pytest.fixture(scope="module")
def pushed(
    local_registry: LocalRegistry,
    docker_bases: object,
    docker_settings: ImageSettings,
    repos: Path,
) -> Iterator[Pushed]:
    """An image of the official Dockerfile alone, pushed as the instance's prebuilt image.

    Built from the instance with no test command, so nothing of it is prepared: what is
    in the image is what the Dockerfile installs (``-DskipTests``: no report plugin).
    """
    bare = official_java().model_copy(update={"test_command": ""})
    built = ImageManager(RepoStore(repo_dir=repos), docker_settings).ensure_instance(bare)
    value = uuid.uuid4().hex[:12]
    reference = official_image(JAVA_INSTANCE, local_registry.address, TAG)
    try:
        push_official_like(built.tag, reference, value)
        yield Pushed(local_registry.address, reference, value)
    finally:
        forget(value)


def _dataset(tmp_path: Path, instance: Instance) -> Path:
    path = tmp_path / f"dataset-{uuid.uuid4().hex[:8]}.jsonl"
    path.write_text(instance.model_dump_json() + "\n")
    return path


def _eval(
    dataset: Path,
    repos: Path,
    settings: ImageSettings,
    cache: Path,
    out: Path,
    *options: str,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """``eval --predictions gold`` on Docker, without --allow-network; the report and the
    instance's result."""
    backend = ["--backend", "docker", "--base-source", settings.base_source, "--memory", "2g"]
    if settings.trust_host_ca:
        backend.append("--trust-host-ca")
    done = run_cli(
        [
            *("eval", "--dataset", str(dataset), "--repo-dir", str(repos)),
            *("--predictions", "gold", "--run-id", "java", "--output-dir", str(out)),
            *backend,
            *options,
        ],
        cache,
        timeout=2400,
    )
    report = read_report(out / "java")
    assert done.returncode == (1 if report["error_instances"] else 0), done.stdout + done.stderr
    result = json.loads((out / "java" / "instances" / JAVA_INSTANCE / "result.json").read_text())
    return report, result


def _layers(tag: str) -> list[str]:
    return list(docker_client().api.inspect_image(tag)["RootFS"]["Layers"])


def _pull_options(pushed: Pushed) -> list[str]:
    return ["--image-source", "pull", "--image-registry", pushed.registry, "--image-tag", TAG]


def test_gold_resolves_in_an_image_built_from_the_official_dockerfile(
    repos: Path,
    docker_bases: object,
    docker_settings: ImageSettings,
    cache_env: Path,
    tmp_path: Path,
) -> None:
    report, result = _eval(
        _dataset(tmp_path, official_java()), repos, docker_settings, cache_env, tmp_path
    )
    assert result["status"] == "resolved", result
    assert report["resolved_instances"] == 1


def test_gold_resolves_in_the_pulled_official_image(
    pushed: Pushed,
    repos: Path,
    docker_settings: ImageSettings,
    cache_env: Path,
    tmp_path: Path,
) -> None:
    forget(pushed.value)
    _, result = _eval(
        _dataset(tmp_path, official_java()),
        repos,
        docker_settings,
        cache_env,
        tmp_path,
        *_pull_options(pushed),
    )
    assert result["status"] == "resolved", result
    layer = docker_client().images.get(result["environment"])
    assert layer.labels["org.polybench.source"] == pushed.reference
    # The layer on the pulled image holds what the test command needs: it is not empty.
    assert len(_layers(result["environment"])) > len(_layers(pushed.reference))


def test_a_dependency_the_environment_lacks_is_an_error_not_the_patchs_fault(
    pushed: Pushed,
    repos: Path,
    docker_settings: ImageSettings,
    cache_env: Path,
    tmp_path: Path,
) -> None:
    forget(pushed.value)
    hidden = official_java_hidden()
    report, result = _eval(
        _dataset(tmp_path, hidden),
        repos,
        docker_settings,
        cache_env,
        tmp_path,
        *_pull_options(pushed),
    )
    assert result["status"] == "error", result
    assert result["error_kind"] == "dependency_unavailable", result
    assert "maven-surefire-report-plugin" in result["reason"], result["reason"]
    assert result["attempts"] == 2, "an infrastructure error is retried"
    assert report["error_instances"] == 1 and report["unresolved_instances"] == 0
