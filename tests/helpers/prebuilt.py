"""Images made to look like official prebuilt instance images, pushed to a test registry.

Such an image is made from an image polybench built (it already holds ``/testbed`` at the
base commit with the dependencies), plus a layer of its own (a program on a ``PATH`` set
by the image) and without polybench's labels, like an image polybench did not make. Every
image made here carries the test label ``value``, so that :func:`forget` removes it.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import Any

from docker.errors import ImageNotFound

from polybench.sandbox.docker import LABEL_PREFIX, docker_client
from tests.helpers.docker_fixtures import TEST_LABEL

MARKER_DIR = "/opt/prebuilt/bin"
MARKER = "polybench-prebuilt-marker"


def stream(chunks: Iterator[dict[str, Any]], what: str) -> None:
    """Consume a build or push stream; fail on the first error it reports."""
    for chunk in chunks:
        assert "error" not in chunk, f"{what}: {chunk['error']}"


def forget(value: str) -> None:
    """Remove every image carrying the test label ``value`` (the pulled one included)."""
    client = docker_client()
    for image in client.images.list(filters={"label": f"{TEST_LABEL}={value}"}):
        for tag in image.tags:
            client.images.remove(tag, force=True)


def official_like(parent: str, value: str) -> str:
    """A Dockerfile for an image like an official one made from ``parent``: a layer of its
    own, its own PATH and variable, and polybench's inherited labels blanked."""
    client = docker_client()
    inherited = client.images.get(parent).labels or {}
    blanked = [f'{key}=""' for key in sorted(inherited) if key.startswith(LABEL_PREFIX)]
    script = f"#!/bin/sh\\necho prebuilt-{value}\\n"
    return "\n".join(
        [
            f"FROM {parent}",
            f"RUN mkdir -p {MARKER_DIR} && printf '{script}' > {MARKER_DIR}/{MARKER}"
            f" && chmod +x {MARKER_DIR}/{MARKER}",
            f"ENV PATH={MARKER_DIR}:$PATH POLYBENCH_PREBUILT={value}",
            "LABEL " + " ".join([*blanked, f"{TEST_LABEL}={value}"]),
            "",
        ]
    )


def push_official_like(parent: str, reference: str, value: str) -> None:
    """Build ``reference`` from ``parent`` (see :func:`official_like`), push it to its
    registry, and remove it here, so that using it means pulling it back."""
    client = docker_client()
    stream(
        client.api.build(
            fileobj=io.BytesIO(official_like(parent, value).encode()),
            tag=reference,
            rm=True,
            forcerm=True,
            pull=False,
            decode=True,
        ),
        f"building {reference}",
    )
    repository, _, tag = reference.rpartition(":")
    stream(client.api.push(repository, tag=tag, stream=True, decode=True), "push")
    forget(value)


def is_local(reference: str) -> bool:
    """True when the daemon has ``reference``."""
    try:
        docker_client().images.get(reference)
    except ImageNotFound:
        return False
    return True
