"""Reading files at a commit through one ``git cat-file --batch`` process."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from polybench.metrics.blobs import BlobReader

FILES = {
    "a.txt": "alpha\n",
    "dir with space/b c.txt": "bravo\n",
    "bin.dat": "\x00\x01\x02 binary\n",
    "empty.txt": "",
}


def test_reads_files_and_reports_missing_ones(make_repo) -> None:  # type: ignore[no-untyped-def]
    repo, commit = make_repo(FILES)
    with BlobReader(repo) as reader:
        assert reader.read(commit, "a.txt") == b"alpha\n"
        assert reader.read(commit, "dir with space/b c.txt") == b"bravo\n"
        assert reader.read(commit, "bin.dat") == b"\x00\x01\x02 binary\n"
        assert reader.read(commit, "empty.txt") == b""
        assert reader.read(commit, "nope.txt") is None
        assert reader.read(commit, "nope missing.txt") is None
        assert reader.read(commit, "dir with space") is None  # a tree, not a file
        assert reader.read("0" * 40, "a.txt") is None  # unknown commit
        assert reader.read(commit, "a\nb") is None
        assert reader.read(commit, "a.txt") == b"alpha\n"  # still in step after misses


def test_one_process_shared_by_threads(make_repo) -> None:  # type: ignore[no-untyped-def]
    files = {f"f{n}.txt": f"content {n}\n" * (n + 1) for n in range(40)}
    repo, commit = make_repo(files)
    reader = BlobReader(repo)
    try:
        with ThreadPoolExecutor(8) as pool:
            got = list(pool.map(lambda name: reader.read(commit, name), list(files) * 5))
        assert got == [content.encode() for content in files.values()] * 5
        process = reader._process
        assert process is not None and process.poll() is None
        reader.read(commit, "f1.txt")
        assert reader._process is process  # the same long-lived process
    finally:
        reader.close()
    assert process.poll() is not None


def test_restarts_after_the_process_dies(make_repo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    repo, commit = make_repo({"a.txt": "alpha\n"})
    reader = BlobReader(repo)
    try:
        assert reader.read(commit, "a.txt") == b"alpha\n"
        assert reader._process is not None
        reader._process.kill()
        reader._process.wait()
        assert reader.read(commit, "a.txt") == b"alpha\n"
    finally:
        reader.close()
