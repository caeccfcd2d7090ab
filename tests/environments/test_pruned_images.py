"""Which containers need their repository pruned when they start: all but those of an
instance image polybench built and pruned to that very commit."""

from __future__ import annotations

import json

from polybench.environments.docker_provider import pruned_at_build
from polybench.environments.images.builder import BuiltImage
from polybench.environments.images.manager import PRUNED_HISTORY, prune_step

COMMIT = "a" * 40


def _image(level: str = "instance", **labels: str) -> BuiltImage:
    return BuiltImage(
        tag="t",
        image_id="sha256:1",
        level=level,
        reused=True,
        labels=tuple(sorted((f"org.polybench.{k}", v) for k, v in labels.items())),
    )


def test_only_an_image_pruned_to_the_commit_at_build_time_skips_the_start_prune() -> None:
    built = _image(history=PRUNED_HISTORY, commit=COMMIT)
    assert pruned_at_build(built, COMMIT, "base")
    # Another commit, another history mode, or no such labels: pruned at the start.
    assert not pruned_at_build(built, "b" * 40, "base")
    assert not pruned_at_build(built, COMMIT, "full")
    assert not pruned_at_build(_image(commit=COMMIT), COMMIT, "base")
    # A pulled image's layer says its history is as pulled, whatever the image claimed.
    assert not pruned_at_build(_image(history="as-pulled", commit=COMMIT), COMMIT, "base")
    # Labels on an environment image never count.
    assert not pruned_at_build(_image("env", history=PRUNED_HISTORY, commit=COMMIT), COMMIT, "base")


def test_the_build_step_runs_the_prune_script_in_the_repository_as_one_instruction() -> None:
    step = prune_step(COMMIT)
    assert step.startswith("RUN [") and "\n" not in step
    argv = json.loads(step[len("RUN ") :])
    assert argv[:2] == ["bash", "-c"] and argv[2].startswith("cd /testbed\n")
    assert argv[3:] == ["prune-history", COMMIT, PRUNED_HISTORY]
