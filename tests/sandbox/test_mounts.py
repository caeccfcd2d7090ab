"""The path arithmetic of the mount plan: a folder's contents, and nothing beside it."""

from __future__ import annotations

from itertools import product
from pathlib import Path

from polybench.sandbox.mounts import is_within

PATHS = ["/", "/a", "/a/b", "/ab", "/a/bc", "/a/b/c", "/usr", "/usr/lib", "/us", "/usr/lib64"]


def test_a_path_is_within_a_folder_when_it_is_the_folder_or_below_it() -> None:
    for path, folder in product(map(Path, PATHS), repeat=2):
        expected = path == folder or folder in path.parents
        assert is_within(path, folder) is expected, (path, folder)
    # A shared prefix is not enough: /usr/lib64 is beside /usr/lib, not in it.
    assert not is_within(Path("/usr/lib64"), Path("/usr/lib"))
    assert is_within(Path("/usr/lib/x"), Path("/usr/lib"))
    assert all(is_within(Path(path), Path("/")) for path in PATHS)
