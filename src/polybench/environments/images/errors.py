"""Errors of the image layer (importable without the Docker SDK)."""

from __future__ import annotations

from pathlib import Path


class ImageBuildError(RuntimeError):
    """An image could not be built or pulled; ``log_path`` holds the build log when there is one.

    This is an infrastructure error: the harness could not make the environment, which says
    nothing about the prediction.
    """

    def __init__(self, message: str, log_path: Path | None = None) -> None:
        super().__init__(message)
        self.log_path = log_path
