"""The Dockerfile lines that prepare an image for its test command, as the local backend
prepares an environment (one description: :mod:`polybench.environments.commandneeds`).

They go at the end of an environment image's Dockerfile, and into the layer put on a
pulled prebuilt image, and run while the image is built, with the network:

* each Node version the test command selects with ``nvm use`` is installed with the
  image's own nvm (``nvm install`` does nothing for a version it already has);
* each Maven step runs in a copy of ``/testbed`` that is removed afterwards, so only
  what it fetched into the Maven repository stays: the repository itself is left as the
  Dockerfile made it (no build outputs, no test reports of the step).

A step that fails fails the build, as it fails the local environment's preparation.
"""

from __future__ import annotations

import shlex

from polybench.environments.commandneeds import CommandNeeds
from polybench.environments.dockerfile import CONTAINER_WORKDIR, map_workdir

PREPARE_DIR = "/tmp/polybench-prepare"
HEADER = "# polybench: what the test command needs, fetched while the image is built"


def _bash(script: str) -> str:
    return f"RUN bash -c {shlex.quote(script)}"


def prepare_lines(needs: CommandNeeds) -> list[str]:
    """Dockerfile lines that prepare ``needs`` (none when there is nothing to prepare)."""
    if needs.empty:
        return []
    lines = [HEADER]
    for version in needs.node_versions:
        lines.append(_bash(f". {needs.nvm_script} && nvm install {shlex.quote(version)}"))
    if needs.steps:
        commands = [
            f"rm -rf {PREPARE_DIR}",
            f"cp -a {CONTAINER_WORKDIR} {PREPARE_DIR}",
            *(
                f"(cd {PREPARE_DIR} && {map_workdir(step.command, PREPARE_DIR)})"
                for step in needs.steps
            ),
        ]
        script = " && ".join(commands)
        lines.append(
            _bash(
                f"status=0; {{ {script}; }} || status=$?; "
                f"cd / && rm -rf {PREPARE_DIR}; exit $status"
            )
        )
    return lines


def with_preparation(dockerfile: str, needs: CommandNeeds) -> str:
    """``dockerfile`` followed by the lines that prepare ``needs``."""
    lines = prepare_lines(needs)
    if not lines:
        return dockerfile
    return dockerfile.rstrip("\n") + "\n" + "\n".join(lines) + "\n"
