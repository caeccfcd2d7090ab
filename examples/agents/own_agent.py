#!/usr/bin/env python3
"""A command-line agent of your own for ``polybench agent run --agent-command``.

Write your agent as the function :func:`solve`; ``main`` connects it to what polybench
gives every agent command (in its environment):

- ``OPENAI_BASE_URL`` and ``OPENAI_API_KEY``: the metering proxy and a per-instance token
  (any OpenAI-compatible client works with them);
- ``POLYBENCH_MODEL``: the model to ask;
- ``POLYBENCH_PROBLEM_FILE``: the problem statement;
- ``POLYBENCH_OUTPUT_DIR``: a folder for your own records (kept in the run folder);
- the current directory: the repository at the base commit. Whatever the agent changes
  there is its answer: polybench takes the patch itself when the command exits.

This file uses the standard library only, so it runs with any Python 3.9+ the sandbox
sees. Run it with::

    polybench agent run --model MODEL --base-url URL --agent-mount /opt/my-agent \\
        --agent-command 'python3 /opt/my-agent/own_agent.py'

(copied to ``/opt/my-agent``: a folder sandboxes may see, outside ``/tmp``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.request
from collections.abc import Callable
from typing import Any

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "bash",
            "description": "Run a bash command in the repository; returns its output.",
            "parameters": {
                "type": "object",
                "properties": {"command": {"type": "string"}},
                "required": ["command"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "submit",
            "description": "Finish: the changes in the repository are the answer.",
            "parameters": {"type": "object", "properties": {}},
        },
    },
]

Ask = Callable[[list], dict]
"""Send the messages to the model; its reply (``choices[0].message``)."""
Shell = Callable[[str], str]
"""Run a bash command in the repository; its output and exit status."""


def solve(problem: str, ask: Ask, shell: Shell, max_steps: int = 30) -> list:
    """The agent: a tool loop until the model submits. Replace it with your own."""
    messages: list = [
        {
            "role": "system",
            "content": "You fix issues in the repository in the current "
            "directory. Use bash; call submit when done.",
        },
        {"role": "user", "content": problem},
    ]
    for _ in range(max_steps):
        reply = ask(messages)
        messages.append(reply)
        calls = reply.get("tool_calls") or []
        if not calls:
            break
        for call in calls:
            name = call["function"]["name"]
            if name == "submit":
                return messages
            try:
                command = json.loads(call["function"]["arguments"])["command"]
                result = shell(command)
            except (ValueError, KeyError, TypeError) as exc:
                result = f"malformed tool call: {exc}"
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": result})
    return messages


def chat(base_url: str, key: str, model: str) -> Ask:
    """A Chat Completions client (urllib); counts usage as the proxy will."""

    def ask(messages: list) -> dict:
        body = json.dumps({"model": model, "messages": messages, "tools": TOOLS}).encode()
        request = urllib.request.Request(
            base_url.rstrip("/") + "/chat/completions",
            data=body,
            headers={"Content-Type": "application/json", "Authorization": f"Bearer {key}"},
        )
        with urllib.request.urlopen(request, timeout=600) as response:
            answer: Any = json.load(response)
        message = answer["choices"][0]["message"]
        return {k: v for k, v in message.items() if v is not None}

    return ask


def bash(command: str) -> str:
    """Run ``command`` with bash in the current directory (at most 10 minutes)."""
    try:
        done = subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=600)
    except subprocess.TimeoutExpired:
        return "the command timed out"
    return f"exit status {done.returncode}\n{done.stdout}{done.stderr}"[-20000:]


def main() -> int:
    env = os.environ
    with open(env["POLYBENCH_PROBLEM_FILE"], encoding="utf-8") as handle:
        problem = handle.read()
    ask = chat(env["OPENAI_BASE_URL"], env["OPENAI_API_KEY"], env["POLYBENCH_MODEL"])
    messages = solve(problem, ask, bash)
    output = env.get("POLYBENCH_OUTPUT_DIR")
    if output:
        os.makedirs(output, exist_ok=True)
        with open(os.path.join(output, "messages.json"), "w", encoding="utf-8") as handle:
            json.dump(messages, handle, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
