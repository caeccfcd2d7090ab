"""``polybench images`` and ``polybench docker clean`` on a real engine.

Everything a test makes carries a label of its own, and the cleaning commands are run
with ``--label`` for it, so tests running in parallel never remove each other's images.
The ownership rules are still the real ones: the objects that are not polybench's carry
the same test label and must survive.
"""

# Fixtures imported from tests.helpers.docker_fixtures are used as test arguments.
# ruff: noqa: F811

from __future__ import annotations

import io
import json
import re
import tarfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import typer
from docker.errors import ImageNotFound, NotFound
from typer.testing import CliRunner

from polybench.cli.docker_cmd import docker_app
from polybench.cli.images_cmd import images_app
from polybench.environments.images.builder import Builder, image_labels
from polybench.environments.images.inventory import managed_images, remove_images
from polybench.environments.images.settings import ImageSettings
from polybench.sandbox.docker import ContainerLimits, DockerSandbox, docker_client
from tests.helpers.docker_fixtures import (  # noqa: F401
    TEST_LABEL,
    docker_bases,
    docker_settings,
    make_git_repo,
    python_base,
    run_label,
)
from tests.helpers.session_cache import shared_root

pytestmark = pytest.mark.docker

app = typer.Typer()
app.add_typer(images_app, name="images")
app.add_typer(docker_app, name="docker")


def _invoke(*args: str) -> str:
    result = CliRunner().invoke(app, list(args), env={"COLUMNS": "250"})
    assert result.exit_code == 0, result.output
    return result.output


def _context(dockerfile: str) -> io.BytesIO:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        data = dockerfile.encode()
        info = tarfile.TarInfo("Dockerfile")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    buffer.seek(0)
    return buffer


def _build(settings: ImageSettings, tag: str, dockerfile: str, labels: dict[str, str]) -> None:
    Builder(settings).build(tag, _context(dockerfile), "Dockerfile", labels, title=tag)


def _exists(kind: str, ref: str) -> bool:
    client = docker_client()
    try:
        if kind == "image":
            client.images.get(ref)
        else:
            client.containers.get(ref)
    except (ImageNotFound, NotFound):
        return False
    return True


def test_docker_clean_removes_polybench_objects_and_nothing_else(
    python_base: str, docker_settings: ImageSettings, run_label: dict[str, str]
) -> None:
    client = docker_client()
    value = run_label[TEST_LABEL]
    selector = f"{TEST_LABEL}={value}"
    ours = DockerSandbox.create(python_base, ContainerLimits(), run_label)
    own_tag = f"polybench-instance/clean-test-{value}:one"
    _build(
        docker_settings,
        own_tag,
        f"FROM {python_base}\n",
        {**image_labels("instance", own_tag), **run_label},
    )
    derived = f"polybench-test-user/derived-{value}:1"
    _build(docker_settings, derived, f"FROM {own_tag}\n", run_label)  # inherits our labels
    client.images.get(own_tag).tag(f"polybench-test-user/retag-{value}", "1")
    from_our_image = client.containers.create(
        python_base, ["sleep", "600"], labels=run_label
    )  # inherits the base image's labels
    unlabelled = client.containers.create(
        docker_settings.rootfs_image if _exists("image", docker_settings.rootfs_image) else derived,
        ["sleep", "600"],
        labels=run_label,
    )

    listed = _invoke("docker", "clean", "--label", selector, "--dry-run")
    assert ours.container.name in listed and own_tag in listed
    for other in (derived, from_our_image.name, unlabelled.name, "retag"):
        assert other not in listed
    assert _exists("container", ours.container_id) and _exists("image", own_tag)

    done = _invoke("docker", "clean", "--label", selector)
    assert "removed 1 containers and 1 images" in done
    assert not _exists("container", ours.container_id)
    assert not _exists("image", own_tag)
    assert _exists("image", derived) and _exists("image", f"polybench-test-user/retag-{value}:1")
    assert _exists("container", str(from_our_image.id)) and _exists("container", str(unlabelled.id))
    assert _exists("image", python_base), "the base images are not the test's to remove"


def test_images_clean_goes_by_level(
    python_base: str, docker_settings: ImageSettings, run_label: dict[str, str]
) -> None:
    value = run_label[TEST_LABEL]
    env_tag = f"polybench-env/clean-test-{value}:env"
    instance_tag = f"polybench-instance/clean-test-{value}:inst"
    _build(
        docker_settings,
        env_tag,
        f"FROM {python_base}\n",
        {**image_labels("env", env_tag), **run_label},
    )
    _build(
        docker_settings,
        instance_tag,
        f"FROM {env_tag}\n",
        {**image_labels("instance", instance_tag), **run_label},
    )
    selector = f"{TEST_LABEL}={value}"
    assert instance_tag in _invoke("images", "list", "--level", "instance")
    _invoke("images", "clean", "--level", "instance", "--label", selector)
    assert not _exists("image", instance_tag) and _exists("image", env_tag)
    _invoke("images", "clean", "--level", "env", "--label", selector)
    assert not _exists("image", env_tag) and _exists("image", python_base)


@pytest.fixture
def dataset_file(tmp_path: Path) -> Iterator[tuple[Path, Path, str]]:
    """A two-instance dataset file on a repository of its own (its images go afterwards)."""
    repo = f"polybench-test/cli-{uuid.uuid4().hex[:10]}"
    repos = tmp_path / "repos"
    _, commit = make_git_repo(repos / repo.replace("/", "__"), {"app.py": "A = 1\n"})
    dockerfile = "FROM polybench_python_base\nWORKDIR /testbed\nCOPY . /testbed\n"
    rows = [
        {
            "instance_id": f"{repo.replace('/', '__')}-{n}",
            "repo": repo,
            "base_commit": commit,
            "language": "Python",
            "Dockerfile": dockerfile,
            "test_command": "true",
        }
        for n in (1, 2)
    ]
    path = tmp_path / "dataset.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    yield path, repos, repo
    client = docker_client()
    remove_images(client, managed_images(client, required={"org.polybench.repo": repo}))


def test_images_build_estimates_then_builds_in_parallel_and_du_measures(
    docker_bases: object,
    docker_settings: ImageSettings,
    dataset_file: tuple[Path, Path, str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    path, repos, repo = dataset_file
    monkeypatch.setenv("POLYBENCH_CACHE_DIR", str(shared_root(tmp_path_factory)))
    options = ["--dataset", str(path), "--repo-dir", str(repos)]
    options += ["--base-source", docker_settings.base_source]
    if docker_settings.trust_host_ca:
        options.append("--trust-host-ca")
    plan = _invoke("images", "build", *options, "--dry-run")
    assert "estimated disk" in plan and "free space for Docker" in plan
    assert "ok " not in plan, "a dry run builds nothing"
    built = _invoke("images", "build", *options, "--workers", "2")
    assert built.count("ok     env") == 1 and built.count("ok     instance") == 2
    again = _invoke("images", "build", *options)
    assert "built in" not in again and again.count("(reused)") == again.count("ok ") >= 3
    slug = repo.replace("/", "__")
    assert f"polybench-env/{slug}" in _invoke("images", "list", "--level", "env")
    usage = _invoke("images", "du")
    assert f"polybench-instance/{slug}-1" in usage
    assert "extra bytes per instance" in usage and "total on disk" in usage
    # Aligned columns (numbers to the right, whole names): every row ends where the
    # header does, and the totals' sizes end in one column.
    lines = usage.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("level "))
    end = next(i for i, line in enumerate(lines) if line.startswith("root image"))
    header, rows, totals = lines[start], lines[start + 1 : end], lines[end:]
    assert rows and {len(row) for row in rows} == {len(header)}
    for name in ("image", "on top of"):
        assert {row[header.index(name) - 1] for row in rows} == {" "}
    assert len(totals) >= 6 and len({len(line) for line in totals}) == 1


def test_images_build_refuses_unknown_instance_ids(docker_bases: object) -> None:
    result = CliRunner().invoke(
        app,
        ["images", "build", "--instance-ids", "polybench-mini__timespan-27,nope-1", "--dry-run"],
        env={"COLUMNS": "250"},
    )
    assert result.exit_code == 2, result.output
    assert "unknown instance ids: nope-1" in result.output


def test_docker_clean_leaves_what_another_user_or_cache_made_unless_all(
    python_base: str,
    run_label: dict[str, str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from polybench.sandbox.docker_client import OWNER_LABEL, owner_id

    selector = f"{TEST_LABEL}={run_label[TEST_LABEL]}"
    mine = DockerSandbox.create(python_base, ContainerLimits(), run_label)
    with monkeypatch.context() as elsewhere:  # as another user's polybench, with its cache
        elsewhere.setenv("POLYBENCH_CACHE_DIR", str(tmp_path / "other-cache"))
        other_owner = owner_id()
        theirs = DockerSandbox.create(python_base, ContainerLimits(), run_label)
    assert other_owner != owner_id()
    assert theirs.container.labels[OWNER_LABEL] == other_owner
    assert mine.container.labels[OWNER_LABEL] == owner_id()

    listed = _invoke("docker", "clean", "--no-images", "--label", selector, "--dry-run")
    assert mine.container.name in listed and theirs.container.name not in listed
    done = _invoke("docker", "clean", "--no-images", "--label", selector)
    assert "removed 1 containers" in done
    assert not _exists("container", mine.container_id)
    assert _exists("container", theirs.container_id)
    everything = _invoke("docker", "clean", "--no-images", "--label", selector, "--all")
    assert "removed 1 containers" in everything
    assert not _exists("container", theirs.container_id)


PATCH = "diff --git a/app.py b/app.py\n--- a/app.py\n+++ b/app.py\n@@ -1 +1 @@\n-A = 1\n+A = 2\n"


@pytest.fixture
def broken_dataset(tmp_path: Path) -> Iterator[tuple[Path, Path, str]]:
    """A one-instance dataset whose Dockerfile fails to build."""
    repo = f"polybench-test/broken-{uuid.uuid4().hex[:10]}"
    repos = tmp_path / "repos"
    _, commit = make_git_repo(repos / repo.replace("/", "__"), {"app.py": "A = 1\n"})
    dockerfile = (
        "FROM polybench_python_base\nWORKDIR /testbed\nCOPY . /testbed\n"
        "RUN echo 'installing [red]deps[/red]' && exit 3\n"
    )
    row = {
        "instance_id": f"{repo.replace('/', '__')}-1",
        "repo": repo,
        "base_commit": commit,
        "language": "Python",
        "Dockerfile": dockerfile,
        "test_command": "true",
        "patch": PATCH,
        "log_parser": "pytest",
        "F2P": ["t"],
    }
    path = tmp_path / "dataset.jsonl"
    path.write_text(json.dumps(row) + "\n")
    yield path, repos, row["instance_id"]
    client = docker_client()
    remove_images(client, managed_images(client, required={"org.polybench.repo": repo}))


def _build_log_of(line: str) -> Path:
    found = re.search(r"\(build log: (\S+)\)$", line)
    assert found is not None, line
    return Path(found.group(1))


def test_a_failed_build_is_one_line_with_its_build_log_everywhere(
    docker_bases: object,
    docker_settings: ImageSettings,
    broken_dataset: tuple[Path, Path, str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    from polybench.cli.main import app as polybench

    path, repos, instance_id = broken_dataset
    monkeypatch.setenv("POLYBENCH_CACHE_DIR", str(shared_root(tmp_path_factory)))
    options = ["--dataset", str(path), "--repo-dir", str(repos)]
    options += ["--base-source", docker_settings.base_source]
    if docker_settings.trust_host_ca:
        options.append("--trust-host-ca")
    built = CliRunner().invoke(app, ["images", "build", *options], env={"COLUMNS": "250"})
    assert built.exit_code == 1, built.output
    (failed,) = [line for line in built.output.splitlines() if line.startswith("failed")]
    assert "returned a non-zero code: 3" in failed
    assert "installing [red]deps[/red]" in _build_log_of(failed).read_text()
    assert "Traceback" not in built.output

    evaluated = CliRunner().invoke(
        polybench,
        ["eval", *options, "--predictions", "gold", "--backend", "docker", "--memory", "1g",
         "-o", str(tmp_path / "runs"), "--run-id", "broken"],
        env={"COLUMNS": "250"},
    )  # fmt: skip
    assert evaluated.exit_code == 1, evaluated.output
    result = json.loads(
        (tmp_path / "runs" / "broken" / "instances" / instance_id / "result.json").read_text()
    )
    assert result["error_kind"] == "image_build_failed"
    assert "\n" not in result["reason"] and "returned a non-zero code: 3" in result["reason"]
    kept = _build_log_of(result["reason"])
    assert kept == tmp_path / "runs" / "broken" / "instances" / instance_id / "build.log"
    assert "installing [red]deps[/red]" in kept.read_text()
    line = next(line for line in evaluated.output.splitlines() if instance_id in line)
    assert line.endswith(f"(build log: {kept})")


def test_backends_check_reports_an_image_that_cannot_be_made_in_one_line(
    docker_bases: object, monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> None:
    from polybench.cli.main import app as polybench

    monkeypatch.setenv("POLYBENCH_CACHE_DIR", str(shared_root(tmp_path_factory)))
    result = CliRunner().invoke(
        polybench,
        ["backends", "check", "docker", "--backend-option", "image_source=pull",
         "--backend-option", "image_registry=127.0.0.1:9/nowhere"],
        env={"COLUMNS": "300"},
    )  # fmt: skip
    assert result.exit_code == 1, result.output
    assert ("Traceback" not in result.output and result.exception is None) or isinstance(
        result.exception, SystemExit
    )
    (problem,) = [line for line in result.output.splitlines() if line.startswith("cannot run")]
    assert "cannot pull 127.0.0.1:9/nowhere/" in problem
    assert _build_log_of(problem).is_file()
    assert "does NOT conform" in result.output
