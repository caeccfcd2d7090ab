"""The files an agent command leaves in its output folder, copied out of the sandbox.

A command-line agent writes its own record of the work (a trajectory, a chat log) where
it is told: ``POLYBENCH_OUTPUT_DIR``, a folder in the sandbox's scratch space. When the
command has ended, :func:`collect_outputs` copies the regular files found there into the
run folder, so they outlive the sandbox. What the command wrote is untrusted: links are
not followed, names must be plain relative paths, and the number and size of files are
capped (what is left out is listed in ``SKIPPED.txt``).
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field
from pathlib import Path

from polybench.atomic import atomic_write_text
from polybench.sandbox.base import Sandbox, SandboxError

MAX_FILES = 200
MAX_TOTAL_BYTES = 64 * 1024 * 1024
LIST_TIMEOUT = 120.0


@dataclass
class CollectedOutputs:
    """What :func:`collect_outputs` copied (paths relative to the folder) and left out."""

    files: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


def _plain(name: str) -> bool:
    parts = name.split("/")
    return (
        bool(name)
        and all(part not in ("", ".", "..") for part in parts)
        and (name.isprintable() and posixpath.normpath(name) == name)
    )


def collect_outputs(sandbox: Sandbox, inside: str, target: Path) -> CollectedOutputs:
    """Copy the regular files under ``inside`` (a folder in ``sandbox``) into ``target``
    (made only when there is something to copy)."""
    done = CollectedOutputs()
    listed = sandbox.exec(
        ["find", inside, "-type", "f", "-printf", "%s %P\\0"], timeout=LIST_TIMEOUT
    )
    if not listed.ok:
        return done
    total = 0
    for entry in listed.output.split("\0"):
        size_text, _, name = entry.partition(" ")
        if not entry or not size_text.isdigit():
            continue
        size = int(size_text)
        if not _plain(name):
            done.skipped.append(f"{name!r}: not a plain relative name")
        elif len(done.files) >= MAX_FILES:
            done.skipped.append(f"{name}: more than {MAX_FILES} files")
        elif total + size > MAX_TOTAL_BYTES:
            done.skipped.append(f"{name}: over {MAX_TOTAL_BYTES} bytes in all")
        else:
            try:
                data = sandbox.read_file(f"{inside}/{name}")
            except (OSError, SandboxError) as exc:
                done.skipped.append(f"{name}: {exc}")
                continue
            if total + len(data) > MAX_TOTAL_BYTES:
                done.skipped.append(f"{name}: over {MAX_TOTAL_BYTES} bytes in all")
                continue
            total += len(data)
            destination = target / name
            destination.parent.mkdir(parents=True, exist_ok=True)
            destination.write_bytes(data)
            done.files.append(name)
    if done.skipped:
        atomic_write_text(target / "SKIPPED.txt", "".join(f"{s}\n" for s in done.skipped))
    return done
