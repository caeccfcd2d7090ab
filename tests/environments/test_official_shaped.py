"""The gold patches of the official-shaped instances resolve, on the local backend (their
Dockerfile column interpreted here) and in Docker (images built from that column)."""

# Fixtures imported from tests.helpers.docker_fixtures are used as test arguments.
# ruff: noqa: F811

from __future__ import annotations

import json
from pathlib import Path

import pytest

from polybench.curation.validate import Validator
from polybench.dataset.builtin import materialise_builtin_repos
from polybench.environments.images.settings import ImageSettings
from polybench.environments.manager import EnvironmentManager
from polybench.environments.provider import LocalProvider
from polybench.environments.repos import RepoStore
from tests.e2e.conftest import read_report, run_cli
from tests.environments.official_shaped import (
    JAVA_INSTANCE,
    JAVASCRIPT_INSTANCE,
    NVM_NODE,
    official_instances,
    official_java_hidden,
    official_javascript_nvm,
)
from tests.helpers.docker_fixtures import docker_bases, docker_settings  # noqa: F401
from tests.helpers.session_cache import shared_root

pytestmark = pytest.mark.slow


@pytest.fixture
def official_dataset(tmp_path: Path) -> tuple[Path, Path]:
    """A JSONL dataset of the official-shaped instances and a folder of their clones."""
    repos = tmp_path / "repos"
    materialise_builtin_repos("mini", repos)
    dataset = tmp_path / "official.jsonl"
    dataset.write_text(
        "".join(instance.model_dump_json() + "\n" for instance in official_instances())
    )
    return dataset, repos


def _eval(dataset: Path, repos: Path, out: Path, cache: Path, *options: str) -> dict[str, object]:
    done = run_cli(
        [
            "eval",
            "--dataset",
            str(dataset),
            "--repo-dir",
            str(repos),
            "--predictions",
            "gold",
            "--run-id",
            "official",
            "--output-dir",
            str(out),
            *options,
        ],
        cache,
        timeout=2400,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return read_report(out / "official")


def _result(out: Path, instance_id: str) -> dict[str, str]:
    path = out / "official" / "instances" / instance_id / "result.json"
    return dict(json.loads(path.read_text()))


def test_official_shaped_gold_resolves_on_the_local_backend(
    official_dataset: tuple[Path, Path], tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    dataset, repos = official_dataset
    cache = shared_root(tmp_path_factory)
    report = _eval(dataset, repos, tmp_path / "runs", cache)
    assert report["resolved_instances"] == report["total_instances"] == 2, report
    java = _result(tmp_path / "runs", JAVA_INSTANCE)
    # The Corretto 8 the instance selects is not on this machine: the result says so.
    assert "substituted: JDK" in java["environment"], java["environment"]
    assert "JDK 8 (/usr/lib/jvm/java-1.8.0-amazon-corretto.x86_64)" in java["environment"]
    javascript = _result(tmp_path / "runs", JAVASCRIPT_INSTANCE)
    env_name = javascript["environment"].split(" ")[0]
    toolchain = (cache / "envs" / env_name / "toolchain.txt").read_text()
    assert "Node 18." in toolchain and "from the npm registry" in toolchain


@pytest.mark.docker
def test_official_shaped_gold_resolves_in_docker(
    official_dataset: tuple[Path, Path],
    docker_bases: object,
    docker_settings: ImageSettings,
    tmp_path: Path,
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    dataset, repos = official_dataset
    options = ["--backend", "docker", "--base-source", docker_settings.base_source]
    if docker_settings.trust_host_ca:
        options.append("--trust-host-ca")
    # No --allow-network: the report plugin only the test command names is fetched while
    # the environment image is built.
    report = _eval(dataset, repos, tmp_path / "runs", shared_root(tmp_path_factory), *options)
    assert report["resolved_instances"] == report["total_instances"] == 2, report
    assert report["error_instances"] == 0


BROKEN_JAVA = "src/main/java/io/polybench/ini/Broken.java"
BREAKS_COMPILATION = f"""diff --git a/{BROKEN_JAVA} b/{BROKEN_JAVA}
new file mode 100644
--- /dev/null
+++ b/{BROKEN_JAVA}
@@ -0,0 +1,3 @@
+package io.polybench.ini;
+
+final class Broken {{ int value = ; }}
"""


def test_a_patch_that_breaks_compilation_is_unresolved_not_an_error(
    official_dataset: tuple[Path, Path], tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """The official Java command ends in a ``find | while read`` loop, so it exits 0 when
    Maven could not compile: that is the patch's fault, graded unresolved with the reason,
    and the official result has the official shape (empty lists, ``no_p2p_failed`` true)."""
    dataset, repos = official_dataset
    predictions = tmp_path / "broken.jsonl"
    predictions.write_text(
        json.dumps({"instance_id": JAVA_INSTANCE, "model_patch": BREAKS_COMPILATION}) + "\n"
    )
    out = tmp_path / "runs"
    done = run_cli(
        ["eval", "--dataset", str(dataset), "--repo-dir", str(repos), "--predictions",
         str(predictions), "--instance-ids", JAVA_INSTANCE, "--run-id", "broken",
         "--output-dir", str(out), "--format", "official"],
        shared_root(tmp_path_factory), timeout=2400,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    result = json.loads((out / "broken/instances" / JAVA_INSTANCE / "result.json").read_text())
    assert result["status"] == "unresolved", result
    assert result["test_exit_code"] == 0  # the loop at the end hides Maven's failure
    assert "Maven could not compile the code" in result["build_failure"]
    assert "the build or the test collection failed" in result["reason"]
    official = json.loads((out / "broken/official" / f"{JAVA_INSTANCE}_result.json").read_text())
    assert official == {
        "instance_id": JAVA_INSTANCE,
        "patch_applied": True,
        "generation": True,
        "with_logs": True,
        "all_f2p_passed": False,
        "no_p2p_failed": True,
        "resolved": False,
        "passed_tests": [],
        "failed_tests": [],
    }


def _nvm_dataset(tmp_path: Path) -> tuple[Path, Path]:
    repos = tmp_path / "repos"
    materialise_builtin_repos("mini", repos)
    dataset = tmp_path / "nvm.jsonl"
    dataset.write_text(official_javascript_nvm().model_dump_json() + "\n")
    return dataset, repos


def _ran_with_nvm_node(out: Path) -> None:
    result = _result(out, JAVASCRIPT_INSTANCE)
    assert result["status"] == "resolved", result
    log = (out / "official" / "instances" / JAVASCRIPT_INSTANCE / "test_output.txt").read_text()
    assert f"Now using node v{NVM_NODE}." in log, log[:2000]


def test_nvm_use_in_the_test_command_on_the_local_backend(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """``. /usr/local/nvm/nvm.sh && nvm use 20`` selects a Node the environment fetched."""
    dataset, repos = _nvm_dataset(tmp_path)
    report = _eval(dataset, repos, tmp_path / "runs", shared_root(tmp_path_factory))
    assert report["resolved_instances"] == 1, report
    _ran_with_nvm_node(tmp_path / "runs")


@pytest.mark.docker
def test_nvm_use_in_the_test_command_in_docker(
    docker_bases: object,
    docker_settings: ImageSettings,
    tmp_path: Path,
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """The same Node is installed while the image is built; the test runs offline."""
    dataset, repos = _nvm_dataset(tmp_path)
    options = ["--backend", "docker", "--base-source", docker_settings.base_source]
    if docker_settings.trust_host_ca:
        options.append("--trust-host-ca")
    report = _eval(dataset, repos, tmp_path / "runs", shared_root(tmp_path_factory), *options)
    assert report["resolved_instances"] == 1, report
    _ran_with_nvm_node(tmp_path / "runs")


def test_a_dependency_the_local_environment_lacks_is_an_error(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Graded ``error`` (retried), and validation calls it the environment's failure."""
    repos = tmp_path / "repos"
    materialise_builtin_repos("mini", repos)
    dataset = tmp_path / "hidden.jsonl"
    hidden = official_java_hidden()
    dataset.write_text(hidden.model_dump_json() + "\n")
    cache = shared_root(tmp_path_factory)
    out = tmp_path / "runs"
    done = run_cli(
        [
            *("eval", "--dataset", str(dataset), "--repo-dir", str(repos)),
            *("--predictions", "gold", "--run-id", "official", "--output-dir", str(out)),
        ],
        cache,
        timeout=2400,
    )
    assert done.returncode == 1, done.stdout + done.stderr  # an instance ended in an error
    result = _result(out, JAVA_INSTANCE)
    assert result["status"] == "error" and result["error_kind"] == "dependency_unavailable"
    assert "maven-surefire-report-plugin" in result["reason"] and result["attempts"] == 2

    provider = LocalProvider(RepoStore(repos), EnvironmentManager(cache / "envs"))
    validated = Validator(provider, runs=1, timeout=1200).validate(hidden)
    assert validated.status == "error" and validated.kind == "environment", validated
    assert "the environment lacks what the test command needs" in (validated.reason or "")
