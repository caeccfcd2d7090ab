"""The conformance checks of the sandbox as a boundary: what hostile code under test tries.

Each check runs the probe a hostile patch would (keep a capability, mount, write outside
its checkout, reach a socket, look for the harness's files) and fails when it works. On
a sandbox whose isolation is ``none`` nothing is tried (the probes would act on this
machine itself): every check fails at once, since such a sandbox is not a boundary.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shlex
import socket
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

from polybench.environments.hiding import package_paths
from polybench.environments.integrity import manifest_path, verify
from polybench.environments.probe import CheckFailed, CheckSkipped, Probe, expect
from polybench.paths import cache_root

ALLOWED_CAPABILITIES = {0: "CHOWN", 1: "DAC_OVERRIDE", 3: "FOWNER", 4: "FSETID", 5: "KILL",
                        6: "SETGID", 7: "SETUID"}  # fmt: skip
"""Capabilities a sandbox may keep (a container's root owning its own files and
processes); any other one, in any set, fails the check."""
_CAP_SETS = ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb")
WRITE_TARGETS = ("/", "/usr", "/usr/local", "/etc", "/root", "/home", "/opt", "/var", "/srv",
                 "/mnt", "/run")  # fmt: skip
"""Folders outside the checkout and scratch folder a hostile command writes into."""
HOST_SOCKETS = ("/var/run/docker.sock", "/run/docker.sock", "/run/containerd/containerd.sock",
                "/run/podman/podman.sock", "/var/run/dbus/system_bus_socket",
                "/run/user/0/bus")  # fmt: skip
"""Where the engines and buses of a machine listen."""


def _not_isolated(probe: Probe) -> None:
    if probe.sandbox.isolation == "none":
        raise CheckFailed("the sandbox is not isolated: code under test runs on this machine")


def _shell(probe: Probe, script: str, timeout: float = 300) -> str:
    result = probe.sandbox.exec(["sh", "-c", script], timeout=timeout)
    expect(not result.timed_out, f"the probe did not finish in {timeout:g} s")
    return result.output


def check_capabilities(probe: Probe) -> str:
    """No capability beyond owning its own files and processes, in any set; no new
    privileges (set-user-id programs give nothing back)."""
    _not_isolated(probe)
    status = _shell(probe, "cat /proc/self/status")
    fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
    found: list[str] = []
    for name in _CAP_SETS:
        value = int(fields.get(name, "0").strip() or "0", 16)
        extra = [bit for bit in range(64) if value >> bit & 1 and bit not in ALLOWED_CAPABILITIES]
        if extra:
            found.append(f"{name} has capability bit(s) {extra}")
    expect(not found, "; ".join(found))
    expect(fields.get("NoNewPrivs", "").strip() == "1", "no_new_privs is not set")
    seccomp = fields.get("Seccomp", "?").strip()
    return f"no capability left; no new privileges; seccomp mode {seccomp}"


_MOUNT_PROBES = (
    ("mount a file system", "mount", 'mount -t tmpfs polybench "$pb_dir"'),
    ("remount a read-only folder writable", "mount",
     "[ ! -w /usr ] && mount -o remount,bind,rw /usr"),
    ("make a mount namespace", "unshare", "unshare -m true"),
    ("make a user namespace", "unshare", "unshare -U true"),
    ("change root", "chroot", "chroot / true"),
)  # fmt: skip
"""Probes that leave nothing behind if they work (a file system mounted on the scratch
folder is unmounted at once); none binds a host folder anywhere a cleanup could follow."""


def check_mounts(probe: Probe) -> str:
    """Mounting, remounting, binding, new namespaces and ``chroot`` are refused."""
    _not_isolated(probe)
    box = probe.sandbox
    folder = shlex.quote(f"{box.scratch_dir}/polybench-mount-probe")
    lines = [f"pb_dir={folder}", 'mkdir -p "$pb_dir"']
    for index, (_, tool, command) in enumerate(_MOUNT_PROBES):
        lines.append(
            f"if command -v {tool} >/dev/null 2>&1; then if {command} >/dev/null 2>&1; "
            f'then echo "worked {index}"; umount "$pb_dir" >/dev/null 2>&1; '
            f'else echo "refused {index}"; fi; fi'
        )
    said = [line.split() for line in _shell(probe, "\n".join(lines)).splitlines()]
    said = [w for w in said if len(w) == 2 and w[0] in ("worked", "refused") and w[1].isdigit()]
    worked = [_MOUNT_PROBES[int(n)][0] for kind, n in said if kind == "worked"]
    tried = len(said)
    expect(not worked, f"code under test could {', '.join(worked)}")
    if tried == 0:
        raise CheckSkipped("no mount, unshare or chroot program in the sandbox to try")
    return f"{tried} attempts refused"


def _environment_folders(probe: Probe) -> list[str]:
    """Folders of the sandbox's environment: ``PATH`` entries outside the checkout and
    scratch folder, and the environment's own folder."""
    box = probe.sandbox
    folders: list[str] = []
    if probe.ready is not None:
        env = probe.ready.environment.exec_env(box.workdir)
        for entry in env.get("PATH", "").split(os.pathsep):
            if entry.startswith("/") and not entry.startswith((box.workdir, box.scratch_dir)):
                folders.append(entry)
        if probe.ready.environment.env_dir is not None:
            folders.append(str(probe.ready.environment.env_dir))
    return list(dict.fromkeys(folders))


def check_writes(probe: Probe) -> str:
    """What a command writes outside its checkout and scratch folder (system folders,
    home folders, the environment) is seen neither by this machine nor by the next
    sandbox of the same instance, and the prepared environment is unchanged."""
    _not_isolated(probe)
    name = f".polybench-write-probe-{secrets.token_hex(6)}"
    targets = [*WRITE_TARGETS, *_environment_folders(probe)]
    written = [f"{folder.rstrip('/')}/{name}" for folder in targets]
    script = "\n".join(f"echo x > {shlex.quote(path)} 2>/dev/null" for path in written)
    _shell(probe, script + "\ntrue")
    on_host = [path for path in written if os.path.lexists(path)]
    for path in on_host:
        with contextlib.suppress(OSError):
            os.unlink(path)
    expect(not on_host, f"written on this machine: {on_host[:3]}")
    seen_next = _seen_in_next_sandbox(probe, written)
    expect(not seen_next, f"seen by the next sandbox: {seen_next[:3]}")
    detail = f"{len(targets)} folders tried"
    env_dir = probe.ready.environment.env_dir if probe.ready is not None else None
    if env_dir is not None and manifest_path(env_dir).exists():
        found = verify(env_dir)
        expect(found.ok, f"the prepared environment changed: {found.describe()}")
        detail += "; the prepared environment is unchanged"
    return detail


def _seen_in_next_sandbox(probe: Probe, paths: list[str]) -> list[str]:
    if probe.provider is None:
        return []
    ready = probe.provider.provide(probe.instance)
    try:
        script = "; ".join(f"[ -e {shlex.quote(p)} ] && echo {shlex.quote(p)}" for p in paths)
        result = ready.sandbox.exec(["sh", "-c", script + "; true"], timeout=120)
        return [line for line in result.output.splitlines() if line in paths]
    finally:
        ready.sandbox.cleanup()


@contextlib.contextmanager
def _host_listeners() -> Iterator[tuple[list[str], int, str]]:
    """A Unix socket in a folder of this machine (``/run`` when it can be written), a TCP
    port on its loopback, and an abstract socket: what a daemon of this machine offers."""
    sockets: list[socket.socket] = []
    paths: list[str] = []
    folders = [tempfile.mkdtemp(prefix="polybench-sockets-")]
    if os.access("/run", os.W_OK):
        folders.append(tempfile.mkdtemp(prefix="polybench-sockets-", dir="/run"))
    try:
        for folder in folders:
            os.chmod(folder, 0o755)
            listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            path = os.path.join(folder, "daemon.sock")
            listener.bind(path)
            os.chmod(path, 0o777)
            listener.listen(4)
            sockets.append(listener)
            paths.append(path)
        tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        tcp.bind(("127.0.0.1", 0))
        tcp.listen(4)
        sockets.append(tcp)
        abstract_name = f"polybench-conformance-{secrets.token_hex(6)}"
        abstract = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        abstract.bind("\0" + abstract_name)
        abstract.listen(4)
        sockets.append(abstract)
        yield paths, int(tcp.getsockname()[1]), abstract_name
    finally:
        for opened in sockets:
            opened.close()
        for folder in folders:
            with contextlib.suppress(OSError):
                for entry in os.listdir(folder):
                    os.unlink(os.path.join(folder, entry))
                os.rmdir(folder)


def check_sockets(probe: Probe) -> str:
    """No socket of this machine is reachable: none of its engines' or buses' sockets is
    visible, no socket file at all outside the scratch folder, and (without the network)
    neither its loopback ports nor its abstract sockets answer."""
    _not_isolated(probe)
    box = probe.sandbox
    with _host_listeners() as (paths, port, abstract):
        visible = " ".join(shlex.quote(p) for p in (*HOST_SOCKETS, *paths))
        scratch = shlex.quote(box.scratch_dir)
        script = (
            f'for p in {visible}; do [ -e "$p" ] && echo "visible $p"; done\n'
            "find / \\( -path /proc -o -path /sys -o -path /dev -o -path "
            f"{scratch} \\) -prune -o -type s -print 2>/dev/null | sed 's/^/socket /'\n"
        )
        if not probe.allow_network:
            script += (
                "if command -v bash >/dev/null 2>&1 && bash -c "
                f"'exec 3<>/dev/tcp/127.0.0.1/{port}' 2>/dev/null; then echo 'tcp reached'; fi\n"
                "if command -v python3 >/dev/null 2>&1 && python3 -c "
                f"\"import socket; socket.socket(socket.AF_UNIX).connect('\\0{abstract}')\""
                " 2>/dev/null; then echo 'abstract reached'; fi\n"
            )
        out = _shell(probe, script + "true")
    found = [line for line in out.splitlines() if line.split(" ", 1)[0] in
             ("visible", "socket", "tcp", "abstract")]  # fmt: skip
    expect(not found, f"reachable: {found[:5]}")
    return "no socket of this machine reachable"


def _harness_sentinels(probe: Probe) -> list[Path]:
    """Paths of the harness that code under test must not see."""
    sentinels: list[Path] = []
    package, *source = package_paths()
    sentinels += [package / "__init__.py", package / "dataset"]
    for tree in source:
        sentinels += [tree / ".git", tree / "pyproject.toml", tree / "src"]
    root = cache_root()
    sentinels += [root / "repos", root / "keys", root / "builtin", root / "docker"]
    settings = probe.settings
    meant = probe.ready.environment.read_only_paths if probe.ready is not None else []
    if settings is not None:
        for folder in (settings.work_dir, settings.repo_dir, *settings.hide):
            if folder is None:
                continue
            path = Path(folder).resolve()
            # A folder holding what the sandbox is meant to see (the cache holds the
            # environment) shows as its parent; its answer-holding parts are listed above.
            if not any(path == m.resolve() or path in m.resolve().parents for m in meant):
                sentinels.append(path)
    return list(dict.fromkeys(p for p in sentinels if p.exists()))


def check_harness_paths(probe: Probe) -> str:
    """None of the harness's folders (cache, clones, run and work folders, the package
    with its built-in answers, the source tree it came from) is visible, and no git
    directory but the checkout's own."""
    _not_isolated(probe)
    box = probe.sandbox
    sentinels = _harness_sentinels(probe)
    lines = [
        f'[ -e {shlex.quote(str(path))} ] && [ -n "$(ls -A {shlex.quote(str(path))} '
        f'2>/dev/null)" -o -f {shlex.quote(str(path))} ] && echo "visible {path}"'
        for path in sentinels
    ]
    lines.append(
        "find / \\( -path /proc -o -path /sys -o -path /dev \\) -prune -o -name .git -print "
        "2>/dev/null | sed 's/^/git /'"
    )
    out = _shell(probe, "\n".join([*lines, "true"]), timeout=600)
    own = f"{box.workdir.rstrip('/')}/.git"
    found = [
        line for line in out.splitlines()
        if line.startswith("visible ") or (line.startswith("git ") and line[4:] != own)
    ]  # fmt: skip
    expect(not found, f"visible: {found[:5]}")
    return f"{len(sentinels)} harness paths absent; the only git directory is the checkout's"


BOUNDARY_CHECKS: dict[str, Callable[[Probe], str]] = {
    "boundary-capabilities": check_capabilities,
    "boundary-mounts": check_mounts,
    "boundary-writes": check_writes,
    "boundary-sockets": check_sockets,
    "boundary-harness-paths": check_harness_paths,
}
"""The boundary checks, in the order they run (after the contract's)."""
