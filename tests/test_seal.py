"""Saved results carry a seal keyed by a local secret: anything else's change is seen."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from polybench.seal import key_path, read_sealed, seal_path, write_sealed


@pytest.fixture(autouse=True)
def own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("POLYBENCH_CACHE_DIR", str(tmp_path / "cache"))


def test_a_sealed_file_reads_back_trusted(tmp_path: Path) -> None:
    target = tmp_path / "run" / "result.json"
    write_sealed(target, '{"status": "unresolved"}')
    found = read_sealed(target)
    assert found.trusted and found.data == b'{"status": "unresolved"}'
    assert stat.S_IMODE(key_path().stat().st_mode) == 0o600
    assert stat.S_IMODE(key_path().parent.stat().st_mode) == 0o700


def test_a_changed_file_is_not_trusted(tmp_path: Path) -> None:
    target = tmp_path / "result.json"
    write_sealed(target, '{"status": "unresolved"}')
    target.write_text('{"status": "resolved"}')
    found = read_sealed(target)
    assert not found.trusted and "changed after it was written" in (found.problem or "")


def test_a_file_without_its_seal_or_with_a_copied_seal_is_not_trusted(tmp_path: Path) -> None:
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    write_sealed(first, '{"status": "unresolved"}')
    write_sealed(second, '{"status": "resolved"}')
    seal_path(first).write_bytes(seal_path(second).read_bytes())
    assert not read_sealed(first).trusted
    seal_path(first).unlink()
    assert "no seal" in (read_sealed(first).problem or "")
    assert read_sealed(tmp_path / "missing.json").data is None


def test_a_seal_made_with_another_key_is_not_trusted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "result.json"
    write_sealed(target, "{}")
    monkeypatch.setenv("POLYBENCH_CACHE_DIR", str(tmp_path / "other-cache"))
    assert not read_sealed(target).trusted
