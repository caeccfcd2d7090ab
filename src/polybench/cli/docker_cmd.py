"""``polybench docker clean``: remove the containers and images polybench made here (this
user, this cache), nothing else."""

from __future__ import annotations

from typing import Annotated

import typer

from polybench.cli.command_group import command_group
from polybench.cli.consoles import wide_console as console
from polybench.cli.images_cmd import AllOwnersOption, _client_or_exit, owned_selection

docker_app = command_group("Manage what polybench keeps in Docker.", name="docker")


@docker_app.command("clean")
def clean_command(
    images: Annotated[
        bool, typer.Option(help="Remove polybench's images too (--no-images: containers only).")
    ] = True,
    label: Annotated[
        list[str] | None,
        typer.Option(metavar="KEY=VALUE", help="Only objects also labelled KEY=VALUE."),
    ] = None,
    dry_run: Annotated[bool, typer.Option(help="Only list what would be removed.")] = False,
    everyone: AllOwnersOption = False,
) -> None:
    """Remove the containers (and images) polybench created; objects without its labels stay.

    Only what this user made with this cache goes, unless --all: on a shared daemon other
    users' runs and images are left alone. The local root image
    (``polybench/debian:bookworm``) is not polybench's to remove.
    """
    from polybench.environments.images.inventory import (
        managed_containers,
        managed_images,
        remove_containers,
        remove_images,
    )
    from polybench.sandbox.docker import docker_client

    _client_or_exit()
    client = docker_client()
    required = owned_selection(label, everyone)
    containers = managed_containers(client, required)
    found = managed_images(client, required=required) if images else []
    if dry_run:
        for container in containers:
            console.print(
                f"would remove container {container.name} ({container.container_id[:12]})"
            )
        for image in found:
            console.print(f"would remove {image.level} image {image.name}")
        return
    problems = 0
    for removal in [*remove_containers(client, containers), *remove_images(client, found)]:
        if removal.ok:
            console.print(f"removed {removal.kind} {removal.name}")
        else:
            problems += 1
            console.print(f"[yellow]kept[/yellow] {removal.kind} {removal.name}: {removal.message}")
    console.print(
        f"removed {len(containers)} containers and {len(found)} images"
        + (f" ({problems} could not be removed)" if problems else "")
    )
    if problems:
        raise typer.Exit(1)
