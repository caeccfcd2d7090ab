"""``polybench agent run``: a model on every instance, in the sandboxes that grade it.

For each instance: a sandbox at the base commit (history pruned to it, answers hidden,
network off), its environment activated, the built-in tool loop
(:func:`polybench.agent.loop.run_episode`) with its commands run there, then the patch
taken from the working tree by the harness. The run folder ``<output-dir>/<run-id>/``
gets ``predictions.jsonl`` (rewritten atomically as each instance ends; ``polybench
eval`` and ``report`` read it as it is) and ``trajectories/<instance_id>.traj.json``.
A rerun skips finished instances and redoes those that ended in an error.

With ``agent_command`` set, a command-line agent runs instead of the built-in loop, as
one command in the same sandbox, its model calls metered by a proxy in this process
(:mod:`polybench.agent.command`); its output goes to ``trajectories/<id>.agent.log``.
With ``executor="ray"`` every instance is a Ray task that builds the provider on its
node (:mod:`polybench.agent.distributed`); records still reach ``predictions.jsonl``
here, as they arrive.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from polybench.agent.command import COMMAND_ISOLATIONS, CommandAgent, CommandEnding, relay_mounts
from polybench.agent.loop import run_episode
from polybench.agent.preflight import EndpointCheckError, check_endpoint
from polybench.agent.proxy import MeteringProxy
from polybench.agent.reach import unreachable_program
from polybench.agent.sandboxed import SandboxWorkspace, TakenPatch, take_patch
from polybench.agent.settings import AgentSettings
from polybench.agent.trajectory import Episode, write_trajectory
from polybench.atomic import atomic_write_text
from polybench.dataset.builtin import repo_dir_for
from polybench.dataset.loaders import DatasetError, load_dataset
from polybench.dataset.models import Instance, Language
from polybench.environments.backends import (
    BackendOptionsError,
    ProviderSettings,
    UnknownBackend,
    build_provider,
    get_backend,
)
from polybench.environments.backends.consent import UnisolatedRefused, decide_isolation
from polybench.environments.errors import ProvisionError
from polybench.environments.hiding import answer_paths
from polybench.environments.provider import SandboxProvider
from polybench.grading.policy import PolicyInputs, command_paths, python_package_dirs
from polybench.paths import cache_root
from polybench.runner.checkout import base_files, untracked_entries
from polybench.runner.run import safe_dir_name
from polybench.runner.spec import build_spec
from polybench.runner.steps import harness_env, prepare, python_facts
from polybench.sandbox.base import SandboxError
from polybench.sandbox.boundary import current_boundary
from polybench.seal import read_sealed, write_sealed

PREDICTIONS_FILE = "predictions.jsonl"
TRAJECTORIES = "trajectories"
EXECUTORS = ("local", "ray")
REDONE_STATUSES = frozenset({"api_error", "workspace_error", "environment_error", "harness_error"})
"""Exit statuses a rerun does again (the model did not get a fair chance)."""


class AgentInputError(ValueError):
    """The agent run cannot start; the message says which input is wrong."""


class AgentRunConfig(BaseModel):
    """Everything an agent run needs; the defaults are those of ``polybench agent run``."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    dataset: str | list[Instance] = "mini"
    agent: AgentSettings
    run_id: str | None = None
    output_dir: Path = Path("polybench_agent_runs")
    instance_ids: list[str] | None = None
    workers: int = Field(2, ge=1)
    backend: str = "local"
    backend_options: dict[str, Any] = Field(default_factory=dict)
    history: str = "base"
    repo_dir: Path | None = None
    force: bool = False
    split: str = "test"
    agent_command: str | None = None
    """A shell command run in each sandbox instead of the built-in loop (None: built-in)."""
    agent_mounts: list[Path] = Field(default_factory=list)
    """Folders of this machine the agent command's sandboxes see read-only, at the same
    paths (its installation; a venv's base Python)."""
    executor: str = "local"
    ray_address: str | None = None
    ray_cpus_per_task: float = Field(1.0, gt=0)
    ray_max_retries: int = Field(2, ge=0)
    check_endpoint: bool = True
    """Send one small request first (:mod:`polybench.agent.preflight`); off: skip it."""
    resume_changed: bool = False
    """Resume a run id made with other settings (by default that is refused)."""


class AgentRecord(BaseModel):
    """One line of ``predictions.jsonl``: a prediction, with how it was made."""

    model_config = ConfigDict(extra="allow")

    instance_id: str
    model_patch: str
    model_name_or_path: str
    usage: dict[str, int]
    api_calls: int
    exit_status: str
    reason: str = ""
    wall_seconds: float = 0.0
    steps: int = 0
    flagged_paths: list[dict[str, str]] = Field(default_factory=list)
    flags: list[dict[str, str]] = Field(default_factory=list)
    exit_code: int | None = None
    """An agent command's exit status (None: the built-in agent, or killed at the limit)."""
    proxy_calls: dict[str, int] | None = None
    """An agent command's calls the proxy saw fail, or answered without usage."""

    def line(self) -> str:
        """The record as one JSON line; the fields of agent commands only on their records."""
        command_only = {"exit_code", "proxy_calls"} if self.proxy_calls is None else set()
        return self.model_dump_json(exclude=command_only)


class AgentRunReport(BaseModel):
    """What :func:`run_agents` did; ``network`` says what the agent's commands could reach."""

    run_dir: Path
    records: dict[str, AgentRecord]
    network: str = ""
    ran: list[str] = Field(default_factory=list)
    reused: list[str] = Field(default_factory=list)
    untrusted: str | None = None
    """Why the saved predictions of an earlier attempt were not reused (their seal failed:
    changed outside the harness), or None."""
    stopped: str | None = None
    """Why the run stopped before its end (the first instances all failed on the API)."""
    endpoint_check: str = ""
    """What the check request before the run found ("" when it was skipped)."""

    @property
    def predictions_file(self) -> Path:
        """``<run_dir>/predictions.jsonl``."""
        return self.run_dir / PREDICTIONS_FILE

    @property
    def produced(self) -> list[str]:
        """The instances with a prediction the agent made (see :func:`made_something`)."""
        return [i for i, r in self.records.items() if made_something(r)]


def made_something(record: AgentRecord) -> bool:
    """Whether the agent made a prediction: not an error a rerun redoes, and not an agent
    command that failed without a patch or a single model call (it never ran: a command
    not found, a crash at start)."""
    if record.exit_status in REDONE_STATUSES:
        return False
    never_ran = record.exit_status == "agent_failed" and record.api_calls == 0
    return not (never_ran and not record.model_patch.strip())


class ApiFailing(Exception):
    """The first instances of a run all failed on the model's API: stop starting others."""


FIRST_FAILURES = 3
"""A run stops when its first this many finished instances all failed on the API."""


def failed_on_api(record: AgentRecord) -> bool:
    """Whether the instance ended because the model's API failed (no answer was had)."""
    if record.exit_status == "api_error":
        return True
    calls = record.proxy_calls or {}
    return (
        record.exit_status == "agent_failed"
        and record.api_calls == 0
        and calls.get("failed", 0) > 0
    )


class _ApiWatch:
    """Raises :class:`ApiFailing` when the first :data:`FIRST_FAILURES` instances to finish
    all failed on the API; any other ending first turns the watch off."""

    def __init__(self, todo: int) -> None:
        self.needed = min(FIRST_FAILURES, todo)
        self.failures: list[AgentRecord] = []
        self.watching = todo > FIRST_FAILURES

    def see(self, record: AgentRecord) -> None:
        if not self.watching:
            return
        if not failed_on_api(record):
            self.watching = False
            return
        self.failures.append(record)
        if len(self.failures) >= self.needed:
            last = (record.reason.strip().splitlines() or [""])[0]
            raise ApiFailing(
                f"the first {len(self.failures)} instances all failed on the model's API "
                f"(last: {last}); the others were not started: check --base-url, the key "
                "and the model, then rerun with the same --run-id"
            )


def _instances(config: AgentRunConfig) -> list[Instance]:
    if isinstance(config.dataset, list):
        instances = list(config.dataset)
    else:
        try:
            instances = load_dataset(config.dataset, split=config.split)
        except DatasetError as exc:
            raise AgentInputError(str(exc)) from exc
    wanted = [i.strip() for v in config.instance_ids or [] for i in v.split(",") if i.strip()]
    if not wanted:
        return instances
    unknown = sorted(set(wanted) - {i.instance_id for i in instances})
    if unknown:
        raise AgentInputError(f"unknown instance ids: {', '.join(unknown)}")
    return [i for i in instances if i.instance_id in set(wanted)]


def parse_records(text: str) -> dict[str, AgentRecord]:
    """The records of an agent run's ``predictions.jsonl`` text (bad lines are skipped)."""
    records: dict[str, AgentRecord] = {}
    for line in text.splitlines():
        try:
            record = AgentRecord.model_validate_json(line)
        except ValueError:
            continue
        records[record.instance_id] = record
    return records


def read_records(path: Path) -> tuple[dict[str, AgentRecord], str | None]:
    """The records saved by an earlier attempt of the run, when their seal holds
    (:mod:`polybench.seal`); otherwise none, and why."""
    found = read_sealed(path)
    if found.data is None:
        return {}, None
    if found.problem is not None:
        return {}, found.problem
    return parse_records(found.data.decode("utf-8", errors="replace")), None


class _RecordBook:
    """The run's predictions, rewritten atomically whenever one is added."""

    def __init__(self, path: Path, records: dict[str, AgentRecord]) -> None:
        self.path = path
        self.records = dict(records)
        self._lock = threading.Lock()

    def add(self, record: AgentRecord) -> None:
        with self._lock:
            self.records[record.instance_id] = record
            lines = [self.records[key].line() for key in sorted(self.records)]
            write_sealed(self.path, "".join(line + "\n" for line in lines))


def _settings(config: AgentRunConfig, run_dir: Path, repo_dir: Path | None) -> ProviderSettings:
    try:
        options = get_backend(config.backend).options(config.backend_options)
    except (UnknownBackend, BackendOptionsError) as exc:
        raise AgentInputError(str(exc)) from exc
    return ProviderSettings(
        backend=config.backend,
        repo_dir=repo_dir,
        cache_dir=cache_root(),
        work_dir=run_dir / ".sandboxes",
        allow_network=False,
        options=options,
        hide=answer_paths(config.dataset, config.output_dir, repo_dir),
        history=config.history,
        mounts=command_mounts(config),
        channel=config.agent_command is not None,
    )


def command_mounts(config: AgentRunConfig) -> list[Path]:
    """What an agent command's sandboxes see besides their environment: the relay's Python
    and ``agent_mounts`` (folders resolved; nothing for the built-in agent)."""
    if config.agent_command is None:
        return []
    found: list[Path] = []
    for folder in [*relay_mounts(), *config.agent_mounts]:
        resolved = folder.expanduser().resolve()
        if resolved not in found:
            found.append(resolved)
    return found


def isolation_of(config: AgentRunConfig) -> str:
    """How the run's sandboxes isolate commands: the local backend's resolved isolation
    (``bubblewrap`` or ``none``), or what the backend says (its name when it cannot)."""
    try:
        backend = get_backend(config.backend)
        settings = ProviderSettings(backend=config.backend, options=config.backend_options)
        return backend.isolation(settings) or config.backend
    except (UnknownBackend, BackendOptionsError):
        return config.backend


def network_of(config: AgentRunConfig, isolation: str) -> str:
    """What the agent's commands can reach over the network, in words for records."""
    if isolation == "none":
        return "host: the sandbox is not isolated; commands reach every network this machine does"
    if config.agent_command is not None and isolation == "docker":
        return (
            "none: the command reaches only the metering proxy, through a Unix socket in a "
            "folder mounted read-only into its container, relayed to 127.0.0.1 of the "
            "container's own network"
        )
    if config.agent_command is not None:
        return (
            "none: the command reaches only the metering proxy, through a Unix socket in its "
            "scratch folder relayed to 127.0.0.1 of its own network namespace"
        )
    return "none"


def _check(config: AgentRunConfig) -> None:
    if config.executor not in EXECUTORS:
        raise AgentInputError(
            f"unknown executor {config.executor!r} (available: {', '.join(EXECUTORS)})"
        )
    if config.ray_address is not None and config.executor != "ray":
        raise AgentInputError("--ray-address needs --executor ray")
    if config.agent_command is not None and not config.agent_command.strip():
        raise AgentInputError("--agent-command is empty")
    if config.agent_mounts and config.agent_command is None:
        raise AgentInputError("--agent-mount needs --agent-command")


def _check_readable(folder: Path, resolved: Path) -> None:
    """A local sandbox's user, when it is not this process's (a harness run as root),
    reads a mounted folder through the permissions of others."""
    boundary = current_boundary()
    if boundary is None or boundary.uid == os.geteuid():
        return
    if resolved.stat().st_mode & 0o005 != 0o005:
        raise AgentInputError(
            f"--agent-mount {folder}: the sandboxes' user (uid {boundary.uid}) cannot read "
            f"it; let others read it (chmod o+rx {resolved})"
        )


def _check_reach(config: AgentRunConfig, settings: ProviderSettings) -> None:
    """Refuse mounts that would show answers, and a command whose program its sandboxes
    cannot start."""
    assert config.agent_command is not None
    backend = get_backend(config.backend)
    for folder in config.agent_mounts:
        resolved = folder.expanduser().resolve()
        if not resolved.is_dir():
            raise AgentInputError(f"--agent-mount {folder}: not a folder")
        for secret in settings.hide:
            if resolved == secret or secret in resolved.parents:
                raise AgentInputError(
                    f"--agent-mount {folder}: sandboxes must not see {secret} (it holds "
                    "answers or results); install or copy the agent elsewhere"
                )
        if backend.shows(settings, resolved) is False:
            raise AgentInputError(
                f"--agent-mount {folder}: the {config.backend} backend's sandboxes cannot see "
                "it there (their /tmp and /var/tmp are their own); install the agent elsewhere"
            )
        if config.backend == "local" and isolation_of(config) == "bubblewrap":
            _check_readable(folder, resolved)
    search_path = os.environ.get("PATH", os.defpath)
    problem = unreachable_program(
        config.agent_command,
        lambda path: backend.shows(settings, path),
        search_path,
        image=isolation_of(config) == "docker",
    )
    if problem is not None:
        raise AgentInputError(problem)


def run_agents(
    config: AgentRunConfig,
    on_start: Callable[[int, int], None] | None = None,
    on_record: Callable[[AgentRecord], None] | None = None,
) -> AgentRunReport:
    """Run the agent on every chosen instance (see the module docstring)."""
    _check(config)
    instances = _instances(config)
    for instance in instances:
        safe_dir_name(instance.instance_id)
    run_id = config.run_id or datetime.now().strftime("%Y%m%d-%H%M%S")
    run_dir = (config.output_dir / run_id).expanduser().resolve()
    earlier = earlier_settings(run_dir, config)
    what = "an agent command" if config.agent_command is not None else "an agent's commands"
    try:  # first: refusing costs nothing
        options = get_backend(config.backend).options(config.backend_options)
        decide_isolation(ProviderSettings(backend=config.backend, options=options), what)
    except (UnisolatedRefused, UnknownBackend, BackendOptionsError) as exc:
        raise AgentInputError(str(exc)) from exc
    # Checked with the settings known before anything is made (the built-in repositories
    # are written into the cache only once the run may start).
    settings = _settings(config, run_dir, config.repo_dir)
    problems = get_backend(config.backend).self_check(settings)
    if problems:
        raise AgentInputError(
            f"the {config.backend} backend cannot run here: {'; '.join(problems)}"
        )
    isolation = isolation_of(config)
    if config.agent_command is not None:
        if isolation not in COMMAND_ISOLATIONS:
            raise AgentInputError(
                f"--agent-command cannot run in {isolation} sandboxes: they have no way to "
                f"the harness's metering proxy (it runs in {', '.join(COMMAND_ISOLATIONS)})"
            )
        _check_reach(config, settings)
    # The endpoint last of the checks (they cost nothing), and before anything is prepared.
    checked = ""
    if config.check_endpoint:
        try:
            checked = check_endpoint(config.agent, tools=config.agent_command is None)
        except EndpointCheckError as exc:
            raise AgentInputError(f"the endpoint check failed: {exc}") from exc
    repo_dir = repo_dir_for(config.dataset, config.repo_dir)
    settings = _settings(config, run_dir, repo_dir)
    network = network_of(config, isolation)
    run_dir.mkdir(parents=True, exist_ok=True)
    record = {
        "run_id": run_id,
        "kind": "agent",
        "dataset": config.dataset if isinstance(config.dataset, str) else "given",
        "instances": len(instances),
        **compared_settings(config),
        "backend": config.backend,
        "isolation": isolation,
        "network": network,
        "executor": config.executor,
        "endpoint_check": checked or "skipped",
    }
    if earlier:
        record["earlier_settings"] = earlier
    atomic_write_text(run_dir / "run.json", json.dumps(record, indent=2))
    saved, untrusted = read_records(run_dir / PREDICTIONS_FILE)
    book = _RecordBook(run_dir / PREDICTIONS_FILE, saved)
    reused = [
        i.instance_id
        for i in instances
        if not config.force
        and i.instance_id in book.records
        and book.records[i.instance_id].exit_status not in REDONE_STATUSES
    ]
    todo = [i for i in instances if i.instance_id not in set(reused)]
    if on_start is not None:
        on_start(len(todo), len(reused))
    ran: list[str] = []
    watch = _ApiWatch(len(todo))

    def done(record: AgentRecord) -> None:
        book.add(record)
        ran.append(record.instance_id)
        if on_record is not None:
            on_record(record)
        watch.see(record)

    stopped: str | None = None
    try:
        if todo and config.executor == "ray":
            from polybench.agent.distributed import AgentJob, RaySchedule, run_on_ray

            job = AgentJob(settings, config.agent, config.agent_command, str(run_dir))
            schedule = RaySchedule(
                address=config.ray_address,
                cpus_per_task=config.ray_cpus_per_task,
                max_retries=config.ray_max_retries,
                workers=config.workers,
            )
            run_on_ray(job, todo, schedule, done)
        elif todo:
            _run_here(config, settings, todo, run_dir, done)
    except ApiFailing as exc:
        stopped = str(exc)
    return AgentRunReport(
        run_dir=run_dir,
        records=book.records,
        network=network,
        ran=ran,
        reused=reused,
        untrusted=untrusted,
        stopped=stopped,
        endpoint_check=checked,
    )


SETTINGS_KEPT_APART = frozenset(
    {"api_key_env", "request_timeout", "max_retries", "retry_backoff_seconds",
     "retry_backoff_max_seconds"}
)  # fmt: skip
"""Agent settings that do not change what the model is asked or allowed to do."""


def compared_settings(config: AgentRunConfig) -> dict[str, Any]:
    """What ``run.json`` records of the run's settings; a resumed run must have the same
    (except :data:`SETTINGS_KEPT_APART`)."""
    return {
        "agent": config.agent.model_dump(mode="json"),
        "agent_command": config.agent_command,
        "history": config.history,
    }


def _differences(before: dict[str, Any], now: dict[str, Any]) -> list[str]:
    changed = []
    old_agent, new_agent = before.get("agent") or {}, now["agent"]
    for key in sorted(set(old_agent) | set(new_agent)):
        if key not in SETTINGS_KEPT_APART and old_agent.get(key) != new_agent.get(key):
            changed.append(f"{key}: {old_agent.get(key)!r} -> {new_agent.get(key)!r}")
    for key in ("agent_command", "history"):
        if key in before and before.get(key) != now[key]:
            changed.append(f"{key}: {before.get(key)!r} -> {now[key]!r}")
    return changed


def earlier_settings(run_dir: Path, config: AgentRunConfig) -> list[dict[str, Any]]:
    """The settings of the run id's earlier starts that differ from these (kept in
    ``run.json``, with how many predictions the run had then); raises
    :class:`AgentInputError` when they differ and neither ``resume_changed`` nor ``force``
    (which redoes the chosen instances) is set. A first start has none."""
    try:
        before = json.loads((run_dir / "run.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    if not isinstance(before, dict) or not isinstance(before.get("agent"), dict):
        return []
    now = compared_settings(config)
    changed = _differences(before, now)
    history = [h for h in before.get("earlier_settings") or [] if isinstance(h, dict)]
    if not changed:
        return history
    if not (config.resume_changed or config.force):
        raise AgentInputError(
            f"run {run_dir.name} was made with other settings ({'; '.join(changed)}): its "
            "predictions would be mislabelled. Use another --run-id, --force to redo it with "
            "these settings, or --resume-changed to keep its predictions and go on"
        )
    kept = {key: before.get(key) for key in now}
    saved, _ = read_records(run_dir / PREDICTIONS_FILE)
    return [*history, {**kept, "predictions": len(saved)}]


def _run_here(
    config: AgentRunConfig,
    settings: ProviderSettings,
    todo: list[Instance],
    run_dir: Path,
    done: Callable[[AgentRecord], None],
) -> None:
    """The instances on a thread pool of this process (with one proxy for all commands)."""
    provider = build_provider(settings)
    proxy: MeteringProxy | None = None
    command: CommandAgent | None = None
    if config.agent_command is not None:
        proxy = start_proxy(config.agent)
        command = CommandAgent(config.agent_command, config.agent, proxy)
    try:
        with ThreadPoolExecutor(max_workers=config.workers) as pool:
            futures = [
                pool.submit(run_one, provider, instance, config.agent, run_dir, command)
                for instance in todo
            ]
            stop: ApiFailing | None = None
            try:
                for future in as_completed(futures):
                    if future.cancelled():
                        continue
                    try:
                        done(future.result())
                    except ApiFailing as exc:  # start nothing new; record the running ones
                        stop = stop or exc
                        for other in futures:
                            other.cancel()
            except BaseException:
                for future in futures:
                    future.cancel()
                raise
            if stop is not None:
                raise stop
    finally:
        if proxy is not None:
            proxy.stop()


def start_proxy(agent: AgentSettings) -> MeteringProxy:
    """A running metering proxy in front of the agent's model API, with the real key."""
    proxy = MeteringProxy(
        agent.base_url or "https://api.openai.com/v1",
        agent.api_key(),
        timeout=agent.request_timeout,
    )
    proxy.start()
    return proxy


def _failed(
    instance: Instance, model: str, status: str, reason: str, started: float
) -> AgentRecord:
    return AgentRecord(
        instance_id=instance.instance_id,
        model_patch="",
        model_name_or_path=model,
        usage={"input_tokens": 0, "output_tokens": 0},
        api_calls=0,
        exit_status=status,
        reason=reason,
        wall_seconds=round(time.monotonic() - started, 2),
    )


def run_one(
    provider: SandboxProvider,
    instance: Instance,
    agent: AgentSettings,
    run_dir: Path,
    command: CommandAgent | None = None,
) -> AgentRecord:
    """One instance end to end, by the built-in loop or by ``command``; never raises
    (failures give an empty patch and a reason)."""
    started = time.monotonic()
    try:
        ready = provider.provide(instance)
    except ProvisionError as exc:
        return _failed(instance, agent.model, "environment_error", exc.summary(), started)
    except SandboxError as exc:
        return _failed(instance, agent.model, "environment_error", str(exc), started)
    trajectories = run_dir / TRAJECTORIES
    try:
        prepare(ready)
        environment_paths = untracked_entries(ready.sandbox)
        facts = None
        if instance.language is Language.PYTHON:
            facts = python_facts(ready.sandbox, ready.environment.exec_env(ready.sandbox.workdir))
        env = harness_env(ready, facts)
        if command is not None:
            log_path = trajectories / f"{instance.instance_id}.agent.log"
            outputs = trajectories / f"{instance.instance_id}.output"
            ending = command.run(ready, instance, env, log_path, outputs)
            taken = take_patch(
                ready, instance.base_commit, _policy_inputs(ready, instance), environment_paths
            )
            return _command_record(instance, agent, ending, taken, started)
        trajectory_path = trajectories / f"{instance.instance_id}.traj.json"
        episode = run_episode(
            instance.problem_statement,
            SandboxWorkspace(ready, env),
            agent,
            repo_path=ready.sandbox.workdir,
            instance_id=instance.instance_id,
            on_step=lambda trajectory: write_trajectory(trajectory, trajectory_path),
        )
        write_trajectory(episode.trajectory, trajectory_path)
        inputs = _policy_inputs(ready, instance)
        taken = take_patch(ready, instance.base_commit, inputs, environment_paths)
        return _record(instance, agent, episode, taken.patch, started, taken)
    except Exception as exc:  # one instance's trouble never stops the run
        return _failed(
            instance, agent.model, "harness_error", f"{type(exc).__name__}: {exc}", started
        )
    finally:
        ready.sandbox.cleanup()


def _command_record(
    instance: Instance,
    agent: AgentSettings,
    ending: CommandEnding,
    taken: TakenPatch,
    started: float,
) -> AgentRecord:
    counted = ending.usage
    usage = {"input_tokens": counted.input_tokens, "output_tokens": counted.output_tokens}
    if counted.cached_tokens:
        usage["cached_tokens"] = counted.cached_tokens
    return AgentRecord(
        instance_id=instance.instance_id,
        model_patch=taken.patch,
        model_name_or_path=agent.model,
        usage=usage,
        api_calls=counted.calls,
        exit_status=ending.exit_status,
        reason=ending.reason,
        wall_seconds=round(time.monotonic() - started, 2),
        flagged_paths=[record.model_dump() for record in taken.flagged_paths],
        flags=[flag.model_dump() for flag in taken.flags],
        exit_code=ending.exit_code,
        proxy_calls={
            "failed": counted.failed_calls,
            "without_usage": counted.unknown_usage_calls,
        },
    )


def _policy_inputs(ready: Any, instance: Instance) -> PolicyInputs:
    spec = build_spec(instance)
    at_base = base_files(ready.sandbox, instance.base_commit)
    return PolicyInputs(
        language=instance.language,
        gold_paths=frozenset(spec.gold_paths),
        test_patch_paths=frozenset(spec.test_patch_files),
        command_paths=command_paths(spec.test_command, at_base),
        python_packages=python_package_dirs(at_base),
        base_paths=frozenset(at_base),
    )


def _record(
    instance: Instance,
    agent: AgentSettings,
    episode: Episode,
    patch: str,
    started: float,
    taken: Any,
) -> AgentRecord:
    usage = {
        "input_tokens": episode.usage.input_tokens,
        "output_tokens": episode.usage.output_tokens,
    }
    if episode.usage.cached_tokens:
        usage["cached_tokens"] = episode.usage.cached_tokens
    return AgentRecord(
        instance_id=instance.instance_id,
        model_patch=patch,
        model_name_or_path=agent.model,
        usage=usage,
        api_calls=episode.api_calls,
        exit_status=episode.exit_status,
        reason=episode.reason,
        wall_seconds=round(time.monotonic() - started, 2),
        steps=episode.steps,
        flagged_paths=[record.model_dump() for record in taken.flagged_paths],
        flags=[flag.model_dump() for flag in taken.flags],
    )
