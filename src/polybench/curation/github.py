"""A small GitHub REST client: token, pagination, rate-limit waits and a disk cache.

Every successful (200) or not-found (404) response is stored on disk, keyed by the
method, the full URL, the ``Accept`` header and the request body, so running a
collection again replays it without any request (``refresh=True`` bypasses the cache).

Rate limits: a 403 or 429 carrying ``Retry-After``, or ``X-RateLimit-Remaining: 0`` with
``X-RateLimit-Reset`` (epoch seconds), or a "secondary rate limit" message, makes the
client sleep until the limit resets and try again. A wait longer than ``max_rate_wait``
seconds raises :class:`RateLimitError` instead of sleeping for hours.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx

from polybench.atomic import atomic_write_text

DEFAULT_API_URL = "https://api.github.com"
JSON_MEDIA = "application/vnd.github+json"
DIFF_MEDIA = "application/vnd.github.diff"
API_VERSION = "2022-11-28"
_CACHED_STATUSES = (200, 404)
_KEPT_HEADERS = ("link", "content-type")
_LINK = re.compile(r'<(?P<url>[^>]+)>\s*;\s*rel="(?P<rel>[^"]+)"')


class GitHubError(RuntimeError):
    """A request failed; ``status`` is the HTTP status (None for a transport error)."""

    def __init__(self, message: str, status: int | None = None, url: str = "") -> None:
        super().__init__(message)
        self.status = status
        self.url = url


class RateLimitError(GitHubError):
    """The rate limit resets later than the client is allowed to wait."""


@dataclass(frozen=True)
class Response:
    """A response as the client hands it out (from the network or the cache)."""

    status: int
    url: str
    headers: dict[str, str]
    text: str
    from_cache: bool = False

    def json(self) -> Any:
        """The body parsed as JSON."""
        return json.loads(self.text)

    def link(self, rel: str) -> str | None:
        """The URL of the ``Link`` header relation ``rel`` (``next``, ``last``...)."""
        return parse_link(self.headers.get("link", "")).get(rel)


def parse_link(header: str) -> dict[str, str]:
    """``{rel: url}`` from a ``Link`` header."""
    return {match["rel"]: match["url"] for match in _LINK.finditer(header or "")}


def page_number(url: str) -> int | None:
    """The ``page`` query parameter of a URL, or None."""
    values = parse_qs(urlsplit(url).query).get("page")
    return int(values[0]) if values and values[0].isdigit() else None


class ResponseCache:
    """Responses stored as JSON files under ``root``, one per request key."""

    def __init__(self, root: Path) -> None:
        self.root = root

    @staticmethod
    def key(method: str, url: str, accept: str, body: str = "") -> str:
        """The cache key of a request."""
        material = "\0".join((method.upper(), url, accept, body))
        return hashlib.sha256(material.encode("utf-8")).hexdigest()

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> Response | None:
        """The stored response for ``key``, or None."""
        path = self._path(key)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return Response(
            status=int(data["status"]),
            url=str(data["url"]),
            headers=dict(data.get("headers", {})),
            text=str(data["text"]),
            from_cache=True,
        )

    def put(self, key: str, response: Response) -> None:
        """Store ``response`` under ``key`` (atomically)."""
        record = {
            "status": response.status,
            "url": response.url,
            "headers": response.headers,
            "text": response.text,
        }
        atomic_write_text(self._path(key), json.dumps(record))


class GitHubClient:
    """GET (and GraphQL POST) requests to the GitHub API with caching and rate-limit waits."""

    def __init__(
        self,
        api_url: str = DEFAULT_API_URL,
        token: str | None = None,
        cache_dir: Path | None = None,
        refresh: bool = False,
        max_rate_wait: float = 3600.0,
        retries: int = 3,
        timeout: float = 30.0,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.api_url = api_url.rstrip("/")
        self.token = token if token is not None else os.environ.get("GITHUB_TOKEN") or None
        self.cache = ResponseCache(cache_dir) if cache_dir is not None else None
        self.refresh = refresh
        self.max_rate_wait = max_rate_wait
        self.retries = retries
        self.sleep = sleep
        self.clock = clock
        self.requests_made = 0
        self.cache_hits = 0
        self.rate_limit_waits: list[float] = []
        headers = {"User-Agent": "polybench", "X-GitHub-Api-Version": API_VERSION}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        self._http = httpx.Client(headers=headers, timeout=timeout, follow_redirects=True)

    def close(self) -> None:
        """Close the HTTP connection pool."""
        self._http.close()

    def __enter__(self) -> GitHubClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def url(self, path_or_url: str, params: dict[str, Any] | None = None) -> str:
        """An absolute URL for an API path, with its query in a stable order."""
        base = path_or_url if "://" in path_or_url else f"{self.api_url}/{path_or_url.lstrip('/')}"
        if not params:
            return base
        query = urlencode(sorted((k, str(v)) for k, v in params.items()))
        return f"{base}{'&' if '?' in base else '?'}{query}"

    def get(
        self, path_or_url: str, params: dict[str, Any] | None = None, accept: str = JSON_MEDIA
    ) -> Response:
        """GET a path or URL. Returns 200 and 404 responses; raises GitHubError otherwise."""
        return self._request("GET", self.url(path_or_url, params), accept)

    def get_json(self, path: str, params: dict[str, Any] | None = None) -> Any:
        """GET and parse JSON; None when the resource does not exist (404)."""
        response = self.get(path, params)
        return None if response.status == 404 else response.json()

    def paginate(self, path: str, params: dict[str, Any] | None = None) -> Iterator[Any]:
        """Every item of a list endpoint, following ``Link: rel="next"`` page by page."""
        url: str | None = self.url(path, params)
        while url is not None:
            response = self._request("GET", url, JSON_MEDIA)
            if response.status == 404:
                return
            items = response.json()
            if not isinstance(items, list):
                raise GitHubError(f"expected a list from {url}", response.status, url)
            yield from items
            url = response.link("next")

    def count(self, path: str, params: dict[str, Any] | None = None) -> int:
        """How many items a list endpoint holds, from one request with ``per_page=1``."""
        response = self.get(path, {**(params or {}), "per_page": 1})
        if response.status == 404:
            return 0
        last = response.link("last")
        number = page_number(last) if last else None
        if number is not None:
            return number
        return len(response.json())

    def graphql(self, query: str, variables: dict[str, Any]) -> Any:
        """A GraphQL query (needs a token); returns its ``data`` member."""
        body = json.dumps({"query": query, "variables": variables}, sort_keys=True)
        response = self._request("POST", f"{self.api_url}/graphql", JSON_MEDIA, body)
        payload = response.json()
        if payload.get("errors"):
            raise GitHubError(f"GraphQL error: {payload['errors'][0].get('message')}", 200)
        return payload.get("data")

    def _request(self, method: str, url: str, accept: str, body: str = "") -> Response:
        key = ResponseCache.key(method, url, accept, body)
        if self.cache is not None and not self.refresh:
            cached = self.cache.get(key)
            if cached is not None:
                self.cache_hits += 1
                return cached
        response = self._send(method, url, accept, body)
        if response.status in _CACHED_STATUSES:
            if self.cache is not None:
                self.cache.put(key, response)
            return response
        message = response.text[:300].strip()
        raise GitHubError(
            f"{method} {url}: HTTP {response.status}: {message}", response.status, url
        )

    def _send(self, method: str, url: str, accept: str, body: str) -> Response:
        failures = 0
        rate_waits = 0
        while True:
            try:
                self.requests_made += 1
                raw = self._http.request(
                    method, url, headers={"Accept": accept}, content=body or None
                )
            except httpx.TransportError as exc:
                failures += 1
                if failures > self.retries:
                    raise GitHubError(f"{method} {url}: {exc}", None, url) from exc
                self.sleep(2.0 ** (failures - 1))
                continue
            wait = self._rate_limit_wait(raw)
            if wait is not None:
                rate_waits += 1
                if wait > self.max_rate_wait or rate_waits > 10:
                    raise RateLimitError(
                        f"GitHub rate limit: the limit resets in {wait:.0f}s, longer than the "
                        f"{self.max_rate_wait:.0f}s allowed (set GITHUB_TOKEN for a higher "
                        "limit, or rerun later: responses so far are cached)",
                        raw.status_code,
                        url,
                    )
                self.rate_limit_waits.append(wait)
                self.sleep(wait)
                continue
            if raw.status_code >= 500 and failures < self.retries:
                failures += 1
                self.sleep(2.0 ** (failures - 1))
                continue
            headers = {k: raw.headers[k] for k in _KEPT_HEADERS if k in raw.headers}
            return Response(raw.status_code, url, headers, raw.text)

    def _rate_limit_wait(self, raw: httpx.Response) -> float | None:
        """Seconds to wait when ``raw`` says the rate limit was hit, else None."""
        if raw.status_code not in (403, 429):
            return None
        retry_after = raw.headers.get("retry-after", "").strip()
        if retry_after.isdigit():
            return float(retry_after)
        if raw.headers.get("x-ratelimit-remaining") == "0":
            reset = raw.headers.get("x-ratelimit-reset", "").strip()
            if reset.isdigit():
                return max(0.0, float(reset) - self.clock()) + 1.0
            return 60.0
        if raw.status_code == 429 or "rate limit" in raw.text.lower():
            return 60.0
        return None
