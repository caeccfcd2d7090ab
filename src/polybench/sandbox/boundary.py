"""Who code under test is inside a local sandbox, and what it is refused.

Whoever runs the harness, a command under bubblewrap runs as an unprivileged user with
no capability (effective, permitted, inheritable, ambient and bounding sets all empty),
with ``no_new_privs`` set (no set-user-id program gives any back), in its own mount, PID,
network, IPC and UTS namespaces, under the seccomp filter of
:mod:`polybench.sandbox.seccomp`:

* harness run as root: bubblewrap builds the namespaces as root, then ``setpriv``
  becomes the unprivileged user :data:`SANDBOX_UID` (``nobody``) and drops every
  capability before the command starts. The mount namespace belongs to the host's user
  namespace, so the command can change none of its mounts; files of the host are
  checked against that user's rights (``/etc/shadow`` stays unreadable);
* harness run as another user: bubblewrap makes a user namespace in which that user is
  the only one, drops every capability and forbids further user namespaces.

:func:`current_boundary` says which of these this machine gives, and what is missing.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field

from polybench.sandbox.seccomp import filter_program

SANDBOX_UID = 65534
"""The user (and group) a root-run harness's sandboxes run as: ``nobody``."""
ROOT_NAMESPACES = ("--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try")
"""Namespaces every sandbox gets (the network one is added unless the network is allowed)."""
_KEPT_FOR_SETPRIV = ("CAP_SETUID", "CAP_SETGID", "CAP_SETPCAP")
"""What bubblewrap leaves ``setpriv`` (root harness) so that it can change user and
clear the bounding set; ``setpriv`` then drops them with everything else."""


@dataclass(frozen=True)
class Boundary:
    """How local sandboxes are isolated on this machine.

    ``mode`` is ``setpriv`` (harness run as root) or ``userns``; ``layers`` names each
    layer for ``run.json``; ``missing`` names the layers this machine cannot give.
    """

    mode: str
    bwrap: str
    setpriv: str | None
    uid: int
    gid: int
    seccomp: bytes | None
    version: tuple[int, ...]
    layers: tuple[str, ...] = ()
    missing: tuple[str, ...] = field(default=())

    @property
    def overlays(self) -> bool:
        """True when this bubblewrap can give a sandbox a throw-away writable overlay."""
        return self.version >= (0, 9, 0)

    def identity_arguments(self) -> list[str]:
        """bubblewrap arguments that set the user and drop capabilities (before ``--``)."""
        if self.mode == "setpriv":
            args = ["--cap-drop", "ALL"]
            for capability in _KEPT_FOR_SETPRIV:
                args += ["--cap-add", capability]
            return args
        args = ["--unshare-user", "--uid", str(self.uid), "--gid", str(self.gid)]
        if self.version >= (0, 8, 0):
            args.append("--disable-userns")
        return [*args, "--cap-drop", "ALL"]

    def command_prefix(self) -> list[str]:
        """What runs first inside the sandbox (after ``--``), ahead of the command."""
        if self.mode != "setpriv" or self.setpriv is None:
            return []
        uid, gid = str(self.uid), str(self.gid)
        return [
            self.setpriv, f"--reuid={uid}", f"--regid={gid}", "--clear-groups",
            "--inh-caps=-all", "--ambient-caps=-all", "--bounding-set=-all",
            "--no-new-privs", "--",
        ]  # fmt: skip


def _version(binary: str) -> tuple[int, ...]:
    try:
        completed = subprocess.run(
            [binary, "--version"], capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return ()
    match = re.search(r"(\d+)\.(\d+)(?:\.(\d+))?", completed.stdout)
    return tuple(int(part) for part in match.groups(default="0")) if match else ()


@functools.cache
def current_boundary() -> Boundary | None:
    """The boundary bubblewrap can build here (None without ``bwrap``).

    Whether it actually starts is :func:`polybench.sandbox.local.bubblewrap_available`'s
    question: it runs a command inside.
    """
    binary = shutil.which("bwrap")
    if binary is None:
        return None
    program = filter_program()
    layers = ["allow-list mounts", "pid, ipc, uts and network namespaces", "no capabilities"]
    layers.append("no new privileges")
    missing: list[str] = []
    if program is not None:
        layers.append("seccomp filter")
    else:
        missing.append("seccomp filter (libseccomp is not installed)")
    version = _version(binary)
    setpriv = shutil.which("setpriv")
    if os.geteuid() == 0 and setpriv is not None:
        layers.insert(1, f"unprivileged user {SANDBOX_UID}")
        return Boundary("setpriv", binary, setpriv, SANDBOX_UID, SANDBOX_UID, program,
                        version, tuple(layers), tuple(missing))  # fmt: skip
    if os.geteuid() == 0:
        missing.append("setpriv (util-linux): the sandbox user maps to root outside")
    layers.insert(1, "user namespace")
    uid, gid = (SANDBOX_UID, SANDBOX_UID) if os.geteuid() == 0 else (os.geteuid(), os.getegid())
    return Boundary("userns", binary, None, uid, gid, program, version, tuple(layers),
                    tuple(missing))  # fmt: skip
