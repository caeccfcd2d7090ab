"""Sandboxes: isolated places where a repository's commands run."""

from polybench.sandbox.base import ExecResult, Sandbox, SandboxError
from polybench.sandbox.local import LocalSandbox, bubblewrap_available

__all__ = ["ExecResult", "LocalSandbox", "Sandbox", "SandboxError", "bubblewrap_available"]
