"""One small request before an agent run prepares anything: is the endpoint there, does it
take the key, does it know the model, and (for the built-in agent) does it call tools?

A run that cannot work fails here in seconds with one line saying why and what to change,
instead of preparing every sandbox and retrying every instance.
"""

from __future__ import annotations

import time
from typing import Any

from polybench.agent.prompts import SUBMIT_TOOL, TOOLS
from polybench.agent.settings import AgentSettings

CHECK_MESSAGE = (
    f"This is a connection check before an agent run. Call the {SUBMIT_TOOL} tool now; "
    "write nothing else."
)
"""The one user message of the check (a model that calls tools answers with ``submit``)."""
CHECK_TIMEOUT_SECONDS = 120.0
MAX_CHECK_RETRIES = 2
"""Retries of the check after HTTP 429, 5xx or a lost connection (at most the run's own)."""
TOOL_CALLING_HINT = (
    "the built-in agent needs a model and server that support tool calling (vLLM: start "
    "it with --enable-auto-tool-choice --tool-call-parser NAME; Ollama: a model with "
    "tool support; or run your own agent with --agent-command)"
)


class EndpointCheckError(Exception):
    """The endpoint cannot serve the run; the message says why, on one line."""


def check_endpoint(settings: AgentSettings, tools: bool = True) -> str:
    """Send the check request; return what the model answered, in a few words.

    ``tools`` asks for a tool call (the built-in agent); without it any answer will do (an
    agent command brings its own protocol). Raises :class:`EndpointCheckError`.
    """
    from polybench.agent.loop import make_client

    client = make_client(settings)
    body: dict[str, Any] = {
        "model": settings.model,
        "messages": [{"role": "user", "content": CHECK_MESSAGE}],
    }
    if tools:
        body["tools"] = TOOLS
    try:
        completion = _send(client, body, settings)
    finally:
        client.close()
    if not completion.choices:
        raise EndpointCheckError(f"{_where(settings)} answered the check with no choice")
    message = completion.choices[0].message
    if not tools:
        return "the endpoint answered"
    calls = message.tool_calls or []
    if not calls:
        said = " ".join((message.content or "").split())[:80]
        raise EndpointCheckError(
            f"{_where(settings)} answered the check without calling a tool "
            f"(it wrote {said!r}): {TOOL_CALLING_HINT}"
        )
    names = [getattr(getattr(call, "function", None), "name", "?") for call in calls]
    return f"the model called {', '.join(str(name) for name in names)}"


def _send(client: Any, body: dict[str, Any], settings: AgentSettings) -> Any:
    import openai
    from openai.types.chat import ChatCompletion

    timeout = min(settings.request_timeout, CHECK_TIMEOUT_SECONDS)
    attempts = min(settings.max_retries, MAX_CHECK_RETRIES) + 1
    for attempt in range(1, attempts + 1):
        try:
            return client.post(
                "/chat/completions", body=body, cast_to=ChatCompletion, options={"timeout": timeout}
            )
        except openai.APIStatusError as exc:
            transient = exc.status_code == 429 or exc.status_code >= 500
            if not transient or attempt == attempts:
                raise EndpointCheckError(_status_problem(exc, settings)) from exc
        except openai.APIConnectionError as exc:
            if attempt == attempts:
                raise EndpointCheckError(
                    f"cannot reach {_where(settings)}: {type(exc).__name__}: {exc} (is the "
                    "server running, and is --base-url its OpenAI-compatible URL, usually "
                    "ending in /v1?)"
                ) from exc
        time.sleep(min(settings.retry_backoff_seconds * 2 ** (attempt - 1), 10.0))
    raise AssertionError("unreachable")  # pragma: no cover


def _where(settings: AgentSettings) -> str:
    return settings.base_url or "the OpenAI API"


def _status_problem(exc: Any, settings: AgentSettings) -> str:
    """One line for an HTTP error answer to the check."""
    status = exc.status_code
    detail = " ".join(str(exc.message).split())[:300]
    where = _where(settings)
    if status in (401, 403):
        key = (
            f"{settings.api_key_env} is not set"
            if settings.api_key() is None
            else f"check the key in {settings.api_key_env}"
        )
        return f"{where} refused the API key (HTTP {status}: {detail}): {key} (--api-key-env)"
    if status == 404:
        return (
            f"{where} answered HTTP 404 for model {settings.model!r} ({detail}): is the model "
            "served there, and does --base-url end where the server's /chat/completions is "
            "(usually /v1)?"
        )
    if "tool" in detail.lower():
        return f"{where} refused tool calls (HTTP {status}: {detail}): {TOOL_CALLING_HINT}"
    return f"{where} answered the check with HTTP {status}: {detail}"
