"""Toolchain version probes (a JVM-started ``mvn --version``) run once per installation,
not once per process: the answer is kept in the cache by the program's fingerprint."""

from __future__ import annotations

from pathlib import Path

import pytest

from polybench.environments.toolchains import tool_version


def _program(folder: Path, version: str) -> Path:
    program = folder / "bin" / "tool"
    program.parent.mkdir(parents=True, exist_ok=True)
    program.write_text(f'#!/bin/sh\necho run >> "{folder}/runs"\necho "tool {version}"\n')
    program.chmod(0o755)
    return program


def test_a_version_is_asked_once_per_installation_across_processes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("POLYBENCH_CACHE_DIR", str(tmp_path / "cache"))
    program = _program(tmp_path, "1.2.3")
    runs = tmp_path / "runs"
    for _ in range(3):
        tool_version.cache_clear()  # as a new process would start
        assert tool_version(str(program)) == "tool 1.2.3"
    assert runs.read_text().count("run") == 1

    _program(tmp_path, "1.2.10")  # an upgrade: the program changed
    tool_version.cache_clear()
    assert tool_version(str(program)) == "tool 1.2.10"
    assert runs.read_text().count("run") == 2
    tool_version.cache_clear()


def test_a_program_that_does_not_run_is_not_remembered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("POLYBENCH_CACHE_DIR", str(tmp_path / "cache"))
    tool_version.cache_clear()
    assert tool_version(str(tmp_path / "missing")) is None
    assert not (tmp_path / "cache" / "toolchains" / "tool-versions.json").exists()
    tool_version.cache_clear()
