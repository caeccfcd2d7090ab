"""The metering proxy: per-token usage, unchanged responses, the real key kept upstream."""

from __future__ import annotations

import json
import re
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from openai import OpenAI

from polybench.agent.loop import run_episode
from polybench.agent.proxy import MeteringProxy, ProxyUsage, StreamUsage
from polybench.agent.workspace import LocalWorkspace
from tests.agent.conftest import settings_for
from tests.agent.fake_chat import Reply, ScriptedChatServer, bash, error, submit

REAL_KEY = "sk-real-upstream-key"


def by_request(body: dict[str, Any]) -> Reply:
    """A reply whose usage is written in the request: ``use P C K`` in the last message."""
    found = re.search(r"use (\d+) (\d+) (\d+)", str(body.get("messages") or body.get("input")))
    assert found is not None
    prompt, completion, cached = (int(value) for value in found.groups())
    return Reply(content=f"answer to {found[0]}", usage=(prompt, completion, cached))


@pytest.fixture
def upstream() -> Iterator[ScriptedChatServer]:
    server = ScriptedChatServer([], responder=by_request)
    server.start()
    yield server
    server.stop()


@pytest.fixture
def proxy(upstream: ScriptedChatServer) -> Iterator[MeteringProxy]:
    with MeteringProxy(upstream.base_url, REAL_KEY) as running:
        yield running


def ask(client: OpenAI, text: str, **options: Any) -> Any:
    return client.chat.completions.create(
        model="m", messages=[{"role": "user", "content": text}], **options
    )


def test_parallel_agents_are_counted_apart(
    proxy: MeteringProxy, upstream: ScriptedChatServer
) -> None:
    plans = {
        "alpha": [(120, 7, 0), (300, 11, 100), (410, 3, 256)],
        "beta": [(50, 5, 0), (75, 9, 0)],
        "gamma": [(1000, 1, 999)],
    }
    tokens = {name: proxy.register(name) for name in plans}
    failures: list[BaseException] = []

    def agent(name: str) -> None:
        try:
            client = OpenAI(base_url=proxy.base_url_for(tokens[name]), api_key="agent-dummy")
            for prompt, completion, cached in plans[name]:
                answer = ask(client, f"please use {prompt} {completion} {cached}")
                assert answer.choices[0].message.content.endswith(f"{completion} {cached}")
            client.close()
        except BaseException as exc:  # reported by the main thread
            failures.append(exc)

    threads = [threading.Thread(target=agent, args=(name,)) for name in plans]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert failures == []

    for name, plan in plans.items():
        assert proxy.usage_for(tokens[name]) == ProxyUsage(
            calls=len(plan),
            input_tokens=sum(p for p, _, _ in plan),
            output_tokens=sum(c for _, c, _ in plan),
            cached_tokens=sum(k for _, _, k in plan),
        )
    assert len(upstream.requests) == 6
    assert upstream.authorizations == [f"Bearer {REAL_KEY}"] * 6
    assert set(upstream.paths) == {"/v1/chat/completions"}


def test_responses_pass_through_unchanged(
    proxy: MeteringProxy, upstream: ScriptedChatServer
) -> None:
    token = proxy.register()
    body = {"model": "m", "messages": [{"role": "user", "content": "use 10 2 0"}]}
    with httpx.Client() as client:
        whole = client.post(f"{proxy.base_url_for(token)}/chat/completions", json=body)
        streamed = client.post(
            f"{proxy.base_url_for(token)}/chat/completions",
            json={**body, "stream": True, "stream_options": {"include_usage": True}},
        )
    assert whole.status_code == 200
    assert whole.content == upstream.sent[0]
    assert whole.headers["x-fake-server"] == "scripted"
    assert whole.headers["content-type"] == "application/json"
    assert streamed.content == upstream.sent[1]
    assert streamed.headers["content-type"] == "text/event-stream"
    assert proxy.usage_for(token) == ProxyUsage(calls=2, input_tokens=20, output_tokens=4)


def test_streaming_usage_is_counted_only_when_reported(proxy: MeteringProxy) -> None:
    token = proxy.register()
    client = OpenAI(base_url=proxy.base_url_for(token), api_key="x")
    with_usage = ask(client, "use 40 4 8", stream=True, stream_options={"include_usage": True})
    chunks = list(with_usage)
    assert chunks[-1].usage is not None and chunks[-1].usage.prompt_tokens == 40
    without_usage = list(ask(client, "use 60 6 0", stream=True))
    assert all(chunk.usage is None for chunk in without_usage)
    client.close()
    assert proxy.usage_for(token) == ProxyUsage(
        calls=2, unknown_usage_calls=1, input_tokens=40, output_tokens=4, cached_tokens=8
    )


def test_responses_api_is_metered(proxy: MeteringProxy, upstream: ScriptedChatServer) -> None:
    token = proxy.register()
    client = OpenAI(base_url=proxy.base_url_for(token), api_key="x")
    response = client.responses.create(model="m", input="use 33 3 11")
    client.close()
    assert response.output_text == "answer to use 33 3 11"
    assert upstream.paths == ["/v1/responses"]
    assert proxy.usage_for(token) == ProxyUsage(
        calls=1, input_tokens=33, output_tokens=3, cached_tokens=11
    )


@pytest.mark.parametrize(
    "method, suffix",
    [
        ("GET", "/models"),
        ("POST", "/./chat/completions"),
        ("POST", "/v1/./chat/completions"),
        ("POST", "/../chat/completions"),
        ("POST", "/chat/completions/../../../admin"),
        ("POST", "/%2e/chat/completions"),
        ("POST", "/chat%2Fcompletions"),
        ("POST", "//chat/completions"),
        ("POST", "/chat/completions/"),
        ("POST", "/embeddings"),
        ("POST", "/files"),
        ("GET", "/chat/completions"),
        ("DELETE", "/responses"),
    ],
)
def test_only_the_metered_endpoints_are_forwarded(
    proxy: MeteringProxy, upstream: ScriptedChatServer, method: str, suffix: str
) -> None:
    """What the proxy does not count never reaches upstream with the key: another
    endpoint, another method, or a metered path spelled with dot segments, encoded or
    doubled slashes (served upstream after normalisation, it would go uncounted)."""
    token = proxy.register()
    with socket.create_connection(("127.0.0.1", int(proxy.url.rsplit(":", 1)[1]))) as raw:
        body = b'{"model": "m", "messages": []}'
        request = (
            f"{method} /i/{token}{suffix} HTTP/1.1\r\nHost: x\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
            "Connection: close\r\n\r\n"
        ).encode() + body
        raw.sendall(request)
        answer = raw.makefile("rb").read()
    assert answer.startswith(b"HTTP/1.1 404"), answer[:200]
    assert upstream.requests == [] and upstream.paths == []
    assert proxy.usage_for(token) == ProxyUsage()


def test_the_metered_endpoints_are_forwarded_with_or_without_v1(
    proxy: MeteringProxy, upstream: ScriptedChatServer
) -> None:
    token = proxy.register()
    root = proxy.base_url_for(token).removesuffix("/v1")
    messages = [{"role": "user", "content": "use 5 1 0"}]
    for base in (f"{root}/v1", root):
        answer = httpx.post(f"{base}/chat/completions", json={"model": "m", "messages": messages})
        assert answer.status_code == 200, answer.text
    assert upstream.paths == ["/v1/chat/completions", "/v1/chat/completions"]
    assert proxy.usage_for(token) == ProxyUsage(calls=2, input_tokens=10, output_tokens=2)


def test_unknown_token_is_refused(proxy: MeteringProxy, upstream: ScriptedChatServer) -> None:
    proxy.register("known")
    answer = httpx.post(f"{proxy.url}/i/stranger/v1/chat/completions", json={"model": "m"})
    plain = httpx.post(f"{proxy.url}/v1/chat/completions", json={"model": "m"})
    assert (answer.status_code, plain.status_code) == (404, 404)
    assert upstream.requests == []
    with pytest.raises(KeyError):
        proxy.usage_for("stranger")


def test_upstream_errors_are_passed_on_and_counted() -> None:
    server = ScriptedChatServer([error(429, "slow down")])
    server.start()
    try:
        with MeteringProxy(server.base_url, REAL_KEY) as proxy:
            token = proxy.register()
            answer = httpx.post(
                f"{proxy.base_url_for(token)}/chat/completions",
                json={"model": "m", "messages": []},
            )
            assert answer.status_code == 429
            assert answer.json()["error"]["message"] == "slow down"
            assert proxy.usage_for(token) == ProxyUsage(failed_calls=1)
    finally:
        server.stop()


def test_unreachable_upstream_is_a_bad_gateway() -> None:
    server = ScriptedChatServer([])
    server.start()
    base_url = server.base_url
    server.stop()
    with MeteringProxy(base_url, REAL_KEY, timeout=5) as proxy:
        token = proxy.register()
        answer = httpx.post(
            f"{proxy.base_url_for(token)}/chat/completions", json={"model": "m", "messages": []}
        )
        assert answer.status_code == 502
        assert "upstream request failed" in answer.json()["error"]["message"]
        assert proxy.usage_for(token) == ProxyUsage(failed_calls=1)


def test_built_in_agent_through_the_proxy_agrees_on_usage(make_repo: Any, tmp_path: Path) -> None:
    repo, _ = make_repo({"a.txt": "a\n"})
    server = ScriptedChatServer(
        [
            Reply(calls=(bash("1", "echo b >> a.txt"),), usage=(210, 17, 0)),
            Reply(calls=(submit("2"),), usage=(260, 4, 200)),
        ]
    )
    server.start()
    try:
        with MeteringProxy(server.base_url, REAL_KEY) as proxy:
            token = proxy.register()
            settings = settings_for(server).model_copy(
                update={"base_url": proxy.base_url_for(token)}
            )
            episode = run_episode("Add b.", LocalWorkspace(repo), settings)
            metered = proxy.usage_for(token)
    finally:
        server.stop()
    assert episode.exit_status == "submitted"
    assert (
        (metered.input_tokens, metered.output_tokens, metered.cached_tokens)
        == (
            episode.usage.input_tokens,
            episode.usage.output_tokens,
            episode.usage.cached_tokens,
        )
        == (470, 21, 200)
    )
    assert metered.calls == episode.api_calls == 2


def test_stream_usage_survives_any_chunking() -> None:
    events = [
        {"choices": [{"delta": {"content": "hi"}}]},
        {"choices": [], "usage": {"prompt_tokens": 9, "completion_tokens": 2}},
    ]
    text = "".join(f"data: {json.dumps(event)}\n\n" for event in events) + "data: [DONE]\n\n"
    raw = text.encode()
    for size in (1, 3, 7, len(raw)):
        reader = StreamUsage()
        for start in range(0, len(raw), size):
            reader.feed(raw[start : start + size])
        reader.close()
        assert reader.usage == {"input_tokens": 9, "output_tokens": 2, "cached_tokens": 0}


def test_responses_stream_usage_is_read_from_the_completed_event() -> None:
    event = {
        "type": "response.completed",
        "response": {"usage": {"input_tokens": 5, "output_tokens": 6, "total_tokens": 11}},
    }
    reader = StreamUsage()
    reader.feed(b"event: response.completed\n")
    reader.feed(f"data: {json.dumps(event)}".encode())
    reader.close()
    assert reader.usage == {"input_tokens": 5, "output_tokens": 6, "cached_tokens": 0}


def test_response_headers_are_not_doubled(proxy: MeteringProxy) -> None:
    token = proxy.register()
    answer = httpx.post(
        f"{proxy.base_url_for(token)}/chat/completions",
        json={"model": "m", "messages": [{"role": "user", "content": "use 1 1 0"}]},
    )
    names = [name.lower() for name, _ in answer.headers.multi_items()]
    assert names.count("date") == 1
    assert names.count("server") == 1
    assert names.count("content-length") == 1


def test_a_retired_token_is_refused_and_keeps_its_final_count(
    proxy: MeteringProxy, upstream: ScriptedChatServer
) -> None:
    token = proxy.register()
    client = OpenAI(base_url=proxy.base_url_for(token), api_key=token, max_retries=0)
    ask(client, "use 10 2 0")
    final = proxy.retire(token)
    assert (final.calls, final.input_tokens, final.output_tokens) == (1, 10, 2)
    with pytest.raises(Exception, match="404"):
        ask(client, "use 10 2 0")
    assert len(upstream.requests) == 1
    with pytest.raises(KeyError):
        proxy.usage_for(token)


def test_the_proxy_answers_on_a_unix_socket_until_it_is_closed(
    proxy: MeteringProxy, upstream: ScriptedChatServer, tmp_path: Path
) -> None:
    token = proxy.register()
    path = tmp_path / "proxy.sock"
    listener = proxy.listen_unix(str(path))
    transport = httpx.HTTPTransport(uds=str(path))
    with httpx.Client(transport=transport, base_url="http://sandbox") as http:
        answer = http.post(
            f"/i/{token}/v1/chat/completions",
            json={"model": "m", "messages": [{"role": "user", "content": "use 7 3 1"}]},
            headers={"Authorization": "Bearer whatever-the-agent-sends"},
        )
    assert answer.status_code == 200 and answer.json()["usage"]["prompt_tokens"] == 7
    assert upstream.authorizations == [f"Bearer {REAL_KEY}"]
    assert proxy.usage_for(token).as_dict()["cached_tokens"] == 1
    listener.close()
    listener.close()  # twice is fine
    assert not path.exists()
    proxy.stop()
    proxy.stop()
