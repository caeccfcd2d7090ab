"""Any command-line agent, run as one command inside an instance's sandbox.

The command gets the sandbox the built-in agent gets (base commit, pruned history,
environment activated, answers hidden, network off) and talks to the model through the
harness's :class:`~polybench.agent.proxy.MeteringProxy`, which holds the real key and
counts the tokens of this instance's own proxy token. It sees these variables:

``OPENAI_BASE_URL``
    the proxy's URL for this instance (``.../i/<token>/v1``);
``OPENAI_API_KEY``
    the per-instance proxy token (never the real key);
``POLYBENCH_MODEL``, ``POLYBENCH_INSTANCE_ID``
    the model name and the instance;
``POLYBENCH_PROBLEM_FILE``
    the problem statement, as a file in the sandbox's scratch folder;
``POLYBENCH_OUTPUT_DIR``
    an empty folder for the agent's own records (trajectories, logs), copied into the
    run folder when the command ends (:mod:`polybench.agent.outputs`).

How the command reaches the proxy depends on the sandbox. A sandbox with a network of its
own (bubblewrap, Docker: only a loopback) gets the proxy on a Unix socket in a folder it
can reach (:class:`~polybench.sandbox.base.SocketReach`: the scratch folder, or a
container's read-only channel folder), and :mod:`polybench.agent.relay` (run inside with
this machine's Python, or the image's ``python3`` where this machine's cannot run) turns
a port of that loopback into a path to it: nothing else is reachable. Without isolation
the command shares this machine's network and calls the proxy's TCP port directly (it
can then reach any other address too). Sandboxes with neither are refused.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field, replace
from importlib import resources
from pathlib import Path

from polybench.agent.outputs import collect_outputs
from polybench.agent.proxy import MeteringProxy, ProxyUsage, UnixListener
from polybench.agent.settings import AgentSettings
from polybench.atomic import atomic_write_text
from polybench.dataset.models import Instance
from polybench.environments.provider import ReadySandbox
from polybench.environments.toolchains import python_home
from polybench.sandbox.base import Sandbox, SandboxError, SocketReach

RELAY_PORT = 18000
"""The port the relay listens on, on the sandbox's own loopback (free: the namespace is new)."""
TAIL_CHARS = 2000
"""How much of a failed command's output its record's reason quotes."""
COMMAND_ISOLATIONS = ("bubblewrap", "none", "docker")
"""Sandbox isolations an agent command can reach the proxy from."""
OUTPUT_FOLDER = "output"
"""``POLYBENCH_OUTPUT_DIR``, under the sandbox's ``<scratch>/agent``."""
# Makes the output folder, then runs the command as ``bash -c`` would.
_START = 'mkdir -p -- "$POLYBENCH_OUTPUT_DIR" || exit 126; exec bash -c "$0"'
# Runs the relay with this machine's Python when it starts in the sandbox, else python3.
_RELAY_STARTER = 'if "$0" -c "" 2>/dev/null; then exec "$0" "$@"; fi; exec python3 "$@"'


def relay_python() -> str:
    """The interpreter that runs the relay inside sandboxes: this machine's Python."""
    return os.path.realpath(sys.executable)


def relay_mounts() -> list[Path]:
    """What a sandbox must see read-only for :func:`relay_python` to run there (its
    installation; the harness's own package inside it stays masked)."""
    home = python_home(relay_python())
    return [home] if home is not None else []


@dataclass(frozen=True)
class CommandEnding:
    """How the command ended: ``submitted`` (exit status 0), ``agent_failed`` or
    ``time_limit``; ``usage`` is what the proxy counted for its token; ``outputs`` the
    files copied from its output folder."""

    exit_status: str
    reason: str
    exit_code: int | None
    usage: ProxyUsage
    output: str
    outputs: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class _Route:
    argv: list[str]
    base_url: str
    listener: UnixListener | None


class CommandAgent:
    """Runs ``command`` in each sandbox it is given, metered by ``proxy`` (already started)."""

    def __init__(self, command: str, settings: AgentSettings, proxy: MeteringProxy) -> None:
        if not command.strip():
            raise ValueError("the agent command is empty")
        self.command = command
        self.settings = settings
        self.proxy = proxy

    def run(
        self,
        ready: ReadySandbox,
        instance: Instance,
        env: dict[str, str],
        log_path: Path,
        output_dir: Path | None = None,
    ) -> CommandEnding:
        """Run the command once in ``ready``'s repository with ``env`` plus the agent's
        variables; its combined output goes to ``log_path``, the files it left in its
        output folder to ``output_dir`` (None: they are not kept). Raises
        :class:`SandboxError` when the sandbox cannot reach the proxy or fails itself."""
        ending = self._run(ready, instance, env, log_path)
        if output_dir is None:
            return ending
        inside = f"{ready.sandbox.scratch_dir}/agent/{OUTPUT_FOLDER}"
        collected = collect_outputs(ready.sandbox, inside, output_dir)
        return replace(ending, outputs=collected.files)

    def _run(
        self, ready: ReadySandbox, instance: Instance, env: dict[str, str], log_path: Path
    ) -> CommandEnding:
        sandbox = ready.sandbox
        token = self.proxy.register()
        listener: UnixListener | None = None
        try:
            folder = f"{sandbox.scratch_dir}/agent"
            problem_file = f"{folder}/problem_statement.md"
            sandbox.write_file(problem_file, instance.problem_statement)
            route = self._route(sandbox, token)
            listener = route.listener
            variables = {
                **env,
                "OPENAI_BASE_URL": route.base_url,
                "OPENAI_API_KEY": token,
                "POLYBENCH_MODEL": self.settings.model,
                "POLYBENCH_PROBLEM_FILE": problem_file,
                "POLYBENCH_INSTANCE_ID": instance.instance_id,
                "POLYBENCH_OUTPUT_DIR": f"{folder}/{OUTPUT_FOLDER}",
            }
            result = sandbox.exec(
                route.argv,
                timeout=self.settings.wall_clock_seconds,
                env=variables,
                cwd=sandbox.workdir,
            )
        finally:
            if listener is not None:
                listener.close()
            usage = self.proxy.retire(token)
        atomic_write_text(log_path, result.output)
        if result.timed_out:
            limit = self.settings.wall_clock_seconds
            return CommandEnding(
                "time_limit",
                f"the command was still running at the wall-clock limit of {limit:g} s",
                None,
                usage,
                result.output,
            )
        if result.exit_code == 0:
            return CommandEnding("submitted", "the command exited 0", 0, usage, result.output)
        tail = result.output[-TAIL_CHARS:].strip()
        said = f"its output ends with:\n{tail}" if tail else "it printed nothing"
        return CommandEnding(
            "agent_failed",
            f"the command exited with status {result.exit_code}; {said}",
            result.exit_code,
            usage,
            result.output,
        )

    def _route(self, sandbox: Sandbox, token: str) -> _Route:
        command = ["bash", "-c", _START, self.command]
        if sandbox.isolation == "none":
            return _Route(command, self.proxy.base_url_for(token), None)
        reach = sandbox.socket_folder() if isinstance(sandbox, SocketReach) else None
        if reach is None:
            raise SandboxError(
                f"an agent command cannot reach the metering proxy from a {sandbox.isolation} "
                f"sandbox (it runs in {', '.join(COMMAND_ISOLATIONS)} sandboxes)"
            )
        host_folder, inside_folder = reach
        relay = f"{sandbox.scratch_dir}/agent/relay.py"
        source = resources.files("polybench.agent").joinpath("relay.py").read_text("utf-8")
        sandbox.write_file(relay, source)
        listener = self.proxy.listen_unix(str(host_folder / "proxy.sock"))
        relayed = ["-I", relay, str(RELAY_PORT), f"{inside_folder}/proxy.sock", "--", *command]
        argv = ["/bin/sh", "-c", _RELAY_STARTER, relay_python(), *relayed]
        return _Route(argv, f"http://127.0.0.1:{RELAY_PORT}/i/{token}/v1", listener)
