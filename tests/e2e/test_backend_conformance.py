"""The in-package conformance suite, run over every registered backend and over a
backend another package adds through the ``polybench.backends`` entry point."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import tomllib

from polybench.environments.backends import (
    ENTRY_POINT_GROUP,
    Backend,
    ProviderSettings,
    available_backends,
    build_provider,
    register_backend,
)
from polybench.environments.boundary_checks import BOUNDARY_CHECKS
from polybench.environments.conformance import ALL_CHECKS, run_conformance
from polybench.environments.provider import ReadySandbox, SandboxProvider
from polybench.sandbox.base import ExecResult, Sandbox
from tests.helpers.docker_fixtures import docker_bases, docker_settings  # noqa: F401
from tests.helpers.unprivileged import needs_root, run_unprivileged, work_folder

PLUGIN = Path(__file__).resolve().parents[1] / "plugins" / "dirbox"
EVERY_CHECK = {*ALL_CHECKS, "cleanup"}
WRONG_PATCH = """diff --git a/NOTES.md b/NOTES.md
new file mode 100644
--- /dev/null
+++ b/NOTES.md
@@ -0,0 +1 @@
+an honest but wrong fix
"""


def _backend_params() -> list[Any]:
    """Every backend registered when the tests are collected; Docker ones need Docker."""
    params: list[Any] = []
    for info in available_backends():
        marks = [pytest.mark.docker] if info.name == "docker" else []
        params.append(pytest.param(info.name, marks=marks, id=info.name))
    return params


@pytest.mark.slow
@pytest.mark.parametrize("backend", _backend_params())
def test_every_registered_isolating_backend_conforms(
    backend: str, cache_env: Path, request: pytest.FixtureRequest
) -> None:
    options: dict[str, object] = {}
    if backend == "docker":
        settings = request.getfixturevalue("docker_settings")
        request.getfixturevalue("docker_bases")
        options = {"base_source": settings.base_source, "trust_host_ca": settings.trust_host_ca}
    report = run_conformance(ProviderSettings(backend=backend, options=options))
    assert report.problems == []
    assert report.ok, [(c.name, c.detail) for c in report.failures]
    assert {check.name for check in report.checks} == EVERY_CHECK
    if report.isolation != "none":
        assert all(check.status == "passed" for check in report.checks)


def test_the_unisolated_local_backend_keeps_the_contract_but_is_not_a_boundary(
    cache_env: Path,
) -> None:
    report = run_conformance(
        ProviderSettings(backend="local", options={"isolation": "none"}),
        only=["checkout", "history", "host-environment", "network", *BOUNDARY_CHECKS],
    )
    assert not report.ok and report.isolation == "none"
    statuses = {check.name: check.status for check in report.checks}
    assert statuses == {
        "checkout": "passed",
        "history": "passed",
        "host-environment": "passed",
        "network": "skipped",
        **{name: "failed" for name in BOUNDARY_CHECKS},
        "cleanup": "passed",
    }
    assert {check.name for check in report.boundary_failures} == set(BOUNDARY_CHECKS)


class _LeakyBox:
    """A local sandbox that hands out host files and the host's variables."""

    def __init__(self, inner: Sandbox) -> None:
        self.inner = inner

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    @property
    def workdir(self) -> str:
        return self.inner.workdir

    @property
    def scratch_dir(self) -> str:
        return self.inner.scratch_dir

    @property
    def isolation(self) -> str:
        return self.inner.isolation

    def exec(self, command: Any, timeout: float | None = None,
             env: dict[str, str] | None = None, **kwargs: Any) -> ExecResult:  # fmt: skip
        return self.inner.exec(command, timeout, {**os.environ, **(env or {})}, **kwargs)

    def read_file(self, path: str) -> bytes:
        if path.startswith("/") and not path.startswith(self.inner.workdir):
            return Path(path).read_bytes()
        return self.inner.read_file(path)


class _LeakyBackend(Backend):
    name = "leaky-test"

    def provider(self, settings: ProviderSettings) -> SandboxProvider:
        inner = build_provider(settings.model_copy(update={"backend": "local"}))

        class Provider:
            name = "leaky-test"

            def provide(self, instance: Any) -> ReadySandbox:
                ready = inner.provide(instance)
                return ReadySandbox(_LeakyBox(ready.sandbox), ready.environment)  # type: ignore[arg-type]

        return Provider()


def test_a_backend_that_leaks_fails_exactly_the_checks_it_breaks(cache_env: Path) -> None:
    register_backend(_LeakyBackend())
    report = run_conformance(
        ProviderSettings(backend="leaky-test", options={"isolation": "none"}),
        only=["checkout", "outside-paths", "host-environment", "missing-file"],
    )
    assert not report.ok
    assert {check.name for check in report.failures} == {"outside-paths", "host-environment"}
    assert {c.name for c in report.checks if c.status == "passed"} == {
        "checkout",
        "missing-file",
        "cleanup",
    }


def test_unknown_checks_and_backends_are_refused(cache_env: Path) -> None:
    with pytest.raises(ValueError, match="unknown check"):
        run_conformance(ProviderSettings(backend="local"), only=["no-such-check"])
    from typer.testing import CliRunner

    from polybench.cli.main import app

    refused = CliRunner().invoke(app, ["backends", "check", "no-such-backend"])
    assert refused.exit_code == 2 and "unknown backend 'no-such-backend'" in refused.output


def _install_plugin(tmp_path: Path) -> dict[str, str]:
    """pip-installs the dirbox package into a folder; the environment that sees it."""
    source, site = tmp_path / "dirbox-src", tmp_path / "site"
    shutil.copytree(PLUGIN, source)
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation",
         "--disable-pip-version-check", "--target", str(site), str(source)],
        check=True, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(site), env.get("PYTHONPATH")]))
    return env


def _polybench(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "polybench.cli.main", *args],
        env={**env, "COLUMNS": "200"}, capture_output=True, text=True, timeout=1200,
    )  # fmt: skip


@pytest.mark.slow
def test_a_backend_from_another_package_is_found_checked_and_runs_instances(
    cache_env: Path, tmp_path: Path
) -> None:
    declared = tomllib.loads((PLUGIN / "pyproject.toml").read_text())
    assert declared["project"]["entry-points"][ENTRY_POINT_GROUP] == {
        "dirbox": "polybench_dirbox:DirBoxBackend"
    }
    assert "dirbox" not in {info.name for info in available_backends()}
    env = _install_plugin(tmp_path)

    listed = _polybench(env, "backends", "list")
    assert listed.returncode == 0, listed.stderr
    assert "dirbox" in listed.stdout and "entry point" in listed.stdout

    checked = _polybench(env, "backends", "check", "dirbox")
    # It keeps every promise of the contract, but nothing isolates its sandboxes.
    assert checked.returncode == 1, checked.stdout + checked.stderr
    said = (
        f"backend dirbox (isolation none) does NOT conform (not a boundary: {len(BOUNDARY_CHECKS)}"
    )
    assert said in checked.stdout
    assert f"{len(BOUNDARY_CHECKS)} failed" in checked.stdout

    ids = ["polybench-mini__timespan-34", "polybench-mini__hues-41"]
    wrong = tmp_path / "wrong.jsonl"
    wrong.write_text("".join(
        json.dumps({"instance_id": i, "model_patch": WRONG_PATCH}) + "\n" for i in ids
    ))  # fmt: skip
    for predictions, expected in (("gold", "resolved"), (str(wrong), "unresolved")):
        run_id = Path(predictions).stem
        run = _polybench(env, "eval", "--backend", "dirbox", "--predictions", predictions,
                         "--instance-ids", ",".join(ids), "-o", str(tmp_path / "runs"),
                         "--run-id", run_id)  # fmt: skip
        assert run.returncode == 0, run.stdout + run.stderr
        for instance_id in ids:
            folder = tmp_path / "runs" / run_id / "instances" / instance_id
            result = json.loads((folder / "result.json").read_text())
            assert (result["status"], result["backend"]) == (expected, "dirbox")


@pytest.mark.slow
@needs_root
def test_the_local_backend_is_a_boundary_when_an_unprivileged_user_runs_the_harness(
    tmp_path: Path,
) -> None:
    work = work_folder(tmp_path)
    done = run_unprivileged([sys.executable, "-m", "polybench", "backends", "check", "local"], work)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    for name in BOUNDARY_CHECKS:
        assert re.search(rf"{name}\s+.\s+passed", done.stdout), done.stdout
    assert "backend local (isolation bubblewrap) conforms" in done.stdout


@pytest.mark.slow
@pytest.mark.skipif(os.geteuid() != 0, reason="the earlier layout kept root's capabilities")
def test_the_boundary_checks_fail_where_the_boundary_is_missing(cache_env: Path) -> None:
    """The local sandbox as it was built before (``/`` read-only, answers hidden, root's
    capabilities kept) fails the checks of what it let through: the checks can fail."""
    from tests.helpers.earlier_layout import EarlierLayoutBackend

    register_backend(EarlierLayoutBackend())
    report = run_conformance(ProviderSettings(backend="earlier-layout"), only=list(BOUNDARY_CHECKS))
    statuses = {check.name: check.status for check in report.checks}
    assert {name for name, status in statuses.items() if status == "failed"} == {
        "boundary-capabilities",
        "boundary-mounts",
        "boundary-sockets",
        "boundary-harness-paths",
    }, [(c.name, c.detail) for c in report.checks]
    # Its writes were refused (read-only binds), which the mount check shows it could undo.
    assert statuses["boundary-writes"] == "passed"
