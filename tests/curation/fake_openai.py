"""A local HTTP server that answers like an OpenAI-compatible ``/v1/chat/completions``.

Answers depend on the prompt: the task-category prompt (it asks for a ``<category>``
tag) gets ``Bug Fix`` when the issue text mentions a bug, an error or something wrong,
else ``Feature``; the informativeness prompt gets A / A / C. Modes:

- ``ok``: always a valid answer;
- ``malformed_first``: the first answer to each distinct prompt is malformed (a label
  outside the label set, or a missing tag), later ones are valid;
- ``always_malformed``: never a valid answer;
- ``error_first``: the very first request gets a 500 (with ``retry-after-ms``).
"""

from __future__ import annotations

import json
import re
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.helpers.local_http import server_url, start_local_server, stop_server

VALID_INFORMATIVENESS = (
    "<explanation_description>The text says what to change.</explanation_description>\n"
    "<label_description>A</label_description>\n"
    "<explanation_solution>No steps are given.</explanation_solution>\n"
    "<label_solution>A</label_solution>\n"
    "<explanation_location>Only the function name is mentioned.</explanation_location>\n"
    "<label_location>C</label_location>"
)
MALFORMED_INFORMATIVENESS = (
    "<label_description>A</label_description>\n<label_solution>F</label_solution>\n"
)


def category_for(prompt: str) -> str:
    issue = re.search(r"<issue>(.*?)</issue>", prompt, re.S)
    text = (issue[1] if issue else prompt).lower()
    return "Bug Fix" if re.search(r"\b(bug|error|wrong|crash|broken)\b", text) else "Feature"


@dataclass
class FakeOpenAI:
    mode: str = "ok"
    delay: float = 0.0
    # Each request waits (at most ``hold_seconds``) until this many are in flight at once:
    # concurrency shown by the client's behaviour, not by how fast this machine is.
    hold_until_in_flight: int = 0
    hold_seconds: float = 30.0
    requests: list[dict[str, Any]] = field(default_factory=list)
    authorizations: list[str | None] = field(default_factory=list)
    max_in_flight: int = 0
    _in_flight: int = 0
    _seen: set[str] = field(default_factory=set)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _arrived: threading.Condition = field(init=False)
    _server: ThreadingHTTPServer | None = None

    def __post_init__(self) -> None:
        self._arrived = threading.Condition(self._lock)

    def answer(self, prompt: str) -> str:
        with self._lock:
            first = prompt not in self._seen
            self._seen.add(prompt)
        malformed = self.mode == "always_malformed" or (self.mode == "malformed_first" and first)
        if "<category>" in prompt:
            category = category_for(prompt)
            return (
                f"<category>{category.lower()}</category>"
                if malformed
                else (f"<category>{category}</category>")
            )
        return MALFORMED_INFORMATIVENESS if malformed else VALID_INFORMATIVENESS

    def start(self) -> str:
        fake = self

        class Handler(_Handler):
            state = fake

        self._server = start_local_server(Handler)
        return self.base_url

    @property
    def base_url(self) -> str:
        assert self._server is not None
        return server_url(self._server) + "/v1"

    def stop(self) -> None:
        stop_server(self._server)


class _Handler(BaseHTTPRequestHandler):
    state: FakeOpenAI

    def log_message(self, format: str, *args: Any) -> None:
        return

    def _send(
        self, status: int, body: dict[str, Any], headers: dict[str, str] | None = None
    ) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self) -> None:
        state = self.state
        length = int(self.headers.get("Content-Length", "0"))
        body = json.loads(self.rfile.read(length))
        with state._lock:
            state.requests.append(body)
            state.authorizations.append(self.headers.get("Authorization"))
            number = len(state.requests)
            state._in_flight += 1
            state.max_in_flight = max(state.max_in_flight, state._in_flight)
            state._arrived.notify_all()
        try:
            if state.hold_until_in_flight:
                with state._lock:
                    state._arrived.wait_for(
                        lambda: state.max_in_flight >= state.hold_until_in_flight,
                        timeout=state.hold_seconds,
                    )
            if state.delay:
                time.sleep(state.delay)
            if self.path != "/v1/chat/completions":
                return self._send(404, {"error": {"message": "not found", "type": "invalid"}})
            if state.mode == "error_first" and number == 1:
                return self._send(
                    500,
                    {
                        "error": {
                            "message": "The server had an error",
                            "type": "server_error",
                            "param": None,
                            "code": None,
                        }
                    },
                    {"retry-after-ms": "20"},
                )
            prompt = body["messages"][-1]["content"]
            content = state.answer(prompt)
            self._send(
                200,
                {
                    "id": f"chatcmpl-{number}",
                    "object": "chat.completion",
                    "created": int(time.time()),
                    "model": body["model"],
                    "choices": [
                        {
                            "index": 0,
                            "message": {
                                "role": "assistant",
                                "content": content,
                                "refusal": None,
                                "annotations": [],
                            },
                            "logprobs": None,
                            "finish_reason": "stop",
                        }
                    ],
                    "usage": {
                        "prompt_tokens": len(prompt) // 4,
                        "completion_tokens": 20,
                        "total_tokens": len(prompt) // 4 + 20,
                    },
                    "system_fingerprint": None,
                },
            )
        finally:
            with state._lock:
                state._in_flight -= 1
