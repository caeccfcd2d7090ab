"""``agent run`` sends one small request before it prepares anything: a dead URL, a
refused key, an unknown model or a model without tool calling ends the run at once with
exit 2 and one line saying what to change, and nothing is written."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from polybench.agent.preflight import CHECK_MESSAGE, EndpointCheckError, check_endpoint
from polybench.agent.settings import AgentSettings
from polybench.cli.main import app
from tests.agent.fake_chat import Reply, ScriptedChatServer, error, submit

KEY_ENV = "POLYBENCH_TEST_PREFLIGHT_KEY"


@pytest.fixture
def server() -> Iterator[ScriptedChatServer]:
    """An endpoint whose answer to the check each test scripts."""
    started = ScriptedChatServer([], answer_check=False)
    started.start()
    yield started
    started.stop()


def _run(base_url: str, tmp_path: Path, *extra: str, key: str | None = "k") -> tuple[int, str]:
    env = {KEY_ENV: key} if key is not None else {}
    result = CliRunner().invoke(
        app,
        ["agent", "run", "--model", "m", "--base-url", base_url, "--api-key-env", KEY_ENV,
         "--output-dir", str(tmp_path / "runs"), "--run-id", "r", "--max-retries", "0",
         *extra],
        env={"COLUMNS": "400", "POLYBENCH_CACHE_DIR": str(tmp_path / "cache"), **env},
    )  # fmt: skip
    return result.exit_code, result.output


def _refused(code: int, output: str, tmp_path: Path, *words: str) -> None:
    assert code == 2, output
    lines = [line for line in output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: the endpoint check failed: "), output
    for word in words:
        assert word in lines[0], output
    # Nothing was prepared: no run folder, not even the built-in repositories.
    assert not (tmp_path / "runs").exists()
    assert not (tmp_path / "cache").exists()


def test_a_dead_url_is_refused_at_once(tmp_path: Path) -> None:
    gone = ScriptedChatServer([])
    url = gone.start()
    gone.stop()  # nothing listens on its port any more
    code, output = _run(url, tmp_path)
    _refused(code, output, tmp_path, f"cannot reach {url}", "is the server running")


def test_a_refused_key_names_the_variable(server: ScriptedChatServer, tmp_path: Path) -> None:
    server.replies.append(error(401, "Incorrect API key provided"))
    code, output = _run(server.base_url, tmp_path, key=None)
    _refused(code, output, tmp_path, "refused the API key", f"{KEY_ENV} is not set")


def test_an_unknown_model_is_named(server: ScriptedChatServer, tmp_path: Path) -> None:
    server.replies.append(error(404, "model 'm' not found"))
    code, output = _run(server.base_url, tmp_path)
    _refused(code, output, tmp_path, "HTTP 404 for model 'm'", "model 'm' not found")


def test_a_server_without_tool_calling_is_refused_with_how_to_turn_it_on(
    server: ScriptedChatServer, tmp_path: Path
) -> None:
    # What vLLM answers when it was started without its tool-call flags.
    server.replies.append(
        error(400, '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser')
    )
    code, output = _run(server.base_url, tmp_path)
    _refused(code, output, tmp_path, "refused tool calls", "--enable-auto-tool-choice", "Ollama")


def test_a_model_that_answers_in_text_is_refused(
    server: ScriptedChatServer, tmp_path: Path
) -> None:
    server.replies.append(Reply(content="Sure! I would call submit now."))
    code, output = _run(server.base_url, tmp_path)
    _refused(code, output, tmp_path, "without calling a tool", "Sure! I would call submit now.")
    # The check is one small request with the agent's tools.
    (body,) = server.requests
    assert body["messages"] == [{"role": "user", "content": CHECK_MESSAGE}]
    assert [tool["function"]["name"] for tool in body["tools"]] == ["bash", "submit"]


def test_transient_errors_are_retried_then_the_check_passes(server: ScriptedChatServer) -> None:
    server.replies += [error(503, "loading"), Reply(calls=(submit("c"),))]
    settings = AgentSettings(model="m", base_url=server.base_url, retry_backoff_seconds=0)
    assert check_endpoint(settings) == "the model called submit"
    assert len(server.requests) == 2


def test_an_agent_command_needs_an_answer_but_no_tool_call(server: ScriptedChatServer) -> None:
    server.replies.append(Reply(content="hello"))
    settings = AgentSettings(model="m", base_url=server.base_url)
    assert check_endpoint(settings, tools=False) == "the endpoint answered"
    assert "tools" not in server.requests[0]
    server.replies.append(Reply(content="hello"))
    with pytest.raises(EndpointCheckError, match="without calling a tool"):
        check_endpoint(settings)


def test_no_check_skips_the_request(server: ScriptedChatServer, tmp_path: Path) -> None:
    code, output = _run(server.base_url, tmp_path, "--no-check", "--backend", "nope")
    assert code == 2 and "unknown backend 'nope'" in output
    assert server.requests == []
