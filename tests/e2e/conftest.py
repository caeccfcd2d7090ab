"""End-to-end fixtures: the mini dataset, one cache shared by the whole session."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from polybench.dataset.builtin import load_builtin
from polybench.dataset.models import Instance
from tests.helpers.session_cache import shared_root


@pytest.fixture(scope="session")
def shared_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One polybench cache for the session, so environments are installed once.

    ``POLYBENCH_TEST_CACHE`` reuses a cache across sessions when set.
    """
    return shared_root(tmp_path_factory)


@pytest.fixture
def cache_env(shared_cache: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("POLYBENCH_CACHE_DIR", str(shared_cache))
    yield shared_cache


@pytest.fixture(scope="session")
def mini() -> dict[str, Instance]:
    return {instance.instance_id: instance for instance in load_builtin("mini")}


def run_cli(
    args: list[str], cache: Path, timeout: float = 1200, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``polybench`` as a user would, in a subprocess."""
    full_env = dict(os.environ, POLYBENCH_CACHE_DIR=str(cache), COLUMNS="200", **(env or {}))
    return subprocess.run(
        [sys.executable, "-m", "polybench", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=full_env,
    )


def read_report(run_dir: Path) -> dict[str, Any]:
    return dict(json.loads((run_dir / "report.json").read_text()))


def grade_agent_run(run_dir: Path, output_dir: Path, cache: Path) -> dict[str, Any]:
    """``eval`` of an agent run's ``predictions.jsonl`` on ``mini`` (run id ``graded`` in
    ``output_dir``), which must exit 0; its report."""
    evaluated = run_cli(
        ["eval", "--dataset", "mini", "--predictions", str(run_dir / "predictions.jsonl"),
         "--run-id", "graded", "--output-dir", str(output_dir)],
        cache,
    )  # fmt: skip
    assert evaluated.returncode == 0, evaluated.stdout + evaluated.stderr
    return read_report(output_dir / "graded")


@pytest.fixture
def agent_folder() -> Iterator[Path]:
    """A folder for an agent's files that sandboxes can be given (``--agent-mount``): not
    under the private ``/tmp`` or ``/var/tmp``, readable by the sandbox's user."""
    with tempfile.TemporaryDirectory(dir=Path.home(), prefix=".polybench-agent-") as folder:
        Path(folder).chmod(0o755)
        yield Path(folder)
