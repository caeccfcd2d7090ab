"""``polybench agent run`` and ``polybench agent import``."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Annotated

import typer

from polybench.cli.backends import (
    BackendChoice,
    BackendChoiceError,
    BackendOption,
    BackendOptionsOption,
)
from polybench.cli.command_group import command_group
from polybench.cli.consoles import console, err_console, escape
from polybench.cli.inputs import (
    DatasetOption,
    ExecutorOption,
    InstanceIdsOption,
    IsolationOption,
    OutputDirOption,
    RayAddressOption,
    RayCpusPerTaskOption,
    RayMaxRetriesOption,
    RepoDirOption,
    SplitOption,
)

agent_app = command_group("Run the built-in agent on a dataset, or import other agents' output.")


@agent_app.command("run")
def run_command(
    model: Annotated[str, typer.Option(help="Model name sent to the API.")],
    base_url: Annotated[str, typer.Option(help="OpenAI-compatible base URL of the model.")],
    dataset: DatasetOption = "mini",
    run_id: Annotated[str | None, typer.Option(help="Name of the run; reusing it resumes.")] = None,
    output_dir: OutputDirOption = Path("polybench_agent_runs"),
    instance_ids: InstanceIdsOption = None,
    workers: Annotated[int, typer.Option(min=1, help="Instances worked on in parallel.")] = 2,
    max_steps: Annotated[int, typer.Option(min=1, help="Model responses per instance.")] = 50,
    max_tokens: Annotated[
        int | None, typer.Option(min=1, help="Input plus output tokens per instance.")
    ] = None,
    wall_clock: Annotated[
        float, typer.Option(min=1, help="Seconds one instance may take in all.")
    ] = 3600.0,
    command_timeout: Annotated[
        float, typer.Option(min=1, help="Seconds one bash call may take.")
    ] = 120.0,
    max_output_chars: Annotated[
        int, typer.Option(min=200, help="Characters of a command's output shown to the model.")
    ] = 20_000,
    temperature: Annotated[float, typer.Option(min=0, help="Sampling temperature.")] = 0.0,
    api_key_env: Annotated[
        str, typer.Option(help="Environment variable holding the API key.")
    ] = "OPENAI_API_KEY",
    max_retries: Annotated[
        int, typer.Option(min=0, help="Retries of a request after 429, 5xx or a lost connection.")
    ] = 5,
    history: Annotated[
        str, typer.Option(help="Repository history the agent sees: base (one commit) or full.")
    ] = "base",
    backend: BackendOption = "local",
    backend_option: BackendOptionsOption = None,
    isolation: IsolationOption = None,
    repo_dir: RepoDirOption = None,
    force: Annotated[bool, typer.Option("--force", help="Redo finished instances too.")] = False,
    split: SplitOption = "test",
    agent_command: Annotated[
        str | None,
        typer.Option(
            help=(
                "Run this shell command in each sandbox instead of the built-in agent. It "
                "gets OPENAI_BASE_URL (a metering proxy in front of --base-url), "
                "OPENAI_API_KEY (a per-instance token, never the real key), POLYBENCH_MODEL, "
                "POLYBENCH_PROBLEM_FILE, POLYBENCH_INSTANCE_ID and POLYBENCH_OUTPUT_DIR (kept "
                "in the run folder), runs in the repository for at most --wall-clock seconds, "
                "and its patch is taken from the working tree. Under bubblewrap and in Docker "
                "it has no network but the proxy; with --isolation none it reaches every "
                "network this machine does."
            )
        ),
    ] = None,
    agent_mount: Annotated[
        list[Path] | None,
        typer.Option(
            help=(
                "A folder the agent command's sandboxes see read-only at the same path: its "
                "installation (a venv, and the Python the venv was made with). Repeatable."
            )
        ),
    ] = None,
    executor: ExecutorOption = "local",
    ray_address: RayAddressOption = None,
    ray_cpus_per_task: RayCpusPerTaskOption = 1.0,
    ray_max_retries: RayMaxRetriesOption = 2,
    check: Annotated[
        bool,
        typer.Option(
            "--check/--no-check",
            help="First send one small request: endpoint, key, model and tool calling.",
        ),
    ] = True,
    resume_changed: Annotated[
        bool,
        typer.Option(
            "--resume-changed",
            help="Resume a run id made with other settings (model, URL, prompt, limits).",
        ),
    ] = False,
) -> None:
    """Run the built-in agent (bash + submit tools), or any command-line agent, on every
    instance; write predictions. The model must support tool calling (the built-in agent).

    Exit status: 0 predictions were made; 1 none was (every instance failed), or the run
    stopped because its first instances all failed on the API; 2 bad input or a failed
    endpoint check (nothing ran).
    """
    from polybench.agent.runner import AgentInputError, AgentRunConfig, isolation_of, run_agents
    from polybench.agent.settings import AgentSettings
    from polybench.cli.progress import RunProgress
    from polybench.logs import emit

    if history not in ("base", "full"):
        err_console.print("[red]error:[/red] --history is base or full")
        raise typer.Exit(2)
    try:
        choice = BackendChoice.from_flags(backend, flags={"isolation": isolation},
                                          extra=backend_option)  # fmt: skip
        agent = AgentSettings(
            model=model,
            base_url=base_url,
            api_key_env=api_key_env,
            max_steps=max_steps,
            max_total_tokens=max_tokens,
            wall_clock_seconds=wall_clock,
            command_timeout_seconds=command_timeout,
            max_output_chars=max_output_chars,
            temperature=temperature,
            max_retries=max_retries,
        )
        config = AgentRunConfig(
            dataset=dataset,
            agent=agent,
            run_id=run_id,
            output_dir=output_dir,
            instance_ids=instance_ids,
            workers=workers,
            backend=choice.backend,
            backend_options=choice.options,
            history=history,
            repo_dir=repo_dir,
            force=force,
            split=split,
            agent_command=agent_command,
            agent_mounts=agent_mount or [],
            executor=executor,
            ray_address=ray_address,
            ray_cpus_per_task=ray_cpus_per_task,
            ray_max_retries=ray_max_retries,
            check_endpoint=check,
            resume_changed=resume_changed,
        )
        unisolated = config.backend == "local" and isolation_of(config) == "none"
    except (BackendChoiceError, ValueError) as exc:
        err_console.print(f"[red]error:[/red] {escape(str(exc))}")
        raise typer.Exit(2) from exc
    if unisolated:
        err_console.print(
            "[yellow]warning:[/yellow] the sandboxes are not isolated (no bubblewrap): the "
            "agent's commands can reach the network and read this machine's files"
        )
    progress = RunProgress(console, "working on", "work on")

    def on_record(record: object) -> None:
        from polybench.agent.runner import AgentRecord

        assert isinstance(record, AgentRecord)
        usage = record.usage
        line = (
            f"{record.exit_status:<10} {record.instance_id} ({record.api_calls} calls, "
            f"{usage.get('input_tokens', 0)} in / {usage.get('output_tokens', 0)} out tokens, "
            f"{len(record.model_patch.splitlines())} patch lines)"
        )
        if record.reason and record.exit_status != "submitted":
            line += f" - {reason_text(record.reason)}"
        progress.bar.advance(progress.task)
        if not progress.quiet:
            console.print(escape(line), highlight=False)
        progress.log(line)
        emit(
            "instance_finished",
            instance_id=record.instance_id,
            status=record.exit_status,
            reason=record.reason,
            api_calls=record.api_calls,
            input_tokens=usage.get("input_tokens", 0),
            output_tokens=usage.get("output_tokens", 0),
            patch_lines=len(record.model_patch.splitlines()),
            seconds=record.wall_seconds,
        )

    try:
        with progress:
            report = run_agents(config, on_start=progress.on_start, on_record=on_record)
    except AgentInputError as exc:
        err_console.print(f"[red]error:[/red] {escape(str(exc))}")
        emit("run_refused", message=str(exc), exit_code=2)
        raise typer.Exit(2) from exc
    if report.untrusted is not None:
        said = f"the saved predictions of this run id were redone: {report.untrusted}"
        err_console.print(f"[yellow]warning:[/yellow] {escape(said)}")
    emit(
        "run_finished",
        run_dir=str(report.run_dir),
        predictions=len(report.records),
        made_now=len(report.ran),
        reused=len(report.reused),
        produced=len(report.produced),
        stopped=report.stopped,
        endpoint_check=report.endpoint_check,
        exit_code=0 if report.produced and report.stopped is None else 1,
    )
    records = report.records.values()
    calls = sum(r.api_calls for r in records)
    tokens_in = sum(r.usage.get("input_tokens", 0) for r in records)
    tokens_out = sum(r.usage.get("output_tokens", 0) for r in records)
    console.print(
        f"{len(report.records)} predictions ({len(report.ran)} made now, {len(report.reused)} "
        f"reused); {calls} API calls, {tokens_in} input and {tokens_out} output tokens"
    )
    console.print(f"predictions: {escape(str(report.predictions_file))}")
    if report.stopped is not None:
        err_console.print(f"[red]stopped:[/red] {escape(report.stopped)}")
    if not report.produced:
        endings = Counter(r.exit_status for r in records)
        counts = ", ".join(f"{status} {n}" for status, n in sorted(endings.items()))
        err_console.print(
            "[red]error:[/red] no prediction was made: every instance ended in an error, "
            "or its command failed before any model call, changing nothing "
            f"({escape(counts or 'no instance ran')}); see the reasons above and "
            f"{escape(str(report.run_dir / 'trajectories'))}"
        )
        raise typer.Exit(1)
    console.print(
        "grade them with: polybench eval --dataset "
        f"{escape(dataset)} --predictions {escape(str(report.predictions_file))}"
    )
    if report.stopped is not None:
        raise typer.Exit(1)


TAIL_LINES = 6
"""Lines of a failure's tail shown on the console (the record and log keep it all)."""


def reason_text(reason: str) -> str:
    """A record's reason for the console: its first line, then the last lines of what it
    quotes (an agent command's output), indented, so "its output ends with:" is followed
    by that output."""
    lines = [line.rstrip() for line in reason.strip().splitlines()]
    if len(lines) <= 1:
        return lines[0] if lines else ""
    tail = [line for line in lines[1:] if line.strip()][-TAIL_LINES:]
    return "\n".join([lines[0], *(f"    {line}" for line in tail)])


@agent_app.command("import")
def import_command(
    path: Annotated[Path, typer.Argument(help="The other agent's output folder or file.")],
    source: Annotated[str, typer.Option("--from", help="mini-swe-agent, swe-agent or openhands.")],
    output: Annotated[
        Path, typer.Option("--output", "-o", help="The predictions file to write (JSONL).")
    ] = Path("predictions.jsonl"),
    model: Annotated[
        str | None, typer.Option(help="Model name, when the output does not record one.")
    ] = None,
) -> None:
    """Turn another agent's output into a polybench predictions file (tokens summed)."""
    from polybench.agent.importers import import_runs
    from polybench.atomic import atomic_write_text

    try:
        imported = import_runs(source, path, model_name=model)
    except (ValueError, FileNotFoundError) as exc:
        err_console.print(f"[red]error:[/red] {escape(str(exc))}")
        raise typer.Exit(2) from exc
    for problem in imported.problems:
        err_console.print(f"[yellow]warning:[/yellow] {escape(str(problem))}")
    lines = [json.dumps(prediction) for prediction in imported.predictions]
    atomic_write_text(output, "".join(line + "\n" for line in lines))
    console.print(
        f"wrote {len(lines)} predictions to {escape(str(output))} "
        f"({len(imported.problems)} problems)"
    )
