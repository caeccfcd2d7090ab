"""A local OpenAI-compatible endpoint that plays a script of replies, one per request.

Each test writes the model's side of the conversation as a list of :class:`Reply`
(tool calls with their usage, or HTTP errors); the server records every request body
it received so tests can assert exactly what the agent sent. ``POST
/v1/chat/completions`` honours ``stream: true`` (server-sent events, with a final usage
chunk only when ``stream_options.include_usage`` is set) and ``POST /v1/responses``
answers with a minimal Responses API object. A request past the end of the script gets
HTTP 500 ``script exhausted``. With a ``responder``, each reply is computed from the
request body instead (for concurrent clients, whose order is not known). ``sent`` keeps
the body bytes of every answer (for a stream: the concatenated SSE text).

The endpoint check an agent run sends first (:mod:`polybench.agent.preflight`) is
answered as a model with tool calling answers it, with a ``submit`` call, outside the
script, and kept in ``checks`` (not ``requests``); ``answer_check=False`` puts it through
the script like any request.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from polybench.agent.preflight import CHECK_MESSAGE
from tests.helpers.local_http import server_url, start_local_server, stop_server


@dataclass(frozen=True)
class Call:
    """One tool call the scripted model makes."""

    id: str
    name: str
    arguments: str


def bash(call_id: str, command: str) -> Call:
    """A well-formed bash tool call."""
    return Call(call_id, "bash", json.dumps({"command": command}))


def submit(call_id: str) -> Call:
    """A submit tool call."""
    return Call(call_id, "submit", "{}")


@dataclass(frozen=True)
class Reply:
    """One scripted answer: a completion (``status`` 200) or an HTTP error."""

    content: str | None = None
    calls: tuple[Call, ...] = ()
    usage: tuple[int, int, int] | None = (100, 10, 0)  # prompt, completion, cached
    status: int = 200
    error: str = ""

    def usage_json(self) -> dict[str, Any] | None:
        if self.usage is None:
            return None
        prompt, completion, cached = self.usage
        return {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
            "prompt_tokens_details": {"cached_tokens": cached},
        }


def error(status: int, message: str = "scripted failure") -> Reply:
    """A scripted HTTP error."""
    return Reply(status=status, error=message, usage=None)


def is_check(body: dict[str, Any]) -> bool:
    """Whether a request is an agent run's endpoint check."""
    messages = body.get("messages") or []
    return [m.get("content") for m in messages if isinstance(m, dict)] == [CHECK_MESSAGE]


CHECK_REPLY = Reply(calls=(Call("check-0", "submit", "{}"),), usage=(30, 5, 0))
"""What a model with tool calling answers to the endpoint check."""


@dataclass
class ScriptedChatServer:
    replies: list[Reply]
    responder: Callable[[dict[str, Any]], Reply] | None = None
    requests: list[dict[str, Any]] = field(default_factory=list)
    checks: list[dict[str, Any]] = field(default_factory=list)
    answer_check: bool = True
    sent: list[bytes] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    authorizations: list[str | None] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _server: ThreadingHTTPServer | None = None

    def start(self) -> str:
        fake = self

        class Handler(_Handler):
            state = fake

        self._server = start_local_server(Handler)
        return self.base_url

    @property
    def url(self) -> str:
        assert self._server is not None
        return server_url(self._server)

    @property
    def base_url(self) -> str:
        return self.url + "/v1"

    def stop(self) -> None:
        stop_server(self._server)

    def next_reply(self, body: dict[str, Any], path: str, auth: str | None) -> tuple[int, Reply]:
        with self._lock:
            if self.answer_check and is_check(body):
                self.checks.append(body)
                self.authorizations.append(auth)
                return 10_000 + len(self.checks), CHECK_REPLY
            self.requests.append(body)
            self.paths.append(path)
            self.authorizations.append(auth)
            number = len(self.requests)
            if self.responder is not None:
                return number, self.responder(body)
            if self.replies:
                return number, self.replies.pop(0)
        return number, error(500, "script exhausted")


def completion_json(reply: Reply, number: int, model: str) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.content}
    if reply.calls:
        message["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": call.arguments},
            }
            for call in reply.calls
        ]
    body: dict[str, Any] = {
        "id": f"chatcmpl-{number}",
        "object": "chat.completion",
        "created": 1_700_000_000 + number,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "tool_calls" if reply.calls else "stop",
            }
        ],
    }
    usage = reply.usage_json()
    if usage is not None:
        body["usage"] = usage
    return body


def stream_events(reply: Reply, number: int, model: str, include_usage: bool) -> list[str]:
    """The SSE ``data:`` payloads of a streamed completion."""

    def chunk(delta: dict[str, Any], finish: str | None) -> dict[str, Any]:
        return {
            "id": f"chatcmpl-{number}",
            "object": "chat.completion.chunk",
            "created": 1_700_000_000 + number,
            "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }

    events = [chunk({"role": "assistant", "content": ""}, None)]
    for word in (reply.content or "").split(" "):
        events.append(chunk({"content": word + " "}, None))
    for index, call in enumerate(reply.calls):
        events.append(
            chunk(
                {
                    "tool_calls": [
                        {
                            "index": index,
                            "id": call.id,
                            "type": "function",
                            "function": {"name": call.name, "arguments": call.arguments},
                        }
                    ]
                },
                None,
            )
        )
    events.append(chunk({}, "tool_calls" if reply.calls else "stop"))
    payloads = [json.dumps(event) for event in events]
    if include_usage:
        final = chunk({}, None)
        final["choices"] = []
        final["usage"] = reply.usage_json()
        payloads.append(json.dumps(final))
    payloads.append("[DONE]")
    return payloads


def response_json(reply: Reply, number: int, model: str) -> dict[str, Any]:
    """A minimal Responses API object."""
    prompt, completion, cached = reply.usage or (0, 0, 0)
    return {
        "id": f"resp_{number}",
        "object": "response",
        "model": model,
        "status": "completed",
        "output": [
            {
                "type": "message",
                "id": f"msg_{number}",
                "role": "assistant",
                "status": "completed",
                "content": [
                    {"type": "output_text", "text": reply.content or "", "annotations": []}
                ],
            }
        ],
        "usage": {
            "input_tokens": prompt,
            "input_tokens_details": {"cached_tokens": cached},
            "output_tokens": completion,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": prompt + completion,
        },
    }


class _Handler(BaseHTTPRequestHandler):
    state: ScriptedChatServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        return

    def _send(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("X-Fake-Server", "scripted")
        self.end_headers()
        self.wfile.write(data)
        with self.state._lock:
            self.state.sent.append(data)

    def do_GET(self) -> None:
        if self.path == "/v1/models":
            self._send(200, {"object": "list", "data": [{"id": "fake-model", "object": "model"}]})
        else:
            self._send(404, {"error": {"message": "not found"}})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", "0"))
        body = json.loads(self.rfile.read(length))
        number, reply = self.state.next_reply(body, self.path, self.headers.get("Authorization"))
        if reply.status != 200:
            return self._send(
                reply.status,
                {
                    "error": {
                        "message": reply.error,
                        "type": "scripted",
                        "param": None,
                        "code": None,
                    }
                },
            )
        model = str(body.get("model", "fake-model"))
        if self.path == "/v1/responses":
            return self._send(200, response_json(reply, number, model))
        if self.path != "/v1/chat/completions":
            return self._send(404, {"error": {"message": f"no route {self.path}"}})
        if not body.get("stream"):
            return self._send(200, completion_json(reply, number, model))
        include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        text = b""
        for payload in stream_events(reply, number, model, include_usage):
            data = f"data: {payload}\n\n".encode()
            text += data
            self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
            self.wfile.flush()
        self.wfile.write(b"0\r\n\r\n")
        with self.state._lock:
            self.state.sent.append(text)
