"""The seccomp filter of local sandboxes: the system calls code under test never needs.

Under bubblewrap every command runs with this filter (``bwrap --seccomp FD``). It refuses
what could undo or see past the sandbox (mounting, unmounting, changing root, entering or
creating namespaces, tracing other processes, reading their memory), the kernel's shared
state that outlives a command (key rings), and kernel interfaces with a history of
escapes that tests do not use (BPF, perf events, userfaultfd, io_uring, module loading).
The other layers (no capabilities, an unprivileged user, no new privileges) already deny
most of these; the filter makes the refusal independent of them.

``clone3`` answers ``ENOSYS`` (the C library then falls back to ``clone``, whose flags a
filter can read); ``clone`` with a namespace flag answers ``EPERM``. System calls of a
foreign ABI (32-bit calls on a 64-bit kernel) answer ``ENOSYS``. The program is compiled
by libseccomp (through ``pyseccomp``); where that library is missing, sandboxes run
without a filter and say so.
"""

from __future__ import annotations

import errno
import functools
import tempfile
from typing import Any

REFUSED_CALLS = (
    # the file system's shape
    "mount", "umount2", "pivot_root", "chroot", "move_mount", "open_tree", "fsopen",
    "fsconfig", "fsmount", "fspick", "mount_setattr",
    # namespaces
    "unshare", "setns",
    # other processes
    "ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd", "kcmp",
    # kernel state shared beyond the command
    "keyctl", "add_key", "request_key", "acct", "swapon", "swapoff", "reboot", "syslog",
    "quotactl", "sethostname", "setdomainname", "settimeofday", "clock_settime",
    "clock_adjtime", "adjtimex",
    # kernel interfaces tests do not need
    "bpf", "perf_event_open", "userfaultfd", "init_module", "finit_module", "delete_module",
    "kexec_load", "kexec_file_load", "open_by_handle_at", "name_to_handle_at", "iopl",
    "ioperm", "lookup_dcookie", "uselib", "vhangup",
)  # fmt: skip
"""Calls answered with ``EPERM``."""

UNAVAILABLE_CALLS = ("clone3", "io_uring_setup", "io_uring_enter", "io_uring_register")
"""Calls answered with ``ENOSYS``, so that callers fall back to an older interface."""

NAMESPACE_FLAGS = (
    0x00000080,  # CLONE_NEWTIME
    0x00020000,  # CLONE_NEWNS
    0x02000000,  # CLONE_NEWCGROUP
    0x04000000,  # CLONE_NEWUTS
    0x08000000,  # CLONE_NEWIPC
    0x10000000,  # CLONE_NEWUSER
    0x20000000,  # CLONE_NEWPID
    0x40000000,  # CLONE_NEWNET
)
"""``clone`` flags that make a new namespace: such a ``clone`` answers ``EPERM``."""


@functools.cache
def filter_program() -> bytes | None:
    """The compiled BPF program (for ``bwrap --seccomp``), or None without libseccomp."""
    try:
        import pyseccomp as seccomp
    except (ImportError, OSError):
        return None
    try:
        rules = seccomp.SyscallFilter(seccomp.ALLOW)
        rules.set_attr(seccomp.Attr.ACT_BADARCH, seccomp.ERRNO(errno.ENOSYS))
        for name in REFUSED_CALLS:
            _add(rules, seccomp.ERRNO(errno.EPERM), name)
        for name in UNAVAILABLE_CALLS:
            _add(rules, seccomp.ERRNO(errno.ENOSYS), name)
        for flag in NAMESPACE_FLAGS:
            rules.add_rule(
                seccomp.ERRNO(errno.EPERM),
                "clone",
                seccomp.Arg(0, seccomp.MASKED_EQ, flag, flag),
            )
        with tempfile.TemporaryFile() as handle:
            rules.export_bpf(handle)
            handle.seek(0)
            return handle.read()
    except (OSError, RuntimeError, ValueError):
        return None


def _add(rules: Any, action: int, name: str) -> None:
    """Add one rule; a call this machine's architecture does not have is skipped."""
    try:
        rules.add_rule(action, name)
    except (OSError, RuntimeError, ValueError):
        return
