"""Choosing how a run executes: ``local`` (a thread pool here) or ``ray`` (a Ray cluster).

Both executors take the same :class:`~polybench.runner.run.RunPlan`, report progress
through the same callbacks, write the same run folder and resume the same way. Ray is an
optional dependency (``pip install 'polybench-harness[ray]'``) imported only when asked for.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from polybench import DISTRIBUTION
from polybench.environments.backends import ProviderSettings, build_provider
from polybench.environments.provider import SandboxProvider
from polybench.grading.result import InstanceResult
from polybench.runner.instance import InstanceRunner, RunSettings
from polybench.runner.run import Runner, RunOutcome, RunPlan

EXECUTORS = ("local", "ray")


class ExecutorUnavailable(RuntimeError):
    """The executor cannot be used here (unknown name, or Ray is not installed)."""


class PlanRunner(Protocol):
    """Anything that evaluates a run plan: :class:`Runner` or ``RayRunner``."""

    def run(self, plan: RunPlan) -> RunOutcome:
        """Evaluate the plan's instances; finished ones are reused."""
        ...


def make_runner(
    executor: str,
    provider_settings: ProviderSettings,
    settings: RunSettings,
    *,
    provider: SandboxProvider | None = None,
    ray_address: str | None = None,
    ray_cpus_per_task: float = 1.0,
    ray_max_retries: int = 2,
    ray_resources: dict[str, float] | None = None,
    on_start: Callable[[int, int], None] | None = None,
    on_result: Callable[[InstanceResult], None] | None = None,
    on_interrupt: Callable[[int], None] | None = None,
) -> PlanRunner:
    """The runner of ``executor`` for sandboxes of ``provider_settings.backend``.

    ``local`` uses ``plan.workers`` threads and ``provider`` (built from
    ``provider_settings`` when not given). ``ray`` sends ``provider_settings`` and
    ``settings`` to Ray tasks, which build the provider on their node; ``ray_address`` is
    ``auto``, ``HOST:PORT`` or None (start Ray here with ``plan.workers`` CPUs). Raises
    :class:`ExecutorUnavailable` or ``ValueError``.
    """
    if executor == "local":
        if ray_address is not None:
            raise ValueError("--ray-address needs --executor ray")
        built = provider if provider is not None else build_provider(provider_settings)
        instance_runner = InstanceRunner(built, settings)
        return Runner(
            instance_runner, on_start=on_start, on_result=on_result, on_interrupt=on_interrupt
        )
    if executor == "ray":
        try:
            from polybench.runner.ray_executor import RayOptions, RayRunner
        except ImportError as exc:
            if exc.name is not None and exc.name.split(".")[0] != "ray":
                raise
            raise ExecutorUnavailable(
                f"the ray executor needs Ray ({exc}): pip install '{DISTRIBUTION}[ray]'"
            ) from exc
        options = RayOptions(
            address=ray_address,
            cpus_per_task=ray_cpus_per_task,
            max_retries=ray_max_retries,
            resources=dict(ray_resources or {}),
        )
        return RayRunner(
            provider_settings, settings, options, on_start=on_start, on_result=on_result
        )
    raise ExecutorUnavailable(f"unknown executor {executor!r} (available: {', '.join(EXECUTORS)})")
