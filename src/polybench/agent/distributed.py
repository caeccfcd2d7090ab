"""Agent runs on Ray: one task per instance, the provider built on the task's node.

A task gets the picklable :class:`AgentJob` (provider settings, agent settings, the
agent command if any, the run folder) and the instance. On its worker it builds the
backend's provider (once per worker process and settings), runs
:func:`polybench.agent.runner.run_one` there, writes the trajectory into the run folder
and returns the :class:`~polybench.agent.runner.AgentRecord`; the driver adds each record
to ``predictions.jsonl`` as it arrives, so a killed run resumes as a local one does.

Each worker process starts its own metering proxy for agent commands (the command runs
on that node and must reach a proxy there). The API key is read from the worker's
environment (``api_key_env``): a Ray started by the run inherits this process's
environment; on a cluster, set the variable where the nodes were started. The run folder
must be at the same path on every node, as for ``polybench eval --executor ray``.
"""

from __future__ import annotations

import contextlib
import math
import pickle
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from polybench import DISTRIBUTION
from polybench.agent.command import CommandAgent
from polybench.agent.proxy import MeteringProxy
from polybench.agent.runner import AgentInputError, AgentRecord, run_one, start_proxy
from polybench.agent.settings import AgentSettings
from polybench.dataset.models import Instance
from polybench.environments.backends import ProviderSettings, build_provider
from polybench.environments.provider import SandboxProvider

_WAIT_SECONDS = 1.0


@dataclass(frozen=True)
class AgentJob:
    """What every task of an agent run shares (picklable)."""

    provider: ProviderSettings
    agent: AgentSettings
    command: str | None
    run_dir: str


@dataclass(frozen=True)
class RaySchedule:
    """Where and how tasks run: ``address`` as for ``eval`` (None: start Ray here with
    ``workers * cpus_per_task`` CPUs)."""

    address: str | None = None
    cpus_per_task: float = 1.0
    max_retries: int = 2
    workers: int = 2


_PROVIDERS: dict[bytes, SandboxProvider] = {}
_PROXIES: dict[tuple[str | None, str, float], MeteringProxy] = {}


def _provider(settings: ProviderSettings) -> SandboxProvider:
    key = pickle.dumps(settings)
    provider = _PROVIDERS.get(key)
    if provider is None:
        provider = build_provider(settings)
        _PROVIDERS[key] = provider
    return provider


def _proxy(agent: AgentSettings) -> MeteringProxy:
    """This worker process's proxy for ``agent``'s API (it lives as long as the worker)."""
    key = (agent.base_url, agent.api_key_env, agent.request_timeout)
    proxy = _PROXIES.get(key)
    if proxy is None:
        proxy = start_proxy(agent)
        _PROXIES[key] = proxy
    return proxy


def run_on_worker(job: AgentJob, instance: Instance) -> AgentRecord:
    """The body of a task: one instance on this node."""
    command = None
    if job.command is not None:
        command = CommandAgent(job.command, job.agent, _proxy(job.agent))
    return run_one(_provider(job.provider), instance, job.agent, Path(job.run_dir), command)


def run_on_ray(
    job: AgentJob,
    todo: list[Instance],
    schedule: RaySchedule,
    on_record: Callable[[AgentRecord], None],
) -> None:
    """Run every instance of ``todo`` as a Ray task; ``on_record`` gets each record here.

    A task whose worker or node was lost ``max_retries + 1`` times, or that raised, gives
    a ``harness_error`` record (done again by a rerun). Raises :class:`AgentInputError`
    when Ray is not installed or cannot be started or reached.
    """
    try:
        import ray

        from polybench.runner.ray_executor import RayUnavailable, connected
    except ImportError as exc:
        if exc.name is not None and exc.name.split(".")[0] != "ray":
            raise
        raise AgentInputError(
            f"the ray executor needs Ray ({exc}): pip install '{DISTRIBUTION}[ray]'"
        ) from exc
    num_cpus = max(1, math.ceil(schedule.workers * schedule.cpus_per_task))
    try:
        with connected(schedule.address, num_cpus):
            _run_tasks(ray, job, todo, schedule, on_record)
    except RayUnavailable as exc:
        raise AgentInputError(str(exc)) from exc


def _run_tasks(
    ray: Any,
    job: AgentJob,
    todo: list[Instance],
    schedule: RaySchedule,
    on_record: Callable[[AgentRecord], None],
) -> None:
    from ray.exceptions import RayError, RayTaskError

    task = ray.remote(run_on_worker)
    options: dict[str, Any] = {
        "num_cpus": schedule.cpus_per_task,
        "max_retries": schedule.max_retries,
        "retry_exceptions": [OSError],
        "scheduling_strategy": "SPREAD",
    }
    job_ref = ray.put(job)
    pending: dict[Any, tuple[Instance, float]] = {}
    try:
        for instance in todo:
            submit = task.options(name=f"polybench-agent:{instance.instance_id}", **options)
            pending[submit.remote(job_ref, instance)] = (instance, time.monotonic())
        while pending:
            done, _ = ray.wait(list(pending), num_returns=1, timeout=_WAIT_SECONDS)
            for ref in done:
                instance, started = pending.pop(ref)
                try:
                    record: AgentRecord = ray.get(ref)
                except RayTaskError as exc:
                    cause = exc.cause if isinstance(exc.cause, BaseException) else exc
                    record = _lost(job, instance, started, f"{type(cause).__name__}: {cause}")
                except RayError as exc:
                    first = (str(exc).strip().splitlines() or [""])[0]
                    record = _lost(
                        job,
                        instance,
                        started,
                        f"the Ray worker running it was lost {schedule.max_retries + 1} times "
                        f"({type(exc).__name__}: {first})",
                    )
                on_record(record)
    except BaseException:
        for ref in pending:  # Ctrl-C or a fatal error: stop what is queued or running
            with contextlib.suppress(Exception):
                ray.cancel(ref, force=True)
        raise


def _lost(job: AgentJob, instance: Instance, started: float, reason: str) -> AgentRecord:
    return AgentRecord(
        instance_id=instance.instance_id,
        model_patch="",
        model_name_or_path=job.agent.model,
        usage={"input_tokens": 0, "output_tokens": 0},
        api_calls=0,
        exit_status="harness_error",
        reason=reason,
        wall_seconds=round(time.monotonic() - started, 2),
    )
