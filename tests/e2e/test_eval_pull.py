"""``--image-source pull`` and ``auto`` against a real registry on 127.0.0.1.

An image named like an official prebuilt instance image
(``<registry>/swe-polybench.eval.x86_64.<instance_id>:v1.1``) is made from the image the
builder makes for a mini instance (it already holds /testbed at the base commit with the
dependencies), plus a layer of its own (a program on a ``PATH`` set by the image) and
without polybench's labels, like an image polybench did not make. It is pushed to the
registry and removed here, so that every test has to pull it back.
"""

# Fixtures imported from tests.helpers.docker_fixtures are used as test arguments.
# ruff: noqa: F811

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest

from polybench.dataset.builtin import load_builtin, materialise_builtin_repos
from polybench.dataset.models import Instance
from polybench.environments.docker_provider import DockerProvider
from polybench.environments.images.manager import ImageManager
from polybench.environments.images.settings import ImageSettings, official_image
from polybench.environments.repos import RepoStore
from polybench.sandbox.docker import ContainerLimits, docker_client
from tests.e2e.conftest import read_report, run_cli
from tests.helpers.docker_fixtures import (  # noqa: F401
    TEST_LABEL,
    docker_bases,
    docker_settings,
    local_registry,
)
from tests.helpers.local_registry import LocalRegistry
from tests.helpers.prebuilt import MARKER, push_official_like
from tests.helpers.prebuilt import forget as _forget
from tests.helpers.prebuilt import is_local as _is_local

pytestmark = [pytest.mark.docker, pytest.mark.slow]

PUSHED = "polybench-mini__logline-58"
NOT_PUSHED = "polybench-mini__logline-63"
TAG = "v1.1"


@dataclass(frozen=True)
class Prebuilt:
    """The image pushed to the registry, and what it was made from."""

    registry: str
    reference: str
    value: str
    built_tag: str

    @property
    def selector(self) -> str:
        """The label every image made from the pushed one carries."""
        return f"{TEST_LABEL}={self.value}"


@pytest.fixture(scope="module")
def prebuilt(
    local_registry: LocalRegistry,
    docker_bases: object,
    docker_settings: ImageSettings,
    shared_cache: Path,
) -> Iterator[Prebuilt]:
    """The pushed image (absent locally); everything made from it is removed afterwards."""
    repos = shared_cache / "builtin" / "mini" / "repos"
    materialise_builtin_repos("mini", repos)
    instance = _mini(PUSHED)
    built = ImageManager(RepoStore(repo_dir=repos), docker_settings).ensure_instance(instance)
    value = uuid.uuid4().hex[:12]
    reference = official_image(PUSHED, local_registry.address, TAG)
    try:
        push_official_like(built.tag, reference, value)
        yield Prebuilt(local_registry.address, reference, value, built.tag)
    finally:
        _forget(value)


def _mini(instance_id: str) -> Instance:
    return {i.instance_id: i for i in load_builtin("mini")}[instance_id]


def _pulling_manager(
    prebuilt: Prebuilt, docker_settings: ImageSettings, shared_cache: Path
) -> ImageManager:
    """An image manager that pulls from the test registry (with the session's settings)."""
    settings = replace(
        docker_settings, image_source="pull", image_registry=prebuilt.registry, image_tag=TAG
    )
    return ImageManager(RepoStore(repo_dir=shared_cache / "builtin" / "mini" / "repos"), settings)


def _docker_options(settings: ImageSettings) -> list[str]:
    options = ["--backend", "docker", "--base-source", settings.base_source, "--memory", "2g"]
    return [*options, "--trust-host-ca"] if settings.trust_host_ca else options


def _eval(
    source: str, prebuilt: Prebuilt, settings: ImageSettings, cache: Path, out: Path, run: str
) -> dict[str, Any]:
    done = run_cli(
        [
            "eval",
            "--dataset",
            "mini",
            "--instance-ids",
            f"{PUSHED},{NOT_PUSHED}",
            "--predictions",
            "gold",
            "--run-id",
            run,
            "--output-dir",
            str(out),
            "--image-source",
            source,
            "--image-registry",
            prebuilt.registry,
            "--image-tag",
            TAG,
            *_docker_options(settings),
        ],
        cache,
        timeout=1800,
    )
    report = read_report(out / run)
    # Exit status 1 when an instance ended in an infrastructure error, else 0.
    assert done.returncode == (1 if report["error_instances"] else 0), done.stdout + done.stderr
    return report


def _result(out: Path, run: str, instance_id: str) -> dict[str, Any]:
    path = out / run / "instances" / instance_id / "result.json"
    return dict(json.loads(path.read_text()))


def _image(tag: str) -> dict[str, Any]:
    return dict(docker_client().api.inspect_image(tag))


def _assert_ran_in_pulled_image(result: dict[str, Any], prebuilt: Prebuilt) -> None:
    assert result["status"] == "resolved", result
    layer = _image(result["environment"])
    pulled = _image(prebuilt.reference)
    labels = layer["Config"]["Labels"]
    assert labels["org.polybench.source"] == prebuilt.reference
    assert labels["org.polybench.source-id"] == pulled["Id"]
    assert labels["org.polybench.level"] == "instance" and not labels.get("org.polybench.env")
    # A label-only layer: the container's file system is the pulled image's, byte for byte.
    assert layer["RootFS"]["Layers"] == pulled["RootFS"]["Layers"]
    assert f"POLYBENCH_PREBUILT={prebuilt.value}" in layer["Config"]["Env"]


def test_pull_evaluates_gold_in_the_pulled_image_and_a_missing_image_is_an_error(
    prebuilt: Prebuilt, docker_settings: ImageSettings, cache_env: Path, tmp_path: Path
) -> None:
    _forget(prebuilt.value)
    assert not _is_local(prebuilt.reference)
    report = _eval("pull", prebuilt, docker_settings, cache_env, tmp_path, "pull")
    assert _is_local(prebuilt.reference), "the image was pulled from the registry"
    assert report["resolved_instances"] == 1 and report["error_instances"] == 1, report
    _assert_ran_in_pulled_image(_result(tmp_path, "pull", PUSHED), prebuilt)
    missing = _result(tmp_path, "pull", NOT_PUSHED)
    assert missing["status"] == "error" and missing["error_kind"] == "image_build_failed"
    expected = official_image(NOT_PUSHED, prebuilt.registry, TAG)
    assert f"cannot pull {expected}" in missing["reason"], missing
    assert "manifest unknown" in missing["reason"] or "not found" in missing["reason"]
    build_log = tmp_path / "pull" / "instances" / NOT_PUSHED / "build.log"
    assert f"pulling {expected} failed" in build_log.read_text()
    metadata = json.loads((tmp_path / "pull" / "run.json").read_text())
    settings = metadata["backend_settings"]
    assert settings["image_source"] == "pull" and settings["image_registry"] == prebuilt.registry


def test_auto_pulls_what_the_registry_has_and_builds_the_rest(
    prebuilt: Prebuilt, docker_settings: ImageSettings, cache_env: Path, tmp_path: Path
) -> None:
    _forget(prebuilt.value)
    report = _eval("auto", prebuilt, docker_settings, cache_env, tmp_path, "auto")
    assert report["resolved_instances"] == report["total_instances"] == 2, report
    assert report["error_instances"] == 0
    assert _is_local(prebuilt.reference)
    _assert_ran_in_pulled_image(_result(tmp_path, "auto", PUSHED), prebuilt)
    built = _result(tmp_path, "auto", NOT_PUSHED)
    labels = _image(built["environment"])["Config"]["Labels"]
    assert not labels.get("org.polybench.source")
    assert labels["org.polybench.env"].startswith("polybench-env/")
    assert labels["org.polybench.instance"] == NOT_PUSHED


def test_a_pulled_image_runs_with_its_own_path_and_variables(
    prebuilt: Prebuilt, docker_settings: ImageSettings, shared_cache: Path
) -> None:
    _forget(prebuilt.value)
    manager = _pulling_manager(prebuilt, docker_settings, shared_cache)
    instance = _mini(PUSHED)
    ready = DockerProvider(manager, ContainerLimits(memory="1g")).provide(instance)
    try:
        env = ready.environment.exec_env(ready.sandbox.workdir)
        assert "PATH" not in env, "the image's PATH is used, not one set by the harness"
        done = ready.sandbox.exec(
            f"{MARKER} && printenv POLYBENCH_PREBUILT && git rev-parse HEAD && pwd", env=env
        )
    finally:
        ready.sandbox.cleanup()
    assert done.exit_code == 0, done.output
    assert done.output.split() == [
        f"prebuilt-{prebuilt.value}",
        prebuilt.value,
        instance.base_commit,
        "/testbed",
    ]


def test_images_clean_removes_a_pulled_image_only_when_asked(
    prebuilt: Prebuilt, docker_settings: ImageSettings, cache_env: Path, shared_cache: Path
) -> None:
    manager = _pulling_manager(prebuilt, docker_settings, shared_cache)
    instance = _mini(PUSHED)
    _forget(prebuilt.value)
    pulled = run_cli(
        [
            *("images", "build", "--dataset", "mini", "--instance-ids", PUSHED),
            *("--image-source", "pull", "--image-registry", prebuilt.registry, "--image-tag", TAG),
        ],
        cache_env,
    )
    assert pulled.returncode == 0, pulled.stdout + pulled.stderr
    layer = manager.ensure_instance(instance)
    assert layer.reused, "images build pulled the image and made its layer"
    assert f"ok     instance {layer.tag} (built" in pulled.stdout, pulled.stdout
    assert layer.label("source") == prebuilt.reference

    kept = run_cli(
        ["images", "clean", "--level", "instance", "--label", prebuilt.selector], cache_env
    )
    assert kept.returncode == 0, kept.stdout + kept.stderr
    assert f"removed instance image {layer.tag}" in kept.stdout
    assert not _is_local(layer.tag)
    assert _is_local(prebuilt.reference), "the pulled image is not polybench's to remove"

    layer = manager.ensure_instance(instance)
    args = ["images", "clean", "--level", "instance", "--label", prebuilt.selector, "--pulled"]
    listed = run_cli([*args, "--dry-run"], cache_env)
    assert f"would remove pulled image {prebuilt.reference}" in listed.stdout, listed.stdout
    assert _is_local(prebuilt.reference) and _is_local(layer.tag)
    removed = run_cli(args, cache_env)
    assert removed.returncode == 0, removed.stdout + removed.stderr
    assert f"removed pulled image {prebuilt.reference}" in removed.stdout
    assert not _is_local(layer.tag) and not _is_local(prebuilt.reference)
    assert _is_local(prebuilt.built_tag), "the built image it was made from stays"


def _plan_row(output: str, level: str) -> tuple[int, int]:
    """(needed, missing) of a level in the table ``images build`` prints."""
    for line in output.splitlines():
        cells = [cell.strip() for cell in line.strip("│┃ ").split("│")]
        if cells and cells[0] == level:
            return int(cells[1]), int(cells[2])
    raise AssertionError(f"no {level} row in:\n{output}")


def test_the_build_estimate_counts_the_layer_a_pulled_image_still_needs(
    prebuilt: Prebuilt, cache_env: Path
) -> None:
    _forget(prebuilt.value)
    args = [
        *("images", "build", "--dataset", "mini", "--instance-ids", PUSHED),
        *("--image-source", "pull", "--image-registry", prebuilt.registry, "--image-tag", TAG),
    ]
    before = run_cli([*args, "--dry-run"], cache_env)
    assert before.returncode == 0, before.stdout + before.stderr
    assert _plan_row(before.stdout, "pull") == (1, 1)
    assert _plan_row(before.stdout, "instance") == (1, 1)
    docker_client().images.pull(*prebuilt.reference.rsplit(":", 1))  # here, without its layer
    pulled = run_cli([*args, "--dry-run"], cache_env)
    assert _plan_row(pulled.stdout, "pull") == (1, 0)
    assert _plan_row(pulled.stdout, "instance") == (1, 1), pulled.stdout  # the layer is not
    built = run_cli(args, cache_env)
    assert built.returncode == 0, built.stdout + built.stderr
    assert "ok     instance polybench-instance/" in built.stdout and "(built" in built.stdout
    after = run_cli([*args, "--dry-run"], cache_env)
    assert _plan_row(after.stdout, "pull") == (1, 0)
    assert _plan_row(after.stdout, "instance") == (1, 0)
