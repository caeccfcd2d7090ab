"""``polybench submission build|check``: the leaderboard's submission folder."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from polybench.cli.backends import (
    BackendChoice,
    BackendChoiceError,
    BackendOption,
    BackendOptionsOption,
)
from polybench.cli.command_group import command_group
from polybench.cli.consoles import console, err_console, escape
from polybench.cli.defaults import DEFAULT_TIMEOUT_SECONDS
from polybench.cli.inputs import RepoDirOption, SplitOption, load_instances_or_exit

if TYPE_CHECKING:
    from rich.table import Table

    from polybench.dataset.models import Instance
    from polybench.runner.api import EvalConfig
    from polybench.submission.check import CheckReport
    from polybench.submission.rerun import RerunVerdict

submission_app = command_group(
    "Leaderboard submissions: build the official folder from a run, or check one."
)

DatasetOverride = Annotated[
    str | None,
    typer.Option(help="Dataset of the instances (default: the run's, or the split folder's)."),
]


def _fail(message: str) -> typer.Exit:
    err_console.print(f"[red]error:[/red] {escape(message)}")
    return typer.Exit(2)


@submission_app.command("build")
def build_command(
    run_dir: Annotated[Path, typer.Argument(help="A finished run folder (polybench eval).")],
    output: Annotated[
        Path, typer.Option("--output-dir", "-o", help="The submission folder to write.")
    ],
    dataset: DatasetOverride = None,
    split: SplitOption = "test",
    repo_dir: RepoDirOption = None,
    name: Annotated[
        str | None, typer.Option(help="Leaderboard name (default: the run's model).")
    ] = None,
    metadata: Annotated[
        list[str] | None,
        typer.Option(
            "--metadata", metavar="KEY=VALUE", help="A metadata.yaml entry key=value (repeat)."
        ),
    ] = None,
    metrics: Annotated[
        bool, typer.Option(help="Compute <id>_metrics.json (needs the repositories).")
    ] = True,
    force: Annotated[bool, typer.Option(help="Rebuild a folder that is not empty.")] = False,
) -> None:
    """Write the leaderboard's submission folder from a finished run."""
    from polybench.dataset.builtin import repo_dir_for
    from polybench.environments.repos import RepoStore
    from polybench.metrics.retrieval import RetrievalScorer
    from polybench.report.runs import RunDirError
    from polybench.submission.build import (
        SubmissionError,
        build_submission,
        load_finished_run,
        parse_metadata_options,
    )

    try:
        run = load_finished_run(run_dir)
        overrides = parse_metadata_options(metadata or [])
    except (RunDirError, SubmissionError) as exc:
        raise _fail(str(exc)) from exc
    chosen = dataset or run.dataset
    if chosen is None:
        raise _fail(f"{run_dir}/run.json records no dataset: give --dataset")
    instances = {i.instance_id: i for i in load_instances_or_exit(chosen, split)}
    scorer = (
        RetrievalScorer(RepoStore(repo_dir=repo_dir_for(chosen, repo_dir))) if metrics else None
    )
    try:
        report = build_submission(
            run,
            output,
            instances,
            dataset=chosen,
            scorer=scorer,
            name=name,
            metadata=overrides,
            force=force,
        )
    except SubmissionError as exc:
        raise _fail(str(exc)) from exc
    finally:
        if scorer is not None:
            scorer.close()
    for message in report.warnings:
        err_console.print(f"[yellow]warning:[/yellow] {escape(message)}")
    console.print(
        f"wrote {report.instances} predictions, {report.instances} results, "
        f"{report.metrics_written} metrics files and {report.trajectories} trajectories; "
        f"pass rate {escape(report.pass_rate)}"
    )
    console.print(f"submission: {escape(str(output))}")
    todo = "fill in metadata.yaml and README.md"
    if report.trajectories < report.instances:
        todo += ", add the missing trajectories to trajs/"
    console.print(
        f"next: {todo}, then run "
        f"polybench submission check {escape(str(output))} --dataset {escape(chosen)}"
    )


def problems_table(report: CheckReport) -> Table:
    """Every problem found, errors first."""
    from rich.table import Table

    from polybench.submission.problems import Severity

    table = Table(title=f"problems in {escape(str(report.folder))}", expand=True)
    table.add_column("severity", no_wrap=True)
    table.add_column("kind", no_wrap=True)
    table.add_column("where", overflow="fold", ratio=1)
    table.add_column("instance", no_wrap=True)
    table.add_column("message", overflow="fold", ratio=2)
    ordered = sorted(report.problems, key=lambda p: p.severity is not Severity.ERROR)
    for problem in ordered:
        style = "red" if problem.severity is Severity.ERROR else "yellow"
        table.add_row(
            f"[{style}]{problem.severity.value}[/{style}]",
            problem.kind.value,
            escape(problem.where),
            escape(problem.instance_id or ""),
            escape(problem.message),
        )
    return table


def verdicts_table(verdicts: list[RerunVerdict]) -> Table:
    """The re-evaluated sample: the submission's verdict against polybench's."""
    from rich.table import Table

    table = Table(title="re-evaluated sample")
    for column in ("instance", "submission", "polybench", "agrees"):
        table.add_column(column)
    for verdict in verdicts:
        agrees = "yes" if verdict.agrees else ("n/a" if not verdict.judged else "[red]no[/red]")
        table.add_row(
            escape(verdict.instance_id),
            "resolved" if verdict.submitted_resolved else "not resolved",
            verdict.status.value,
            agrees,
        )
    return table


def _rerun(
    report: CheckReport,
    instances: dict[str, Instance],
    ids: list[str],
    run_dir: Path,
    config: EvalConfig,
    seed: int,
) -> None:
    """Re-evaluate ``ids`` in ``run_dir``; disagreements are added to ``report``'s problems."""
    from polybench.cli.progress import RunProgress
    from polybench.runner.api import InputError
    from polybench.runner.run import OutputDirectoryError
    from polybench.submission.rerun import rerun_problems, rerun_sample

    console.print(f"re-evaluating {len(ids)} instances (seed {seed}) in {escape(str(run_dir))}")
    try:
        with RunProgress(console, "re-evaluating", "re-evaluate") as progress:
            verdicts = rerun_sample(report, instances, ids, run_dir=run_dir, config=config,
                                    progress=progress)  # fmt: skip
    except (InputError, OutputDirectoryError) as exc:
        raise _fail(str(exc)) from exc
    report.problems.extend(rerun_problems(verdicts))
    console.print(verdicts_table(verdicts))


@submission_app.command("check")
def check_command(
    folder: Annotated[Path, typer.Argument(help="The submission folder.")],
    dataset: DatasetOverride = None,
    split: SplitOption = "test",
    repo_dir: RepoDirOption = None,
    rerun: Annotated[
        int, typer.Option(min=0, help="Re-evaluate a random sample of this many instances.")
    ] = 0,
    seed: Annotated[int, typer.Option(help="Seed of the re-evaluated sample.")] = 0,
    backend: BackendOption = "local",
    backend_option: BackendOptionsOption = None,
    timeout: Annotated[
        float, typer.Option(help="Wall-clock seconds for one instance's test command.")
    ] = DEFAULT_TIMEOUT_SECONDS,
    workers: Annotated[int, typer.Option(min=1, help="Instances re-evaluated in parallel.")] = 2,
    rerun_dir: Annotated[Path, typer.Option(help="Where the re-evaluation run is written.")] = Path(
        "polybench_runs"
    ),
) -> None:
    """Check a submission folder; with --rerun, re-evaluate a sample and compare verdicts."""
    from polybench.dataset.builtin import repo_dir_for
    from polybench.runner.api import EvalConfig
    from polybench.submission.check import check_submission
    from polybench.submission.models import SPLIT_DATASETS
    from polybench.submission.rerun import sample_ids

    if not folder.is_dir():
        raise _fail(f"{folder} is not a folder")
    chosen = dataset or SPLIT_DATASETS.get(folder.resolve().parent.name)
    if chosen is None:
        raise _fail(
            f"give --dataset: {folder} is not in a split folder ({', '.join(SPLIT_DATASETS)})"
        )
    instances = {i.instance_id: i for i in load_instances_or_exit(chosen, split)}
    report = check_submission(folder, instances)
    if rerun:
        try:
            choice = BackendChoice.from_flags(backend, extra=backend_option)
        except BackendChoiceError as exc:
            raise _fail(str(exc)) from exc
        config = EvalConfig(
            predictions="given",
            backend=choice.backend,
            backend_options=choice.options,
            timeout=timeout,
            workers=workers,
            repo_dir=repo_dir_for(chosen, repo_dir),
        )
        ids = sample_ids(report, instances, rerun, seed)
        if ids:
            rerun_dir = rerun_dir / f"submission-check-{datetime.now():%Y%m%d-%H%M%S}"
            _rerun(report, instances, ids, rerun_dir.resolve(), config, seed)
        else:
            err_console.print(
                "[yellow]warning:[/yellow] no prediction with a result to re-evaluate"
            )
    if report.problems:
        console.print(problems_table(report))
    resolved = sum(r.resolved for r in report.results.values())
    console.print(
        f"{len(report.predictions)} predictions, {len(report.results)} results "
        f"({resolved} resolved), {len(report.metrics)} metrics files; "
        f"{len(report.errors)} errors, {len(report.warnings)} warnings"
    )
    if report.errors:
        raise typer.Exit(1)
    console.print("[green]submission ok[/green]")
