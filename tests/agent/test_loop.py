"""The tool loop against a scripted OpenAI-compatible endpoint, through the real client."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from polybench.agent.loop import run_episode
from polybench.agent.prompts import NUDGE_MESSAGE
from polybench.agent.trajectory import Trajectory, read_trajectory, write_trajectory
from polybench.agent.workspace import CommandOutcome, LocalWorkspace
from tests.agent.conftest import GREET, diff, settings_for
from tests.agent.fake_chat import Call, Reply, ScriptedChatServer, bash, error, submit

Start = Callable[[list[Reply]], ScriptedChatServer]
PROBLEM = "greet() should say 'Hi', not 'Hello'."


def tool_messages(request: dict[str, Any]) -> list[tuple[str, str]]:
    """(tool_call_id, content) of the tool messages at the end of a request."""
    found = []
    for message in reversed(request["messages"]):
        if message["role"] != "tool":
            break
        found.append((message["tool_call_id"], message["content"]))
    return list(reversed(found))


def test_bash_edits_then_submit(chat_server: Start, repo: Path, tmp_path: Path) -> None:
    server = chat_server(
        [
            Reply(content="Look first.", calls=(bash("c1", "cat greet.py"),), usage=(120, 15, 0)),
            Reply(calls=(bash("c2", "sed -i 's/Hello /Hi /' greet.py"),), usage=(180, 20, 64)),
            Reply(calls=(submit("c3"),), usage=(230, 5, 128)),
        ]
    )
    episode = run_episode(PROBLEM, LocalWorkspace(repo), settings_for(server), repo_path="/testbed")

    assert episode.exit_status == "submitted"
    assert (episode.steps, episode.api_calls, episode.api_errors) == (3, 3, 0)
    summary = episode.summary()
    assert "trajectory" not in summary
    assert summary["usage"]["input_tokens"] == 530 and summary["reason"] == episode.reason
    assert episode.usage.model_dump() == {
        "input_tokens": 120 + 180 + 230,
        "output_tokens": 15 + 20 + 5,
        "cached_tokens": 64 + 128,
    }
    assert '-    return "Hello " + name' in diff(repo)
    assert '+    return "Hi " + name' in diff(repo)

    first, second, third = server.requests
    assert first["model"] == "fake-model"
    assert [tool["function"]["name"] for tool in first["tools"]] == ["bash", "submit"]
    assert first["tools"][0]["function"]["parameters"]["required"] == ["command"]
    assert [m["role"] for m in first["messages"]] == ["system", "user"]
    task = first["messages"][1]["content"]
    assert PROBLEM in task and "/testbed" in task and "submit" in task

    assert second["messages"][:2] == first["messages"]
    assert second["messages"][2] == {
        "role": "assistant",
        "content": "Look first.",
        "tool_calls": [
            {
                "id": "c1",
                "type": "function",
                "function": {"name": "bash", "arguments": json.dumps({"command": "cat greet.py"})},
            }
        ],
    }
    assert tool_messages(second) == [("c1", "exit code: 0\n" + GREET)]
    assert tool_messages(third) == [("c2", "exit code: 0\n(no output)")]
    assert third["messages"][: len(second["messages"])] == second["messages"]

    path = tmp_path / "out" / "trajectory.json"
    write_trajectory(episode.trajectory, path)
    loaded = read_trajectory(path)
    assert loaded == episode.trajectory
    assert loaded.exit_status == "submitted"
    for index, request in enumerate(server.requests):
        assert loaded.request_messages(index) == request["messages"]
    # Each request stores only what is new since the previous one.
    assert [(s.request.message_offset, len(s.request.new_messages)) for s in loaded.steps] == [
        (0, 2),
        (2, 2),
        (4, 2),
    ]
    assert [m["role"] for m in loaded.trailing_messages] == ["assistant", "tool"]
    assert loaded.trailing_messages[1] == {
        "role": "tool",
        "tool_call_id": "c3",
        "content": "Submitted.",
    }
    assert loaded.all_messages()[-2:] == loaded.trailing_messages
    assert [call.kind for step in loaded.steps for call in step.tool_calls] == [
        "bash",
        "bash",
        "submit",
    ]
    assert loaded.steps[0].tool_calls[0].exit_code == 0
    assert loaded.steps[1].response is not None
    assert loaded.steps[1].response.usage is not None
    assert loaded.steps[1].response.usage.cached_tokens == 64


def test_several_tool_calls_run_in_order_and_each_is_answered(
    chat_server: Start, repo: Path
) -> None:
    server = chat_server(
        [
            Reply(
                calls=(
                    bash("a", "echo one > notes.txt"),
                    bash("b", "echo two >> notes.txt"),
                    bash("c", "cat notes.txt; exit 3"),
                )
            ),
            Reply(calls=(submit("d"),)),
        ]
    )
    episode = run_episode(PROBLEM, LocalWorkspace(repo), settings_for(server))

    assert episode.exit_status == "submitted"
    assert tool_messages(server.requests[1]) == [
        ("a", "exit code: 0\n(no output)"),
        ("b", "exit code: 0\n(no output)"),
        ("c", "exit code: 3\none\ntwo\n"),
    ]
    calls = episode.trajectory.steps[0].tool_calls
    assert [(call.id, call.exit_code) for call in calls] == [("a", 0), ("b", 0), ("c", 3)]


def test_malformed_tool_calls_get_error_answers(chat_server: Start, repo: Path) -> None:
    server = chat_server(
        [
            Reply(
                calls=(
                    Call("m1", "python", '{"code": "print(1)"}'),
                    Call("m2", "bash", '{"command": "ls"'),
                    Call("m3", "bash", '{"cmd": "ls"}'),
                    bash("m4", "echo still here"),
                )
            ),
            Reply(calls=(submit("m5"),)),
        ]
    )
    episode = run_episode(PROBLEM, LocalWorkspace(repo), settings_for(server))

    assert episode.exit_status == "submitted"
    answers = tool_messages(server.requests[1])
    assert [call_id for call_id, _ in answers] == ["m1", "m2", "m3", "m4"]
    assert answers[0][1].startswith("error: unknown tool 'python'")
    assert answers[1][1].startswith("error: the arguments are not valid JSON")
    assert answers[2][1].startswith("error: the arguments lack the string parameter 'command'")
    assert answers[3][1] == "exit code: 0\nstill here\n"
    records = episode.trajectory.steps[0].tool_calls
    assert [record.kind for record in records] == ["malformed", "malformed", "malformed", "bash"]
    assert records[1].arguments == '{"command": "ls"'
    assert records[0].error == "unknown tool 'python'"
    assert episode.trajectory.malformed_tool_calls == 3


def test_reply_without_tool_calls_gets_a_nudge(chat_server: Start, repo: Path) -> None:
    server = chat_server([Reply(content="I would change greet."), Reply(calls=(submit("s"),))])
    episode = run_episode(PROBLEM, LocalWorkspace(repo), settings_for(server))

    assert episode.exit_status == "submitted"
    assert episode.steps == 2
    assert server.requests[1]["messages"][-2:] == [
        {"role": "assistant", "content": "I would change greet."},
        {"role": "user", "content": NUDGE_MESSAGE},
    ]
    assert episode.trajectory.steps[0].nudged


def test_step_limit_ends_the_episode(chat_server: Start, repo: Path) -> None:
    server = chat_server([Reply(calls=(bash(f"s{n}", "true"),)) for n in range(5)])
    episode = run_episode(PROBLEM, LocalWorkspace(repo), settings_for(server, max_steps=3))

    assert episode.exit_status == "max_steps"
    assert "3 steps" in episode.reason
    assert len(server.requests) == 3
    assert episode.steps == 3
    # The last response's command still ran and its answer is kept for the record.
    assert episode.trajectory.trailing_messages[-1] == {
        "role": "tool",
        "tool_call_id": "s2",
        "content": "exit code: 0\n(no output)",
    }


def test_token_limit_stops_before_the_next_request(chat_server: Start, repo: Path) -> None:
    server = chat_server(
        [Reply(calls=(bash(f"t{n}", "true"),), usage=(100, 10, 0)) for n in range(5)]
    )
    settings = settings_for(server, max_total_tokens=250)
    episode = run_episode(PROBLEM, LocalWorkspace(repo), settings)

    assert episode.exit_status == "max_tokens"
    assert len(server.requests) == 3  # 110, 220 (< 250), 330 (>= 250): no fourth request
    assert episode.usage.total_tokens == 330
    assert "330 tokens" in episode.reason


def test_rate_limit_and_server_error_are_retried(chat_server: Start, repo: Path) -> None:
    server = chat_server(
        [error(429, "slow down"), error(500, "oops"), Reply(calls=(submit("ok"),))]
    )
    waits: list[float] = []
    settings = settings_for(server, retry_backoff_seconds=0.001)
    episode = run_episode(PROBLEM, LocalWorkspace(repo), settings, sleep=waits.append)

    assert episode.exit_status == "submitted"
    assert len(server.requests) == 3
    assert server.requests[0] == server.requests[1] == server.requests[2]
    assert waits == [0.001, 0.002]
    assert episode.api_errors == 2
    assert episode.usage.total_tokens == 110  # only the successful call reported usage
    failed = episode.trajectory.steps[0].failed_attempts
    assert [(f.attempt, f.status_code, f.retryable) for f in failed] == [
        (1, 429, True),
        (2, 500, True),
    ]
    assert "slow down" in failed[0].message
    assert failed[0].error_type == "RateLimitError"
    assert [f.wait_seconds for f in failed] == [0.001, 0.002]


def test_persistent_server_error_ends_with_api_error(chat_server: Start, repo: Path) -> None:
    server = chat_server([error(500, "down") for _ in range(10)])
    episode = run_episode(PROBLEM, LocalWorkspace(repo), settings_for(server, max_retries=2))

    assert episode.exit_status == "api_error"
    assert "HTTP 500" in episode.reason and "gave up after 3 attempts" in episode.reason
    assert len(server.requests) == 3
    assert episode.steps == 0
    failed = episode.trajectory.steps[0].failed_attempts
    assert [f.wait_seconds for f in failed] == [0.0, 0.0, None]


def test_client_error_is_not_retried(chat_server: Start, repo: Path) -> None:
    server = chat_server([error(400, "context length exceeded"), Reply(calls=(submit("x"),))])
    episode = run_episode(PROBLEM, LocalWorkspace(repo), settings_for(server))

    assert episode.exit_status == "api_error"
    assert "HTTP 400" in episode.reason and "context length exceeded" in episode.reason
    assert len(server.requests) == 1


def test_unreachable_endpoint_ends_with_api_error(repo: Path) -> None:
    server = ScriptedChatServer([])
    server.start()
    settings = settings_for(server, max_retries=1)
    server.stop()  # nothing listens there any more
    episode = run_episode(PROBLEM, LocalWorkspace(repo), settings)

    assert episode.exit_status == "api_error"
    assert episode.reason.startswith("APIConnectionError")
    assert len(episode.trajectory.steps[0].failed_attempts) == 2


def test_missing_usage_is_counted_as_unknown(chat_server: Start, repo: Path) -> None:
    server = chat_server(
        [Reply(calls=(bash("u", "true"),), usage=None), Reply(calls=(submit("v"),))]
    )
    episode = run_episode(PROBLEM, LocalWorkspace(repo), settings_for(server))

    assert episode.trajectory.calls_without_usage == 1
    assert episode.usage.total_tokens == 110
    assert episode.trajectory.steps[0].response is not None
    assert episode.trajectory.steps[0].response.usage is None


def test_long_output_is_cut_in_the_middle(chat_server: Start, repo: Path) -> None:
    command = "python3 -c \"print('H' * 3000 + 'M' * 3000 + 'T' * 3000)\""
    server = chat_server([Reply(calls=(bash("o", command),)), Reply(calls=(submit("p"),))])
    episode = run_episode(
        PROBLEM, LocalWorkspace(repo), settings_for(server, max_output_chars=1000)
    )

    ((_, text),) = tool_messages(server.requests[1])
    assert text.startswith("exit code: 0\nHHH")
    assert text.endswith("TTT\n")
    assert "M" * 100 not in text
    record = episode.trajectory.steps[0].tool_calls[0]
    assert record.cut_chars == 9001 - (1000 - 120)
    assert f"[... {record.cut_chars} characters cut from the middle of this output ...]" in text
    assert len(text) < 1100


def test_command_timeout_is_reported(chat_server: Start, repo: Path) -> None:
    # Longer timeouts until the command got to print (a loaded machine may be slower).
    for limit in (0.3, 3.0, 30.0):
        command = bash("z", "echo started; sleep 600")
        server = chat_server([Reply(calls=(command,)), Reply(calls=(submit("y"),))])
        settings = settings_for(server, command_timeout_seconds=limit)
        episode = run_episode(PROBLEM, LocalWorkspace(repo), settings)
        ((_, text),) = tool_messages(server.requests[1])
        assert text.startswith(f"timed out after {limit:g} s: the command was killed\n")
        if "started" in text:
            break
    assert "started" in text
    record = episode.trajectory.steps[0].tool_calls[0]
    assert record.timed_out and record.exit_code is None


def test_wall_clock_limit_ends_the_episode(chat_server: Start, repo: Path) -> None:
    # A loaded machine may spend a short limit on the first request alone: longer limits
    # until the command runs, so that what is checked is how the limit cuts the command.
    for limit in (0.5, 5.0, 50.0):
        replies = [Reply(calls=(bash("w", "sleep 600"),)), Reply(calls=(submit("q"),))]
        server = chat_server(replies)
        settings = settings_for(server, wall_clock_seconds=limit, command_timeout_seconds=900)
        episode = run_episode(PROBLEM, LocalWorkspace(repo), settings)
        assert episode.exit_status == "wall_clock"
        if episode.trajectory.steps and episode.trajectory.steps[0].tool_calls:
            break
    assert len(server.requests) == 1
    record = episode.trajectory.steps[0].tool_calls[0]
    assert record.timed_out
    assert record.timeout is not None and record.timeout <= limit


class BrokenWorkspace:
    def run(self, command: str, timeout: float) -> CommandOutcome:
        raise RuntimeError("container vanished")


def test_workspace_failure_ends_with_workspace_error(chat_server: Start) -> None:
    server = chat_server([Reply(calls=(bash("b", "ls"),)), Reply(calls=(submit("c"),))])
    episode = run_episode(PROBLEM, BrokenWorkspace(), settings_for(server))

    assert episode.exit_status == "workspace_error"
    assert episode.reason == "RuntimeError: container vanished"
    assert len(server.requests) == 1


def test_key_comes_from_the_environment_and_stays_out_of_records(
    chat_server: Start, repo: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("POLYBENCH_TEST_AGENT_KEY", "sk-test-secret-123")
    server = chat_server([Reply(calls=(bash("e", "env"),)), Reply(calls=(submit("f"),))])
    episode = run_episode(PROBLEM, LocalWorkspace(repo), settings_for(server))

    assert server.authorizations == ["Bearer sk-test-secret-123"] * 2
    ((_, env_output),) = tool_messages(server.requests[1])
    assert "PATH=" in env_output
    assert "sk-test-secret-123" not in env_output
    path = tmp_path / "t.json"
    write_trajectory(episode.trajectory, path)
    assert "sk-test-secret-123" not in path.read_text()
    assert episode.trajectory.settings["api_key_env"] == "POLYBENCH_TEST_AGENT_KEY"


def test_on_step_sees_the_growing_trajectory(chat_server: Start, repo: Path) -> None:
    server = chat_server([Reply(calls=(bash("g", "true"),)), Reply(calls=(submit("h"),))])
    seen: list[tuple[int, str | None]] = []

    def on_step(trajectory: Trajectory) -> None:
        seen.append((len(trajectory.steps), trajectory.exit_status))

    episode = run_episode(
        PROBLEM, LocalWorkspace(repo), settings_for(server), instance_id="a__b-1", on_step=on_step
    )
    assert seen == [(1, None), (2, None)]
    assert episode.trajectory.instance_id == "a__b-1"


def test_system_prompt_override_and_request_options(chat_server: Start, repo: Path) -> None:
    server = chat_server([Reply(calls=(submit("s"),))])
    settings = settings_for(
        server, system_prompt="Be brief.", temperature=0.5, max_completion_tokens=256
    )
    run_episode(PROBLEM, LocalWorkspace(repo), settings)

    request = server.requests[0]
    assert request["messages"][0] == {"role": "system", "content": "Be brief."}
    assert request["temperature"] == 0.5
    assert request["max_completion_tokens"] == 256


def test_calls_after_submit_are_not_run(chat_server: Start, repo: Path) -> None:
    server = chat_server([Reply(calls=(submit("s"), bash("late", "touch late.txt")))])
    episode = run_episode(PROBLEM, LocalWorkspace(repo), settings_for(server))

    assert episode.exit_status == "submitted"
    assert not (repo / "late.txt").exists()
    assert [call.kind for call in episode.trajectory.steps[0].tool_calls] == ["submit", "skipped"]
