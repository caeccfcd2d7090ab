"""A local metering proxy in front of an OpenAI-compatible API, for third-party CLI agents.

Each agent run gets its own base URL, ``http://127.0.0.1:<port>/i/<token>/v1``: requests
under it are forwarded to the upstream base URL with the real API key (the agent only
ever sees the token), and the usage reported in the responses is added up per token,
so parallel runs are counted apart. Bodies go back unchanged; streamed responses are
passed on chunk by chunk as they arrive.

The proxy forwards exactly what it meters: ``POST`` to ``chat/completions``,
``responses`` or ``completions`` (after ``/v1`` or not), spelled exactly so. Any other
method or path (another endpoint, a ``.`` or ``..`` segment, an encoded or doubled
slash) gets HTTP 404 and never reaches upstream, so the key serves nothing that is not
counted. A streamed chat completion reports usage only in its final chunk when the
request set ``stream_options.include_usage``; without it the call is counted with
unknown tokens. Unregistered tokens get HTTP 404, so nothing else on the machine can use
the key.

Besides its TCP port, the proxy can answer on Unix sockets (:meth:`MeteringProxy.listen_unix`):
a sandbox without a network reaches it through such a socket bound into its file system.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import socketserver
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import httpx

_ROUTE = re.compile(r"^/i/([A-Za-z0-9_-]{1,128})(/[^?#]*)?(\?[^#]*)?$")
_METERED = {"/chat/completions": "chat", "/responses": "responses", "/completions": "completions"}
"""The endpoints forwarded (``POST`` only), each counted."""
# Hop-by-hop and framing headers are set by each side itself; credentials are replaced.
_DROPPED_REQUEST_HEADERS = {
    "host",
    "connection",
    "keep-alive",
    "proxy-connection",
    "proxy-authorization",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "content-length",
    "accept-encoding",
    "authorization",
    "api-key",
    "x-api-key",
}
_DROPPED_RESPONSE_HEADERS = {
    "connection",
    "keep-alive",
    "proxy-connection",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "content-length",
    "content-encoding",
}


@dataclass
class ProxyUsage:
    """What one token's agent used through the proxy.

    ``calls`` counts metered requests answered with a 2xx status; of those,
    ``unknown_usage_calls`` reported no usage (their tokens are not in the sums).
    ``failed_calls`` got an error status from upstream or could not reach it.
    """

    calls: int = 0
    unknown_usage_calls: int = 0
    failed_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0

    def as_dict(self) -> dict[str, int]:
        """Plain data for run records."""
        return asdict(self)


class MeteringProxy:
    """An HTTP server on ``host`` (a random port by default) forwarding to ``upstream_base_url``.

    Use as a context manager, or call :meth:`start` and :meth:`stop`.
    """

    def __init__(
        self,
        upstream_base_url: str,
        api_key: str | None,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        timeout: float = 600.0,
    ) -> None:
        self.upstream_base_url = upstream_base_url.rstrip("/")
        self.api_key = api_key
        self.host = host
        self.port = port
        self.timeout = timeout
        self._usage: dict[str, ProxyUsage] = {}
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._unix_servers: list[socketserver.UnixStreamServer] = []
        self._client: httpx.Client | None = None

    # ---- lifecycle -----------------------------------------------------------------------

    def start(self) -> str:
        """Start serving in the background; returns the proxy's root URL."""
        import httpx

        self._client = httpx.Client(
            timeout=httpx.Timeout(self.timeout, connect=min(self.timeout, 30.0)),
            follow_redirects=False,
        )
        proxy = self

        class Handler(_ProxyHandler):
            owner = proxy

        server = _QuietServer((self.host, self.port), Handler)
        self._server = server
        threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True
        ).start()
        return self.url

    def listen_unix(self, path: str) -> UnixListener:
        """Answer on a new Unix socket at ``path`` too (any length: it is bound through the
        folder's descriptor). Close the returned listener when done; :meth:`stop` closes
        every one still open."""
        if self._server is None:
            raise RuntimeError("the proxy is not running")
        proxy = self

        class Handler(_ProxyHandler):
            owner = proxy
            disable_nagle_algorithm = False  # not a TCP socket

        server = _QuietUnixServer(path, Handler)
        with self._lock:
            self._unix_servers.append(server)
        threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True
        ).start()
        return UnixListener(self, server, path)

    def _close_unix(self, server: socketserver.UnixStreamServer) -> None:
        with self._lock:
            if server not in self._unix_servers:
                return
            self._unix_servers.remove(server)
        server.shutdown()
        server.server_close()

    def stop(self) -> None:
        """Stop serving, close the sockets and the upstream connections."""
        for unix_server in list(self._unix_servers):
            self._close_unix(unix_server)
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._client is not None:
            self._client.close()
            self._client = None

    def __enter__(self) -> MeteringProxy:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    @property
    def url(self) -> str:
        """``http://host:port`` of the running proxy."""
        if self._server is None:
            raise RuntimeError("the proxy is not running")
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    # ---- tokens and usage ------------------------------------------------------------------

    def register(self, token: str | None = None) -> str:
        """Accept requests for ``token`` (a new random one when None); returns it."""
        token = token or secrets.token_urlsafe(16)
        if not _ROUTE.match(f"/i/{token}"):
            raise ValueError(f"invalid proxy token {token!r}: use letters, digits, - and _")
        with self._lock:
            self._usage.setdefault(token, ProxyUsage())
        return token

    def base_url_for(self, token: str) -> str:
        """The OpenAI-style base URL (ending in ``/v1``) to hand to the agent of ``token``."""
        return f"{self.url}/i/{token}/v1"

    def usage_for(self, token: str) -> ProxyUsage:
        """A snapshot of the usage counted for ``token`` (raises KeyError if unregistered)."""
        with self._lock:
            return replace(self._usage[token])

    def retire(self, token: str) -> ProxyUsage:
        """Stop accepting ``token`` (its requests get 404 from now on); its final usage."""
        with self._lock:
            return self._usage.pop(token)

    def _known(self, token: str) -> bool:
        with self._lock:
            return token in self._usage

    def _record(self, token: str, ok: bool, usage: dict[str, int] | None) -> None:
        with self._lock:
            entry = self._usage.get(token)
            if entry is None:  # retired while its request was in flight
                return
            if not ok:
                entry.failed_calls += 1
                return
            entry.calls += 1
            if usage is None:
                entry.unknown_usage_calls += 1
                return
            entry.input_tokens += usage["input_tokens"]
            entry.output_tokens += usage["output_tokens"]
            entry.cached_tokens += usage["cached_tokens"]


def usage_counts(usage: Any) -> dict[str, int] | None:
    """Input/output/cached tokens of a Chat Completions or Responses ``usage`` object."""
    if not isinstance(usage, dict):
        return None
    prompt = usage.get("prompt_tokens", usage.get("input_tokens"))
    completion = usage.get("completion_tokens", usage.get("output_tokens"))
    if not isinstance(prompt, int) or not isinstance(completion, int):
        return None
    details = usage.get("prompt_tokens_details") or usage.get("input_tokens_details") or {}
    cached = details.get("cached_tokens") if isinstance(details, dict) else None
    return {
        "input_tokens": prompt,
        "output_tokens": completion,
        "cached_tokens": cached if isinstance(cached, int) else 0,
    }


def usage_in_body(body: bytes) -> dict[str, int] | None:
    """Usage of a whole (non-streamed) JSON response."""
    try:
        data = json.loads(body)
    except ValueError:
        return None
    return usage_counts(data.get("usage")) if isinstance(data, dict) else None


class StreamUsage:
    """Reads server-sent events as they pass and keeps the last usage reported."""

    def __init__(self) -> None:
        self._pending = b""
        self.usage: dict[str, int] | None = None

    def feed(self, chunk: bytes) -> None:
        """Take the next bytes of the stream."""
        lines = (self._pending + chunk).split(b"\n")
        self._pending = lines.pop()
        for line in lines:
            self._line(line)

    def close(self) -> None:
        """Read a last line that had no newline."""
        if self._pending:
            self._line(self._pending)
            self._pending = b""

    def _line(self, line: bytes) -> None:
        if not line.startswith(b"data:"):
            return
        payload = line[5:].strip()
        if not payload or payload == b"[DONE]":
            return
        try:
            event = json.loads(payload)
        except ValueError:
            return
        if not isinstance(event, dict):
            return
        found = usage_counts(event.get("usage"))
        response = event.get("response")
        if found is None and isinstance(response, dict):  # Responses API events
            found = usage_counts(response.get("usage"))
        if found is not None:
            self.usage = found


def _read_chunked(stream: Any) -> bytes:
    """A request body sent with ``Transfer-Encoding: chunked``."""
    body = bytearray()
    while True:
        size_line = stream.readline(1024)
        size = int(size_line.split(b";", 1)[0].strip() or b"0", 16)
        if size == 0:
            while stream.readline(1024) not in (b"\r\n", b"\n", b""):
                pass
            return bytes(body)
        body += stream.read(size)
        stream.readline(1024)


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        # An agent closing its keep-alive connection is routine, not worth a traceback.
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class _QuietUnixServer(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True

    def server_bind(self) -> None:
        # A Unix socket path is limited to about 108 bytes; the folder's descriptor makes
        # the path short whatever the folder's own path is.
        folder, name = os.path.split(str(self.server_address))
        descriptor = os.open(folder or ".", os.O_PATH)
        try:
            self.socket.bind(f"/proc/self/fd/{descriptor}/{name}")
            # The sandbox's own user connects (connecting needs write permission); the
            # socket lies in that sandbox's scratch folder, which no one else sees.
            os.chmod(f"/proc/self/fd/{descriptor}/{name}", 0o666)
        finally:
            os.close(descriptor)

    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class UnixListener:
    """A Unix socket the proxy answers on; :meth:`close` stops it and removes the file."""

    def __init__(
        self, proxy: MeteringProxy, server: socketserver.UnixStreamServer, path: str
    ) -> None:
        self._proxy = proxy
        self._server = server
        self.path = path

    def close(self) -> None:
        """Stop answering on the socket and remove it. Safe to call twice."""
        self._proxy._close_unix(self._server)
        with contextlib.suppress(OSError):
            os.unlink(self.path)

    def __enter__(self) -> UnixListener:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class _ProxyHandler(BaseHTTPRequestHandler):
    owner: MeteringProxy
    protocol_version = "HTTP/1.1"
    # Headers and body leave in separate writes; without TCP_NODELAY the body can wait for
    # the client's delayed ACK (about 40 ms on Linux) on every request.
    disable_nagle_algorithm = True
    _reply_started = False

    def log_message(self, format: str, *args: Any) -> None:
        return

    def do_GET(self) -> None:
        self._forward()

    def do_POST(self) -> None:
        self._forward()

    def do_DELETE(self) -> None:
        self._forward()

    def _reply_error(self, status: int, message: str) -> None:
        data = json.dumps({"error": {"message": message, "type": "polybench_proxy"}}).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _body(self) -> bytes:
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            return _read_chunked(self.rfile)
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _forward(self) -> None:
        owner = self.owner
        match = _ROUTE.match(self.path)
        if match is None or not owner._known(match[1]):
            self._body()
            return self._reply_error(404, "unknown proxy route or token")
        token, rest, query = match[1], match[2] or "/", match[3] or ""
        suffix = rest[3:] if rest.startswith("/v1/") else rest
        metered = _METERED.get(suffix) if self.command == "POST" else None
        body = self._body()
        if metered is None:
            return self._reply_error(
                404,
                f"the proxy forwards only POST to {', '.join(sorted(_METERED))} "
                f"(not {self.command} {rest})",
            )
        headers = {
            name: value
            for name, value in self.headers.items()
            if name.lower() not in _DROPPED_REQUEST_HEADERS
        }
        headers["Accept-Encoding"] = "identity"
        if owner.api_key:
            headers["Authorization"] = f"Bearer {owner.api_key}"
        self._reply_started = False
        client = owner._client
        if client is None:
            return self._reply_error(503, "the proxy is stopping")
        url = owner.upstream_base_url + suffix + query
        recorded = False

        def record(ok: bool, usage: dict[str, int] | None) -> None:
            # Called before the last byte goes out, so the count is complete by the time
            # the agent has read its answer.
            nonlocal recorded
            if metered and not recorded:
                recorded = True
                owner._record(token, ok, usage if ok else None)

        try:
            with client.stream(self.command, url, content=body, headers=headers) as upstream:
                ok = 200 <= upstream.status_code < 300
                content_type = upstream.headers.get("content-type", "")
                if content_type.startswith("text/event-stream"):
                    self._relay_stream(upstream, lambda usage: record(ok, usage))
                else:
                    data = upstream.read()
                    record(ok, usage_in_body(data))
                    self._relay_whole(upstream, data)
        except Exception as exc:  # upstream unreachable or broken, or the agent hung up
            record(False, None)
            if self._reply_started:
                self.close_connection = True
            else:
                self._try_reply_error(502, f"upstream request failed: {type(exc).__name__}: {exc}")

    def _start_reply(self, upstream: httpx.Response, chunked: bool, length: int = 0) -> None:
        self._reply_started = True
        # Upstream's own Date and Server headers are passed on instead of ours.
        self.send_response_only(upstream.status_code)
        for name, value in upstream.headers.multi_items():
            if name.lower() not in _DROPPED_RESPONSE_HEADERS:
                self.send_header(name, value)
        if chunked:
            self.send_header("Transfer-Encoding", "chunked")
        else:
            self.send_header("Content-Length", str(length))
        self.end_headers()

    def _relay_whole(self, upstream: httpx.Response, data: bytes) -> None:
        self._start_reply(upstream, chunked=False, length=len(data))
        self.wfile.write(data)

    def _relay_stream(
        self, upstream: httpx.Response, on_end: Callable[[dict[str, int] | None], None]
    ) -> None:
        self._start_reply(upstream, chunked=True)
        reader = StreamUsage()
        for chunk in _nonempty(upstream.iter_bytes()):
            reader.feed(chunk)
            self.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
            self.wfile.flush()
        reader.close()
        on_end(reader.usage)
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _try_reply_error(self, status: int, message: str) -> None:
        try:
            self._reply_error(status, message)
        except OSError:
            self.close_connection = True


def _nonempty(chunks: Iterator[bytes]) -> Iterator[bytes]:
    # An empty chunk would end the chunked encoding early.
    return (chunk for chunk in chunks if chunk)
