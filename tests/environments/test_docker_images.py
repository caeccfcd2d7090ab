"""Image layers on a real engine: bases reused, environments shared, thin instance layers,
the instance's Dockerfile honoured, build failures kept apart and retried once."""

# Fixtures imported from tests.helpers.docker_fixtures are used as test arguments.
# ruff: noqa: F811

from __future__ import annotations

import difflib
import uuid
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from polybench.dataset.models import Instance, Prediction
from polybench.dataset.predictions import PredictionSet
from polybench.environments.docker_provider import DockerProvider
from polybench.environments.images.builder import BuiltImage
from polybench.environments.images.errors import ImageBuildError
from polybench.environments.images.inventory import managed_images, remove_images
from polybench.environments.images.manager import ImageManager
from polybench.environments.images.settings import ImageSettings
from polybench.environments.repos import RepoStore
from polybench.grading.result import ErrorKind, Status
from polybench.runner.instance import InstanceRunner, RunSettings
from polybench.runner.run import Runner, RunPlan
from polybench.sandbox.docker import ContainerLimits, docker_client
from tests.helpers.docker_fixtures import (  # noqa: F401
    commit_on_top,
    docker_bases,
    docker_settings,
    make_git_repo,
    make_instance,
)

pytestmark = pytest.mark.docker

DOCKERFILE = """FROM polybench_python_base
WORKDIR /testbed
COPY . /testbed
RUN date +%s%N > /opt/env-built && echo built > build-output.txt
"""


@pytest.fixture
def repo_name() -> Iterator[str]:
    """A repository name of its own; its images are removed afterwards."""
    name = f"polybench-test/layers-{uuid.uuid4().hex[:10]}"
    yield name
    client = docker_client()
    remove_images(client, managed_images(client, required={"org.polybench.repo": name}))


@pytest.fixture
def manager(
    docker_bases: dict[str, BuiltImage], docker_settings: ImageSettings, tmp_path: Path
) -> ImageManager:
    return ImageManager(RepoStore(repo_dir=tmp_path / "repos"), docker_settings)


def _run(image: str, script: str) -> str:
    output = docker_client().containers.run(
        image, entrypoint=["/bin/sh", "-c", script], command=[], remove=True, network_mode="none"
    )
    return output.decode() if isinstance(output, bytes) else ""


def _size(tag: str) -> int:
    return int(docker_client().images.get(tag).attrs["Size"])


def _repo(manager: ImageManager, name: str, files: dict[str, str]) -> tuple[Path, str]:
    assert manager.repos.repo_dir is not None
    return make_git_repo(manager.repos.repo_dir / name.replace("/", "__"), files)


def test_bases_are_named_as_official_dockerfiles_expect_and_reused(
    docker_bases: dict[str, BuiltImage], docker_settings: ImageSettings
) -> None:
    again = ImageManager(RepoStore(), docker_settings)
    rebuilt = again.ensure_bases()
    assert all(b.reused for b in rebuilt)
    client = docker_client()
    for language in ("python", "java", "javascript", "typescript"):
        image = client.images.get(f"polybench_{language}_base:latest")
        assert image.id == docker_bases[language].image_id
        labels = image.labels
        assert labels["org.polybench.level"] == "base"
        assert labels["org.polybench.image"] in image.tags
    tools = _run(
        "polybench_typescript_base",
        "node --version; npm --version >/dev/null && tsc -v; git --version >/dev/null && echo git",
    )
    assert tools.startswith("v22.") and "Version 5." in tools and tools.endswith("git\n")
    java = _run("polybench_java_base", "javac -version 2>&1; mvn -v | head -1")
    assert "javac 17" in java and "Maven 3" in java
    python = _run("polybench_python_base", "python --version; python -m venv /tmp/v && echo venv")
    assert python.startswith("Python 3.11") and "venv" in python


def test_instances_share_an_environment_and_add_a_thin_layer(
    manager: ImageManager, repo_name: str
) -> None:
    files = {
        "requirements.txt": "# nothing\n",
        "app/core.py": "VALUE = 1\n",
        "app/old.py": "OLD = True\n",
        "data/blob.txt": "x" * 200_000,
    }
    repo, first = _repo(manager, repo_name, files)
    second = commit_on_top(
        repo, {"app/core.py": "VALUE = 2\n", "app/old.py": None, "app/new.py": "NEW = 1\n"}
    )
    third = commit_on_top(repo, {"requirements.txt": "# other dependencies\n"})
    one = make_instance(repo_name, first, 1, Dockerfile=DOCKERFILE)
    two = make_instance(repo_name, second, 2, Dockerfile=DOCKERFILE)
    three = make_instance(repo_name, third, 3, Dockerfile=DOCKERFILE)

    built_one = manager.ensure_instance(one)
    env = manager.ensure_env(one)
    assert not built_one.reused and env.reused
    # Same commit: the layer adds labels and the repository pruned to the base commit.
    assert 0 <= _size(built_one.tag) - _size(env.tag) < 1_000_000
    assert _run(built_one.tag, "cd /testbed && git rev-list --all").split() == [first]
    assert built_one.label("history") == "base" and built_one.label("commit") == first

    built_two = manager.ensure_instance(two)
    assert built_two.label("env") == env.tag, "same manifests: the environment is shared"
    extra = _size(built_two.tag) - _size(env.tag)
    assert 0 < extra < 1_000_000, extra
    state = _run(
        built_two.tag,
        "cd /testbed && git rev-parse HEAD && cat app/core.py && ls app "
        "&& git status --porcelain && cat /opt/env-built",
    ).splitlines()
    env_built = _run(env.tag, "cat /opt/env-built").strip()
    assert state == [second, "VALUE = 2", "core.py", "new.py", "?? build-output.txt", env_built]
    assert _run(built_two.tag, "cd /testbed && git rev-list --all").split() == [second]

    assert manager.ensure_env(three).tag != env.tag, "new manifests: a new environment"
    fresh = ImageManager(manager.repos, manager.settings)
    assert fresh.ensure_instance(two).reused


def test_a_dockerignored_git_directory_is_recreated(manager: ImageManager, repo_name: str) -> None:
    repo, first = _repo(manager, repo_name, {".dockerignore": ".git\n", "app.py": "A = 1\n"})
    second = commit_on_top(repo, {"app.py": "A = 2\n"})
    for number, commit, content in ((1, first, "A = 1"), (2, second, "A = 2")):
        instance = make_instance(repo_name, commit, number, Dockerfile=DOCKERFILE)
        built = manager.ensure_instance(instance)
        state = _run(built.tag, "cd /testbed && git rev-parse HEAD && cat app.py && git status -s")
        assert state.splitlines() == [commit, content, "?? build-output.txt"]


def test_a_conflicting_shared_environment_falls_back_to_the_instance_commit(
    manager: ImageManager, repo_name: str
) -> None:
    dockerfile = DOCKERFILE + "RUN sed -i s/plain/docker/ config.txt\n"
    repo, first = _repo(manager, repo_name, {"config.txt": "mode=plain\n", "a.py": ""})
    second = commit_on_top(repo, {"config.txt": "mode=plain\nlevel=2\n"})
    shared = manager.ensure_env(make_instance(repo_name, first, 1, Dockerfile=dockerfile))
    built = manager.ensure_instance(make_instance(repo_name, second, 2, Dockerfile=dockerfile))
    assert built.label("env") != shared.tag
    state = _run(built.tag, "cd /testbed && git rev-parse HEAD && cat config.txt")
    assert state.splitlines() == [second, "mode=docker", "level=2"]


def test_a_failed_build_keeps_its_log_and_is_retried_once(
    manager: ImageManager, repo_name: str
) -> None:
    _, commit = _repo(manager, repo_name, {"a.py": ""})
    broken = "FROM polybench_python_base\nRUN echo about to fail && exit 3\n"
    instance = make_instance(repo_name, commit, 1, Dockerfile=broken)
    with pytest.raises(ImageBuildError) as first:
        manager.ensure_instance(instance)
    assert first.value.log_path is not None
    assert "about to fail" in first.value.log_path.read_text()
    assert "non-zero code: 3" in str(first.value)
    with pytest.raises(ImageBuildError) as second:
        manager.ensure_instance(instance)
    assert second.value is not first.value, "the second attempt builds again"
    with pytest.raises(ImageBuildError) as third:
        manager.ensure_instance(instance)
    assert third.value is second.value, "the recorded failure is given again, not rebuilt"


def _diff(path: str, before: str, after: str) -> str:
    lines = difflib.unified_diff(
        before.splitlines(keepends=True),
        after.splitlines(keepends=True),
        f"a/{path}",
        f"b/{path}",
    )
    return f"diff --git a/{path} b/{path}\n" + "".join(lines)


def test_build_failures_are_infrastructure_errors_that_do_not_stop_the_run(
    manager: ImageManager, repo_name: str, tmp_path: Path
) -> None:
    test_file = (
        "import unittest\nfrom calc import add\n\n\nclass CalcTest(unittest.TestCase):\n"
        "    def test_zero(self):\n        self.assertEqual(add(0, 0), 0)\n"
    )
    with_new_test = (
        test_file + "\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n"
    )
    buggy, fixed = "def add(a, b):\n    return a - b\n", "def add(a, b):\n    return a + b\n"
    files = {"calc.py": buggy, "tests/__init__.py": "", "tests/test_calc.py": test_file}
    _, commit = _repo(manager, repo_name, files)
    common = {
        "test_command": "python -m unittest -v tests.test_calc 2>&1",
        "log_parser": "unittest",
        "patch": _diff("calc.py", buggy, fixed),
        "test_patch": _diff("tests/test_calc.py", test_file, with_new_test),
        "F2P": ["tests.test_calc.CalcTest:test_add:"],
        "P2P": ["tests.test_calc.CalcTest:test_zero:"],
    }
    good = make_instance(repo_name, commit, 1, Dockerfile=DOCKERFILE, **common)
    broken_file = "FROM polybench_python_base\nRUN exit 7\n"
    broken = make_instance(repo_name, commit, 2, Dockerfile=broken_file, **common)
    instances: list[Instance] = [good, broken]
    predictions = {
        i.instance_id: Prediction(
            instance_id=i.instance_id, model_patch=i.patch, model_name_or_path="gold"
        )
        for i in instances
    }
    plan = RunPlan(
        run_id="faults",
        run_dir=tmp_path / "run",
        instances=instances,
        predictions=PredictionSet(predictions=predictions, problems=[], source="gold"),
        workers=2,
    )
    provider = DockerProvider(manager, ContainerLimits(memory="1g", cpus=1))
    outcome = Runner(InstanceRunner(provider, RunSettings(timeout=120))).run(plan)
    ok, failed = outcome.results[good.instance_id], outcome.results[broken.instance_id]
    assert ok.status is Status.RESOLVED, ok.reason
    assert ok.backend == "docker" and ok.isolation == "docker"
    assert failed.status is Status.ERROR and failed.error_kind is ErrorKind.IMAGE_BUILD_FAILED
    assert failed.attempts == 2
    build_log = plan.artifacts_for(broken.instance_id).path("build.log")
    assert "non-zero code: 7" in build_log.read_text()


def test_official_images_are_used_when_present_and_pull_failures_fall_back(
    manager: ImageManager, docker_settings: ImageSettings, repo_name: str
) -> None:
    _, commit = _repo(manager, repo_name, {"a.py": "A = 1\n"})
    instance = make_instance(repo_name, commit, 1, Dockerfile=DOCKERFILE)
    registry = f"polybench-test-official/{uuid.uuid4().hex[:8]}"
    official = f"{registry}/swe-polybench.eval.x86_64.{instance.instance_id.lower()}"
    client = docker_client()
    client.images.get("polybench_python_base:latest").tag(official, "latest")
    try:
        pulled = ImageManager(
            manager.repos, replace(docker_settings, image_source="pull", image_registry=registry)
        ).ensure_instance(instance)
        assert pulled.label("source") == f"{official}:latest"
        assert _run(pulled.tag, "python --version").startswith("Python 3")
        remove_images(
            client, managed_images(client, required={"org.polybench.source": f"{official}:latest"})
        )
        assert client.images.get(f"{official}:latest"), "the official image itself stays"
    finally:
        client.images.remove(f"{official}:latest")
    unreachable = replace(docker_settings, image_registry="polybench-test.invalid/none")
    with pytest.raises(ImageBuildError, match="cannot pull"):
        ImageManager(manager.repos, replace(unreachable, image_source="pull")).ensure_instance(
            instance
        )
    built = ImageManager(manager.repos, replace(unreachable, image_source="auto")).ensure_instance(
        instance
    )
    assert built.label("env") is not None and built.label("commit") == commit
