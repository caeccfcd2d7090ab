"""An agent command in a real local sandbox, metered by the proxy: its variables, its way
to the model (and no other), how it ends, and the runs that are refused."""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest

from polybench.agent.command import CommandAgent, relay_mounts
from polybench.agent.proxy import MeteringProxy
from polybench.agent.runner import (
    AgentInputError,
    AgentRunConfig,
    isolation_of,
    network_of,
    run_agents,
)
from polybench.agent.settings import AgentSettings
from polybench.dataset.models import Instance
from polybench.environments.provider import ReadySandbox
from polybench.sandbox.base import SandboxError
from polybench.sandbox.local import LocalSandbox, bubblewrap_available
from tests.agent.fake_chat import Reply, ScriptedChatServer

REAL_KEY = "sk-command-test-real-key"
PROBLEM = "greet() should say Hi instead of Hello."

# Asks the model once with urllib, prints what it was given and the answer, edits a file.
ASK = """
import json, os, socket, urllib.request
for name, value in sorted(os.environ.items()):
    print("env " + name + "=" + value)
print("problem=" + open(os.environ["POLYBENCH_PROBLEM_FILE"]).read())
host, port = os.environ["PB_UPSTREAM"].split(":")
try:
    socket.create_connection((host, int(port)), timeout=3).close()
    print("direct=reachable")
except OSError:
    print("direct=unreachable")
request = urllib.request.Request(
    os.environ["OPENAI_BASE_URL"] + "/chat/completions",
    data=json.dumps({"model": os.environ["POLYBENCH_MODEL"], "messages": []}).encode(),
    headers={"Content-Type": "application/json",
             "Authorization": "Bearer " + os.environ["OPENAI_API_KEY"]},
)
answer = json.load(urllib.request.urlopen(request, timeout=30))
print("answer=" + answer["choices"][0]["message"]["content"])
open("greet.py", "w").write("def greet(name):\\n    return 'Hi ' + name\\n")
"""


@pytest.fixture
def upstream() -> Iterator[ScriptedChatServer]:
    server = ScriptedChatServer([], responder=lambda body: Reply(content="ok", usage=(50, 5, 10)))
    server.start()
    yield server
    server.stop()


@pytest.fixture
def proxy(upstream: ScriptedChatServer) -> Iterator[MeteringProxy]:
    with MeteringProxy(upstream.base_url, REAL_KEY) as running:
        yield running


def make_ready(repo: Path, tmp_path: Path, isolation: str) -> ReadySandbox:
    commit = (repo / ".git" / "HEAD").read_text().strip()
    if commit.startswith("ref:"):
        commit = (repo / ".git" / commit.split()[1]).read_text().strip()
    sandbox = LocalSandbox.create(
        repo,
        commit,
        parent=tmp_path / "sandboxes",
        isolation=isolation,
        read_only_paths=tuple(relay_mounts()),
    )
    # Only the sandbox is used by the command agent; no environment is needed here.
    return ReadySandbox(sandbox=sandbox, environment=cast(Any, None))


def instance() -> Instance:
    return Instance.model_validate(
        {
            "instance_id": "acme__greet-1",
            "repo": "acme/greet",
            "base_commit": "0" * 40,
            "patch": "",
            "test_patch": "",
            "problem_statement": PROBLEM,
            "language": "Python",
            "F2P": [],
            "P2P": [],
        }
    )


def settings(upstream: ScriptedChatServer, wall_clock: float = 120.0) -> AgentSettings:
    return AgentSettings(
        model="cmd-model", base_url=upstream.base_url, wall_clock_seconds=wall_clock
    )


def ask_command(upstream: ScriptedChatServer) -> str:
    # The interpreter itself, not a venv's link to it: a venv may live under /tmp, which
    # is the sandbox's own (ASK needs only the standard library).
    python = os.path.realpath(sys.executable)
    return (
        f"PB_UPSTREAM={upstream.url.split('//', 1)[1]} {shlex.quote(python)} -c {shlex.quote(ASK)}"
    )


@pytest.mark.parametrize("isolation", ["bubblewrap", "none"])
def test_the_command_gets_its_variables_and_reaches_the_model_only_through_the_proxy(
    isolation: str,
    repo: Path,
    tmp_path: Path,
    upstream: ScriptedChatServer,
    proxy: MeteringProxy,
) -> None:
    if isolation == "bubblewrap" and not bubblewrap_available():
        pytest.skip("bubblewrap cannot run here")
    ready = make_ready(repo, tmp_path, isolation)
    agent = CommandAgent(ask_command(upstream), settings(upstream), proxy)
    log = tmp_path / "logs" / "acme__greet-1.agent.log"
    try:
        ending = agent.run(ready, instance(), {"PATH": "/usr/bin:/bin"}, log)
        changed = (ready.sandbox.read_file("greet.py")).decode()
    finally:
        ready.sandbox.cleanup()
    assert ending.exit_status == "submitted" and ending.exit_code == 0, ending.output
    assert log.read_text() == ending.output
    lines = dict(line.split("=", 1) for line in ending.output.splitlines() if "=" in line)
    token = lines["env OPENAI_API_KEY"]
    assert token and token != REAL_KEY and REAL_KEY not in ending.output
    assert lines["env OPENAI_BASE_URL"].endswith(f"/i/{token}/v1")
    assert lines["env POLYBENCH_MODEL"] == "cmd-model"
    assert lines["env POLYBENCH_INSTANCE_ID"] == "acme__greet-1"
    assert lines["problem"] == PROBLEM
    assert lines["answer"] == "ok"
    # Under bubblewrap the network is off: the proxy is the only way out.
    assert lines["direct"] == ("unreachable" if isolation == "bubblewrap" else "reachable")
    assert upstream.authorizations == [f"Bearer {REAL_KEY}"]
    usage = ending.usage
    assert (usage.calls, usage.input_tokens, usage.output_tokens, usage.cached_tokens) == (
        1,
        50,
        5,
        10,
    )
    assert "Hi " in changed
    with pytest.raises(KeyError):  # the token was retired when the command ended
        proxy.usage_for(token)


def test_a_failing_command_ends_agent_failed_with_its_status_and_output_tail(
    repo: Path, tmp_path: Path, upstream: ScriptedChatServer, proxy: MeteringProxy
) -> None:
    ready = make_ready(repo, tmp_path, "auto")
    command = "echo changed > notes.txt; for i in $(seq 1 500); do echo line $i; done; exit 5"
    agent = CommandAgent(command, settings(upstream), proxy)
    try:
        ending = agent.run(ready, instance(), {}, tmp_path / "fail.log")
        note = ready.sandbox.read_file("notes.txt")
    finally:
        ready.sandbox.cleanup()
    assert ending.exit_status == "agent_failed" and ending.exit_code == 5
    assert "status 5" in ending.reason and ending.reason.rstrip().endswith("line 500")
    assert "line 1\n" not in ending.reason  # only the tail is quoted
    assert note == b"changed\n"
    assert ending.usage.calls == 0


def test_a_command_past_the_wall_clock_ends_time_limit(
    repo: Path, tmp_path: Path, upstream: ScriptedChatServer, proxy: MeteringProxy
) -> None:
    # A loaded machine may spend a short limit on starting the sandbox: longer limits
    # until the command has started, so that what is checked is how the limit ends it.
    for attempt, limit in enumerate((2.0, 20.0, 200.0)):
        ready = make_ready(repo, tmp_path / f"attempt-{attempt}", "auto")
        agent = CommandAgent("echo started; sleep 600", settings(upstream, wall_clock=limit), proxy)
        log = tmp_path / f"slow-{attempt}.log"
        try:
            ending = agent.run(ready, instance(), {}, log)
        finally:
            ready.sandbox.cleanup()
        assert ending.exit_status == "time_limit" and ending.exit_code is None
        if "started" in log.read_text():
            break
    assert "started" in log.read_text()


class _ElsewhereSandbox:
    """A sandbox of another kind (no shared file system with the harness)."""

    isolation = "docker"
    workdir = "/testbed"
    scratch_dir = "/polybench"

    def __init__(self) -> None:
        self.files: dict[str, bytes | str] = {}

    def write_file(self, path: str, data: bytes | str) -> None:
        self.files[path] = data

    def exec(self, *args: object, **kwargs: object) -> None:
        raise AssertionError("nothing may run where the proxy cannot be reached")


def test_a_sandbox_without_a_way_to_the_proxy_is_refused(
    upstream: ScriptedChatServer, proxy: MeteringProxy, tmp_path: Path
) -> None:
    ready = ReadySandbox(sandbox=cast(Any, _ElsewhereSandbox()), environment=cast(Any, None))
    agent = CommandAgent("true", settings(upstream), proxy)
    with pytest.raises(SandboxError, match="cannot reach the metering proxy from a docker"):
        agent.run(ready, instance(), {}, tmp_path / "x.log")


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"agent_command": "   "}, "--agent-command is empty"),
        ({"agent_mounts": ["/usr"]}, "--agent-mount needs --agent-command"),
        ({"agent_command": "true", "agent_mounts": ["/etc/hostname"]}, "not a folder"),
        ({"agent_command": "polybench-no-such-agent --go"}, "'polybench-no-such-agent' is not on"),
        ({"executor": "dask"}, "unknown executor 'dask'"),
        ({"ray_address": "auto"}, "--ray-address needs --executor ray"),
    ],
)
def test_runs_that_cannot_work_are_refused_before_anything_runs(
    overrides: dict[str, object], message: str, tmp_path: Path
) -> None:
    values: dict[str, object] = {
        "agent": AgentSettings(model="m", base_url="http://127.0.0.1:9/v1"),
        "output_dir": tmp_path / "runs",
        **overrides,
    }
    config = AgentRunConfig.model_validate(values)
    with pytest.raises(AgentInputError, match=message):
        run_agents(config)
    assert not (tmp_path / "runs").exists()


def test_the_network_a_command_could_reach_follows_the_isolation() -> None:
    config = AgentRunConfig(
        agent=AgentSettings(model="m"), agent_command="true", backend_options={"isolation": "none"}
    )
    assert isolation_of(config) == "none"
    assert network_of(config, "none").startswith("host")
    boxed = config.model_copy(update={"backend_options": {"isolation": "bubblewrap"}})
    assert isolation_of(boxed) == "bubblewrap"
    assert network_of(boxed, "bubblewrap").startswith("none: the command reaches only")


def test_an_agent_command_in_docker_reaches_only_the_proxy_through_a_mounted_socket() -> None:
    config = AgentRunConfig(agent=AgentSettings(model="m"), agent_command="true", backend="docker")
    assert isolation_of(config) == "docker"
    assert network_of(config, "docker").startswith(
        "none: the command reaches only the metering proxy, through a Unix socket in a "
        "folder mounted read-only into its container"
    )
