"""Scripted models that drive real third-party agents, and where those agents are installed.

Each real agent speaks to the model its own way: mini-swe-agent calls a ``bash`` tool and
ends with ``echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT``; aider asks for edits as text and
reads unified diffs in ```` ```diff ```` fences (``--edit-format udiff``). The responders
here recognise the ``mini`` instance from the problem statement anywhere in the request,
count the model's turns since the task was given, and answer from a per-instance plan:
``solve`` (the gold patch), ``wrong`` (a change that compiles but fixes nothing),
``nothing``. The tally
records what the endpoint served to each instance (calls and tokens), to compare with what
the harness recorded.

The agents are installed in venvs of their own, pinned, by :func:`agent_venv` (under
``POLYBENCH_AGENT_VENVS``, which CI fills beforehand, else a folder of the test session).
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import threading
import zlib
from collections import Counter
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

from polybench.dataset.models import Instance
from tests.agent.fake_chat import Reply, bash

SOLVE, WRONG, NOTHING = "solve", "wrong", "nothing"
SUBMIT = "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"

PINNED = {"mini-swe-agent": "mini-swe-agent==2.4.6", "aider-chat": "aider-chat==0.86.2"}
"""The versions the tests install, one venv each."""


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""


def usage_for(instance_id: str, turn: int) -> tuple[int, int, int]:
    """Distinct token counts per instance and turn (prompt, completion, cached)."""
    seed = zlib.crc32(instance_id.encode()) % 97
    return (1000 + 10 * seed + turn, 50 + seed + turn, 100 * turn)


def wrong_change(instance: Instance) -> tuple[str, str]:
    """A change that fixes nothing: a comment line appended to the first file the gold
    patch touches, in the language's own syntax (the file and the line)."""
    first = instance.patch.split("diff --git a/", 1)[1].split(" ", 1)[0]
    return first, "# unsure" if first.endswith(".py") else "// unsure"


class ScriptedModel:
    """A responder (for :class:`tests.agent.fake_chat.ScriptedChatServer`) that follows
    ``plans`` and tallies what it served per instance."""

    def __init__(
        self,
        instances: dict[str, Instance],
        plans: dict[str, str],
        speak: Callable[[str, int, Instance], Reply],
    ) -> None:
        self.instances = instances
        self.plans = plans
        self.speak = speak
        self.served: dict[str, Counter[str]] = {}
        self.lock = threading.Lock()

    def instance_of(self, body: dict[str, Any]) -> tuple[Instance, int]:
        """The instance the request is about, and the model's turns since it was asked
        (an agent's prompt may hold example conversations before the task)."""
        messages = body.get("messages", [])
        for instance in self.instances.values():
            wanted = instance.problem_statement.strip()
            asked = [i for i, m in enumerate(messages) if wanted in _text(m.get("content"))]
            if asked:
                later = messages[asked[-1] + 1 :]
                return instance, sum(1 for m in later if m.get("role") == "assistant")
        raise AssertionError("the request names no known instance")

    def __call__(self, body: dict[str, Any]) -> Reply:
        instance, turns = self.instance_of(body)
        plan = self.plans.get(instance.instance_id, SOLVE)
        reply = self.speak(plan, turns, instance)
        with self.lock:
            counts = self.served.setdefault(instance.instance_id, Counter())
            if reply.status == 200 and reply.usage is not None:
                prompt, completion, cached = reply.usage
                counts.update(calls=1, input=prompt, output=completion, cached=cached)
        return reply


def mini_swe_agent_turn(plan: str, turn: int, instance: Instance) -> Reply:
    """mini-swe-agent's model: a bash tool call per turn, then the submit command."""
    usage = usage_for(instance.instance_id, turn)
    call_id = f"call_{turn}"
    if turn >= 1:
        return Reply(content="Done.", calls=(bash(call_id, submit_command(plan, instance)),),
                     usage=usage)  # fmt: skip
    if plan == SOLVE:
        patch = instance.patch.rstrip("\n")
        command = (
            f"cat > /tmp/fix.patch <<'PB_PATCH_END'\n{patch}\nPB_PATCH_END\n"
            "git apply /tmp/fix.patch && git status --short"
        )
    elif plan == WRONG:
        path, comment = wrong_change(instance)
        command = f"printf '%s\\n' '{comment}' >> {path} && git status --short"
    else:
        command = "ls"
    return Reply(content="Let me work on it.", calls=(bash(call_id, command),), usage=usage)


def submit_command(plan: str, instance: Instance) -> str:
    """The last command: the submit marker, then the diff of the files the plan changed
    (as mini-swe-agent's SWE-bench prompt asks; ``git add -A`` of everything would take an
    image's untracked ``node_modules`` too)."""
    if plan == NOTHING:
        return SUBMIT
    if plan == WRONG:
        paths = [wrong_change(instance)[0]]
    else:
        paths = [s.split(" ", 1)[0] for s in instance.patch.split("diff --git a/")[1:]]
    quoted = " ".join(shlex.quote(path) for path in paths)
    return f"{SUBMIT} && git add -A -- {quoted} && git diff --cached -- {quoted}"


def udiff_blocks(patch: str) -> str:
    """A git patch as aider's udiff edits: one fenced block per file, ``---``/``+++`` and
    the hunks only."""
    blocks = []
    for section in patch.split("diff --git ")[1:]:
        lines = section.splitlines()
        start = next(i for i, line in enumerate(lines) if line.startswith("--- "))
        blocks.append("```diff\n" + "\n".join(lines[start:]) + "\n```")
    return "\n\n".join(blocks)


def aider_turn(plan: str, turn: int, instance: Instance) -> Reply:
    """aider's model (udiff edit format): the plan's edits in every answer (aider asks
    again only when it added files to the chat first, or an edit did not apply)."""
    usage = usage_for(instance.instance_id, turn)
    if plan == NOTHING:
        return Reply(content="I have nothing to change.", usage=usage)
    if plan == SOLVE:
        return Reply(content="Here is the fix.\n\n" + udiff_blocks(instance.patch), usage=usage)
    path, comment = wrong_change(instance)
    last = base_file(instance, path).rstrip("\n").splitlines()[-1]
    edit = f"```diff\n--- a/{path}\n+++ b/{path}\n@@ ... @@\n-{last}\n+{last}\n+{comment}\n```"
    return Reply(content="Here is a change.\n\n" + edit, usage=usage)


def base_file(instance: Instance, path: str) -> str:
    """A file of a ``mini`` instance's repository at its base commit (the package's copy)."""
    repos = resources.files("polybench.dataset").joinpath("mini_data", "repos")
    folder = repos.joinpath(instance.repo.replace("/", "__"))
    return folder.joinpath(*path.split("/")).read_text(encoding="utf-8")


def venv_root() -> Path:
    """Where the agents' venvs go: ``$POLYBENCH_AGENT_VENVS``, else a folder of the home
    (never under ``/tmp``, which sandboxes replace with their own)."""
    root = os.environ.get("POLYBENCH_AGENT_VENVS")
    return Path(root) if root else Path.home() / ".local" / "share" / "polybench-test-agents"


def agent_venv(name: str, root: Path) -> Path:
    """The venv of ``name`` (a key of :data:`PINNED`) under ``root``, installed once."""
    spec = PINNED[name]
    venv = root / spec.replace("==", "-")
    marker = venv / "installed.txt"
    if marker.is_file():
        return venv
    subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True)
    subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "-q",
         "--disable-pip-version-check", spec],
        check=True,
    )  # fmt: skip
    marker.write_text(spec + "\n")
    return venv


if __name__ == "__main__":  # CI installs the agents ahead of the tests
    for agent in PINNED:
        print(agent_venv(agent, venv_root()))
