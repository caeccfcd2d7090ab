"""The files an agent command leaves in its output folder, copied out of a real local
sandbox: regular files only, plain names, capped in number and size."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from polybench.agent import outputs
from polybench.agent.outputs import collect_outputs
from polybench.sandbox.local import LocalSandbox
from tests.conftest import git


@pytest.fixture
def sandbox(repo: Path, tmp_path: Path) -> Iterator[LocalSandbox]:
    commit = git(repo, "rev-parse", "HEAD").strip()
    made = LocalSandbox.create(repo, commit, parent=tmp_path / "boxes", isolation="none")
    yield made
    made.cleanup()


def write(sandbox: LocalSandbox, name: str, data: bytes) -> Path:
    path = sandbox.scratch / "agent" / "output" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def test_regular_files_are_copied_with_their_folders(sandbox: LocalSandbox, tmp_path: Path) -> None:
    write(sandbox, "run.traj.json", b'{"messages": []}')
    write(sandbox, "logs/chat.md", b"# chat\n")
    inside = f"{sandbox.scratch_dir}/agent/output"
    done = collect_outputs(sandbox, inside, tmp_path / "kept")
    assert sorted(done.files) == ["logs/chat.md", "run.traj.json"]
    assert (tmp_path / "kept" / "logs" / "chat.md").read_bytes() == b"# chat\n"
    assert done.skipped == [] and not (tmp_path / "kept" / "SKIPPED.txt").exists()


def test_links_odd_names_and_what_is_over_the_caps_are_left_out(
    sandbox: LocalSandbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("host file")
    folder = write(sandbox, "a.txt", b"a").parent
    os.symlink(secret, folder / "link.txt")
    write(sandbox, "line\nbreak.txt", b"x")
    write(sandbox, "big.bin", b"b" * 50)
    write(sandbox, "c.txt", b"c")
    monkeypatch.setattr(outputs, "MAX_TOTAL_BYTES", 10)
    monkeypatch.setattr(outputs, "MAX_FILES", 1)
    inside = f"{sandbox.scratch_dir}/agent/output"
    done = collect_outputs(sandbox, inside, tmp_path / "kept")
    assert len(done.files) == 1 and done.files[0] in ("a.txt", "c.txt")
    assert not (tmp_path / "kept" / "link.txt").exists()
    skipped = (tmp_path / "kept" / "SKIPPED.txt").read_text()
    assert "not a plain relative name" in skipped
    assert "big.bin: over 10 bytes in all" in skipped or "big.bin: more than 1 files" in skipped
    assert len(done.skipped) == 3


def test_nothing_is_made_when_the_folder_is_empty_or_missing(
    sandbox: LocalSandbox, tmp_path: Path
) -> None:
    done = collect_outputs(sandbox, f"{sandbox.scratch_dir}/agent/output", tmp_path / "kept")
    assert done.files == [] and not (tmp_path / "kept").exists()
