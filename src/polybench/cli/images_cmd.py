"""``polybench images``: build, list, measure and remove the Docker images of a dataset."""

from __future__ import annotations

import shutil
import statistics
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from polybench.cli.command_group import command_group
from polybench.cli.consoles import err_console, escape, wide_console
from polybench.cli.defaults import OFFICIAL_REGISTRY, OFFICIAL_TAG
from polybench.cli.inputs import (
    DatasetOption,
    InstanceIdsOption,
    RepoDirOption,
    SplitOption,
    load_instances_or_exit,
)

if TYPE_CHECKING:
    from polybench.environments.images.inventory import DiskReport
    from polybench.environments.images.manager import ImageManager
    from polybench.environments.images.plan import BuildEvent, BuildPlan

console = wide_console
images_app = command_group(
    "Build, list, measure and remove polybench's Docker images.", name="images"
)


def human(size: int) -> str:
    """A byte count for people (``1.4 GB``)."""
    value = float(size)
    for unit in ("B", "kB", "MB", "GB"):
        if abs(value) < 1000:
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1000
    return f"{value:.1f} TB"


def _client_or_exit() -> None:
    from polybench.sandbox.docker import DockerUnavailable, docker_client

    try:
        docker_client()
    except DockerUnavailable as exc:
        err_console.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from exc


AllOwnersOption = Annotated[
    bool,
    typer.Option(
        "--all",
        help="Also what other users, or this user with another cache, made "
        "(default: only what was made here, with this cache).",
    ),
]


def owned_selection(values: list[str] | None, everyone: bool) -> dict[str, str]:
    """The labels an object to clean must carry: ``--label`` values, and this user's and
    cache's owner label unless ``everyone``."""
    from polybench.sandbox.docker_client import OWNER_LABEL, owner_id

    labels = _labels(values)
    if not everyone:
        labels[OWNER_LABEL] = owner_id()
    return labels


def _labels(values: list[str] | None) -> dict[str, str]:
    labels: dict[str, str] = {}
    for value in values or []:
        key, sep, content = value.partition("=")
        if not sep or not key:
            err_console.print(f"[red]error:[/red] --label needs KEY=VALUE, not {value!r}")
            raise typer.Exit(2)
        labels[key] = content
    return labels


def _free_bytes() -> int | None:
    from polybench.sandbox.docker import docker_client

    root = str(docker_client().info().get("DockerRootDir") or "")
    return shutil.disk_usage(root).free if root and Path(root).is_dir() else None


@images_app.command("build")
def build_command(
    dataset: DatasetOption = "mini",
    instance_ids: InstanceIdsOption = None,
    repo_dir: RepoDirOption = None,
    split: SplitOption = "test",
    workers: Annotated[int, typer.Option(min=1, help="Environments built in parallel.")] = 2,
    level: Annotated[
        str, typer.Option(help="Build up to this level: base, env or instance.")
    ] = "instance",
    image_source: Annotated[
        str, typer.Option(help="'build' here, 'pull' the official images, or 'auto'.")
    ] = "build",
    image_registry: Annotated[
        str,
        typer.Option(help="Registry (and path) of the prebuilt images that pull/auto use."),
    ] = OFFICIAL_REGISTRY,
    image_tag: Annotated[
        str, typer.Option(help="Tag of the prebuilt images that pull/auto use.")
    ] = OFFICIAL_TAG,
    base_source: Annotated[
        str, typer.Option(help="Base images from 'registry' images or a local 'rootfs' image.")
    ] = "registry",
    trust_host_ca: Annotated[
        bool, typer.Option(help="Trust this machine's extra CA certificates in the images.")
    ] = False,
    dry_run: Annotated[
        bool, typer.Option(help="Only show the plan and the disk estimate.")
    ] = False,
    ignore_disk: Annotated[
        bool, typer.Option(help="Build even when the estimate exceeds the free disk space.")
    ] = False,
) -> None:
    """Build (in parallel) the images a dataset needs, after estimating their disk use."""
    from rich.table import Table

    from polybench.dataset.builtin import repo_dir_for
    from polybench.environments.images.inventory import disk_usage, managed_images
    from polybench.environments.images.manager import ImageManager
    from polybench.environments.images.plan import estimate, plan_build
    from polybench.environments.images.settings import (
        BASE_SOURCES,
        IMAGE_SOURCES,
        ImageSettings,
        official_reference_problem,
    )
    from polybench.environments.repos import RepoStore
    from polybench.sandbox.docker import docker_client

    if level not in ("base", "env", "instance"):
        err_console.print("[red]error:[/red] --level must be base, env or instance")
        raise typer.Exit(2)
    if image_source not in IMAGE_SOURCES or base_source not in BASE_SOURCES:
        err_console.print(
            f"[red]error:[/red] --image-source is one of {IMAGE_SOURCES}, "
            f"--base-source one of {BASE_SOURCES}"
        )
        raise typer.Exit(2)
    reference_problem = official_reference_problem(image_registry, image_tag)
    if reference_problem is not None:
        err_console.print(f"[red]error:[/red] {escape(reference_problem)}")
        raise typer.Exit(2)
    _client_or_exit()
    instances = load_instances_or_exit(dataset, split, instance_ids)
    settings = ImageSettings(
        base_source=base_source,
        image_source=image_source,
        trust_host_ca=trust_host_ca,
        image_registry=image_registry,
        image_tag=image_tag,
    )
    manager = ImageManager(RepoStore(repo_dir=repo_dir_for(dataset, repo_dir)), settings)
    plan = plan_build(manager, instances)
    usage = disk_usage(docker_client(), managed_images(docker_client()))
    guess = estimate(plan, manager, usage)
    table = Table(title=f"images for {len(instances)} instances of {dataset}")
    for column in ("level", "needed", "missing", "estimated disk"):
        table.add_column(column, justify="left" if column == "level" else "right")
    planned = str(len(instances) - len(plan.unplanned))
    if image_source == "build":
        table.add_row("root", "1", "1" if plan.root_missing else "0", human(guess.root))
        table.add_row(
            "base", str(len(plan.bases)), str(len(plan.missing_bases)), human(guess.bases)
        )
        table.add_row("env", str(len(plan.groups)), str(len(plan.missing_envs)), human(guess.envs))
        table.add_row("instance", planned, str(len(plan.missing_instances)), human(guess.instances))
    else:
        table.add_row("pull", planned, str(len(plan.missing_pulls)), human(guess.instances))
        table.add_row("instance", planned, str(len(plan.missing_instances)), human(0))
    table.add_row("[bold]total[/bold]", "", "", f"[bold]{human(guess.total)}[/bold]")
    console.print(table)
    if image_source == "auto" and plan.missing_pulls:
        console.print(
            "auto: an image that cannot be pulled is built instead, which this estimate "
            "does not count"
        )
    for instance_id, reason in plan.unplanned.items():
        err_console.print(f"[yellow]warning:[/yellow] {instance_id}: {reason}")
    free = _free_bytes()
    if free is not None:
        console.print(f"free space for Docker: {human(free)}")
        if guess.total > free and not ignore_disk and not dry_run:
            err_console.print("[red]error:[/red] not enough disk space (--ignore-disk to try)")
            raise typer.Exit(1)
    if dry_run:
        return
    levels = {"base": ("base",), "env": ("base", "env"), "instance": ("base", "env", "instance")}
    failures = _build_with_progress(manager, plan, workers, levels[level])
    if failures:
        raise typer.Exit(1)


def _build_with_progress(
    manager: ImageManager, plan: BuildPlan, workers: int, levels: tuple[str, ...]
) -> int:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from polybench.environments.images.plan import execute
    from polybench.logs import QUIET, emit, verbosity

    progress = Progress(
        TextColumn("[bold]{task.fields[level]:<8}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.description}"),
        console=console,
        disable=not console.is_terminal,
    )
    totals = {"base": len(plan.bases), "env": len(plan.groups), "instance": len(plan.instances)}
    tasks = {lvl: progress.add_task("", total=totals[lvl], level=lvl) for lvl in levels}
    failures = 0

    quiet = verbosity() == QUIET

    def on_event(event: BuildEvent) -> None:
        nonlocal failures
        if event.level in tasks:
            progress.advance(tasks[event.level])
            progress.update(tasks[event.level], description=event.name)
        emit(
            "image_built" if event.ok else "image_failed",
            level=event.level,
            name=event.name,
            reused=event.reused,
            seconds=round(event.seconds, 2),
            message=event.message,
        )
        name = escape(event.name)
        if event.ok:
            how = "reused" if event.reused else f"built in {event.seconds:.0f}s"
            if not quiet:
                console.print(f"[green]ok[/green]     {event.level:<8} {name} ({how})")
        else:
            failures += 1
            message = escape(event.message)
            console.print(f"[red]failed[/red] {event.level:<8} {name}: {message}")

    with progress:
        execute(manager, plan, workers, on_event, levels)
    return failures


NUMERIC_COLUMNS = ("size", "own bytes", "shared")


def aligned(headers: list[str], rows: list[list[str]]) -> list[str]:
    """Rows as lines of columns padded to one width (numbers to the right), two spaces
    apart; no cell is cut, so whole image names can be copied."""
    widths = [max(len(row[i]) for row in [headers, *rows]) for i in range(len(headers))]
    lines = []
    for row in [headers, *rows]:
        cells = [
            cell.rjust(width) if header in NUMERIC_COLUMNS else cell.ljust(width)
            for cell, width, header in zip(row, widths, headers, strict=True)
        ]
        lines.append("  ".join(cells).rstrip())
    return lines


def show_rows(title: str, headers: list[str], rows: list[list[str]]) -> None:
    """A table on a terminal; aligned plain columns (whole image names) anywhere else."""
    if not console.is_terminal:
        console.print(f"# {title}", markup=False)
        for line in aligned(headers, rows):
            console.print(line, markup=False, highlight=False)
        return
    from rich.table import Table

    table = Table(title=title)
    for header in headers:
        numeric = header in NUMERIC_COLUMNS
        table.add_column(header, justify="right" if numeric else "left", overflow="fold")
    for row in rows:
        table.add_row(*row)
    console.print(table)


@images_app.command("list")
def list_command(
    level: Annotated[str | None, typer.Option(help="Only this level.")] = None,
) -> None:
    """List polybench's images with their level and size."""
    from polybench.environments.images.inventory import managed_images
    from polybench.sandbox.docker import docker_client

    _client_or_exit()
    images = managed_images(docker_client(), [level] if level else None)
    rows = [
        [
            image.level,
            image.name,
            ", ".join(t for t in image.tags if t != image.name) or "-",
            human(image.size),
            image.created,
        ]
        for image in images
    ]
    headers = ["level", "image", "also tagged", "size", "created"]
    show_rows(f"{len(images)} polybench images", headers, rows)


def show_usage(report: DiskReport) -> None:
    """Each image's own bytes (on top of its parent), total size and shared bytes."""
    rows = [
        [
            usage.image.level,
            usage.image.name,
            usage.parent or "-",
            human(usage.own_bytes),
            human(usage.image.size),
            human(usage.shared_bytes),
        ]
        for usage in report.images
    ]
    headers = ["level", "image", "on top of", "own bytes", "size", "shared"]
    show_rows("disk use of polybench images", headers, rows)


@images_app.command("du")
def du_command() -> None:
    """Show each image's own bytes (on top of its parent), what it shares, and totals."""
    from polybench.environments.images.inventory import disk_usage, managed_images
    from polybench.sandbox.docker import docker_client

    _client_or_exit()
    report = disk_usage(docker_client(), managed_images(docker_client()))
    show_usage(report)
    totals = [["root image", human(report.root_bytes)]]
    totals += [[f"{level} layers", human(report.level_bytes(level))]
               for level in ("base", "env", "instance")]  # fmt: skip
    own = [u.own_bytes for u in report.images if u.image.level == "instance"]
    if own:
        totals.append(["extra bytes per instance, median", human(int(statistics.median(own)))])
        totals.append(["extra bytes per instance, max", human(max(own))])
    totals.append(["total on disk", human(report.total_bytes)])
    totals.append(["the instance images as separate images", human(report.standalone_bytes)])
    for line in aligned(["", "size"], totals)[1:]:
        console.print(line, markup=False, highlight=False)


@images_app.command("clean")
def clean_command(
    level: Annotated[
        str, typer.Option(help="instance, env (with their instances), base or all.")
    ] = "instance",
    label: Annotated[
        list[str] | None,
        typer.Option(metavar="KEY=VALUE", help="Only images also labelled KEY=VALUE."),
    ] = None,
    dry_run: Annotated[bool, typer.Option(help="Only list what would be removed.")] = False,
    pulled: Annotated[
        bool, typer.Option(help="Also remove the pulled prebuilt images the instances stood on.")
    ] = False,
    everyone: AllOwnersOption = False,
) -> None:
    """Remove polybench's images of a level; with --pulled, also the prebuilt images that
    the removed instance layers were made from (nothing else polybench did not make).

    Only the images made by this user with this cache go, unless --all: a shared daemon
    keeps everyone else's.
    """
    from polybench.environments.images.inventory import (
        cascade,
        managed_images,
        pulled_sources,
        remove_images,
        remove_pulled,
    )
    from polybench.sandbox.docker import docker_client

    try:
        levels = cascade(level)
    except ValueError as exc:
        err_console.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from exc
    _client_or_exit()
    images = managed_images(docker_client(), levels, owned_selection(label, everyone))
    sources = pulled_sources(images) if pulled else {}
    if dry_run:
        for image in images:
            console.print(f"would remove {image.level} image {image.name}", markup=False)
        for name in sources:
            console.print(f"would remove pulled image {name}", markup=False)
        return
    removals = remove_images(docker_client(), images)
    problems = sum(not removal.ok for removal in removals)
    removals += remove_pulled(docker_client(), sources)
    for removal in removals:
        if removal.ok and not removal.message:
            console.print(f"removed {removal.kind} {removal.name}", markup=False)
        elif removal.ok:
            console.print(f"{removal.kind} {removal.name}: {removal.message}", markup=False)
        else:
            console.print(
                f"[yellow]kept[/yellow] {escape(removal.kind)} {escape(removal.name)}: "
                f"{escape(removal.message)}"
            )
    console.print(f"{len(images) - problems} images removed")
