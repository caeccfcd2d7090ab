"""Files written atomically get the permissions any new file gets (``0666`` less the
umask), not the ``0600`` of a temporary file; a failed write leaves nothing behind."""

from __future__ import annotations

import stat
import subprocess
import sys
from pathlib import Path

import pytest

from polybench.atomic import atomic_write_bytes, atomic_write_text


@pytest.mark.parametrize(
    ("umask", "mode"), [(0o022, 0o644), (0o002, 0o664), (0o077, 0o600), (0o027, 0o640)]
)
def test_written_files_follow_the_umask(tmp_path: Path, umask: int, mode: int) -> None:
    target = tmp_path / "results" / "result.json"
    code = (
        f"import os; os.umask({umask}); from pathlib import Path; "
        "from polybench.atomic import atomic_write_text; "
        f"atomic_write_text(Path({str(target)!r}), '{{}}')"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=600)
    assert stat.S_IMODE(target.stat().st_mode) == mode
    assert target.read_text() == "{}"


def test_a_rewrite_replaces_the_whole_file(tmp_path: Path) -> None:
    target = tmp_path / "report.json"
    atomic_write_text(target, "a much longer first version\n")
    atomic_write_text(target, "short\n")
    assert target.read_text() == "short\n"
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]


def test_a_failed_write_leaves_the_old_file_and_no_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "report.json"
    atomic_write_text(target, "old\n")

    def disk_full(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("polybench.atomic.os.fsync", disk_full)
    with pytest.raises(OSError, match="No space left"):
        atomic_write_bytes(target, b"new")
    assert target.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]
