"""The docker backend against the local one, and the disk its image layers take.

For each instance of ``mini``, measured in the same run on both backends:

* start-to-first-test: from asking the provider for a sandbox (images/environments
  already built) until a first command has run in it: container create + start + exec
  for docker, checkout + bubblewrap for local;
* teardown: removing the sandbox;
* a whole gold evaluation (``InstanceRunner.run``), whose test command is the same.

Then the disk: the bytes each layer adds on top of its parent (root, bases,
environments, instances), and the extra bytes an instance costs on top of its
repository's environment, both for the ``mini`` instances (which share their
repository's commit) and for an instance of each repository one commit later (its gold
patch committed), which needs a git pack and the changed files.

Run: ``python benchmarks/bench_docker.py --base-source rootfs --trust-host-ca``
(``--base-source registry`` where public images can be pulled).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from polybench.dataset.builtin import load_builtin, materialise_builtin_repos
from polybench.dataset.models import Instance, Prediction
from polybench.environments.docker_provider import DockerProvider
from polybench.environments.images.inventory import disk_usage, managed_images, remove_images
from polybench.environments.images.manager import ImageManager
from polybench.environments.images.settings import ImageSettings
from polybench.environments.manager import EnvironmentManager
from polybench.environments.provider import LocalProvider, SandboxProvider
from polybench.environments.repos import RepoStore
from polybench.runner.artifacts import InstanceArtifacts
from polybench.runner.instance import InstanceRunner
from polybench.sandbox.docker import docker_client

MB = 1_000_000


def first_test(provider: SandboxProvider, instance: Instance, repeat: int) -> tuple[float, float]:
    """Median seconds from provide() to a first command done, and of the cleanup."""
    starts, stops = [], []
    for _ in range(repeat):
        started = time.monotonic()
        ready = provider.provide(instance)
        result = ready.sandbox.exec(["true"], timeout=60)
        starts.append(time.monotonic() - started)
        assert result.ok, result.output
        started = time.monotonic()
        ready.sandbox.cleanup()
        stops.append(time.monotonic() - started)
    return statistics.median(starts), statistics.median(stops)


def gold_run(runner: InstanceRunner, instance: Instance, out: Path) -> tuple[float, float]:
    """Wall seconds of a gold evaluation, and of its test command."""
    prediction = Prediction(instance_id=instance.instance_id, model_patch=instance.patch)
    started = time.monotonic()
    result = runner.run(instance, prediction, InstanceArtifacts(out / instance.instance_id))
    wall = time.monotonic() - started
    if not result.resolved:
        raise SystemExit(f"{instance.instance_id} did not resolve: {result.reason}")
    return wall, result.timings.get("tests", 0.0)


def later_instance(instance: Instance, repo_dir: Path) -> Instance:
    """``instance`` moved one commit later: its gold patch committed on top of the base."""
    clone = repo_dir / instance.repo.replace("/", "__")
    subprocess.run(
        ["git", "-C", str(clone), "checkout", "-q", "-f", instance.base_commit], check=True
    )
    subprocess.run(
        ["git", "-C", str(clone), "apply", "-"], input=instance.patch, text=True, check=True
    )
    subprocess.run(["git", "-C", str(clone), "add", "-A"], check=True)
    identity = ["-c", "user.name=bench", "-c", "user.email=bench@polybench.invalid"]
    subprocess.run(["git", "-C", str(clone), *identity, "commit", "-q", "-m", "gold"], check=True)
    head = subprocess.run(
        ["git", "-C", str(clone), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    return instance.model_copy(
        update={"instance_id": f"{instance.instance_id}-later", "base_commit": head}
    )


def main() -> None:
    """Measure, print and write ``benchmarks/results/docker.md``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--base-source", default="registry")
    parser.add_argument("--trust-host-ca", action="store_true")
    parser.add_argument("--output", type=Path, default=Path("benchmarks/results/docker.md"))
    args = parser.parse_args()

    instances = load_builtin("mini")
    settings = ImageSettings(base_source=args.base_source, trust_host_ca=args.trust_host_ca)
    lines: list[str] = []
    with tempfile.TemporaryDirectory(prefix="polybench-bench-") as scratch:
        repo_dir = Path(scratch) / "repos"
        materialise_builtin_repos("mini", repo_dir)
        repos = RepoStore(repo_dir)
        images = ImageManager(repos, settings)
        docker = DockerProvider(images)
        local = LocalProvider(repos, EnvironmentManager(), work_dir=Path(scratch) / "boxes")
        print("building or reusing images and environments...", file=sys.stderr)
        started = time.monotonic()
        built = [images.ensure_instance(instance) for instance in instances]
        fresh = sum(not b.reused for b in built)
        prepare = time.monotonic() - started
        runners = {"docker": InstanceRunner(docker), "local": InstanceRunner(local)}
        for instance in instances:  # warm the local environments and both page caches
            gold_run(runners["local"], instance, Path(scratch) / "warm")

        rows = []
        for instance in instances:
            row: dict[str, float] = {}
            for name, provider in (("docker", docker), ("local", local)):
                row[f"{name}_start"], row[f"{name}_stop"] = first_test(
                    provider, instance, args.repeat
                )
                row[f"{name}_wall"], row[f"{name}_tests"] = gold_run(
                    runners[name], instance, Path(scratch) / name
                )
            rows.append((instance, row))
            print(
                f"{instance.instance_id}: first test docker {row['docker_start']:.2f}s "
                f"local {row['local_start']:.2f}s",
                file=sys.stderr,
            )

        lines += [
            f"# Docker backend vs local (median of {args.repeat}; {fresh} of {len(built)} "
            f"instance images had to be built first, {prepare:.0f}s)",
            "",
            "| instance | first test docker (s) | local (s) | ratio | teardown docker (s) "
            "| local (s) | gold eval docker (s) | local (s) | tests docker (s) | local (s) |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for instance, r in rows:
            lines.append(
                f"| {instance.instance_id} | {r['docker_start']:.2f} | {r['local_start']:.2f} | "
                f"{r['docker_start'] / r['local_start']:.1f}x | {r['docker_stop']:.2f} | "
                f"{r['local_stop']:.2f} | {r['docker_wall']:.2f} | {r['local_wall']:.2f} | "
                f"{r['docker_tests']:.2f} | {r['local_tests']:.2f} |"
            )
        med = {k: statistics.median(r[k] for _, r in rows) for k in rows[0][1]}
        lines += [
            "",
            f"median start-to-first-test: docker {med['docker_start']:.2f}s, local "
            f"{med['local_start']:.2f}s ({med['docker_start'] / med['local_start']:.1f}x); "
            f"teardown docker {med['docker_stop']:.2f}s, local {med['local_stop']:.2f}s; "
            f"gold evaluation docker {med['docker_wall']:.2f}s, local {med['local_wall']:.2f}s "
            f"({med['docker_wall'] / med['local_wall']:.2f}x)",
        ]

        print("measuring layers, and one later commit per repository...", file=sys.stderr)
        later: list[str] = []
        seen: set[str] = set()
        for instance in instances:
            if instance.repo in seen:
                continue
            seen.add(instance.repo)
            moved = images.ensure_instance(later_instance(instance, repo_dir))
            later.append(moved.tag)
        client = docker_client()
        report = disk_usage(client, managed_images(client))
        own = {u.image.name: u.own_bytes for u in report.images}
        size = {u.image.name: u.image.size for u in report.images}
        base_tags = [b.tag for b in images.ensure_bases()]
        env_tags = sorted({b.label("env") or "" for b in built})
        same = [own[b.tag] for b in built]
        moved = [own[tag] for tag in later]
        layered = report.root_bytes + sum(own[t] for t in (*base_tags, *env_tags)) + sum(same)
        lines += [
            "",
            "## Disk (bytes each layer adds on top of its parent)",
            "",
            f"- root image: {report.root_bytes / MB:.1f} MB",
            *(f"- base {tag}: {own[tag] / MB:.1f} MB" for tag in base_tags),
            *(f"- env {tag}: {own[tag] / MB:.1f} MB" for tag in env_tags),
            f"- instance layers of mini (same commit as their environment): max {max(same)} "
            f"bytes, {sum(same)} bytes for all {len(same)}",
            f"- an instance one commit later (git pack + changed files): median "
            f"{statistics.median(moved) / 1000:.1f} kB, max {max(moved) / 1000:.1f} kB "
            f"({len(moved)} repositories)",
            f"- mini as separate images (the official layout): "
            f"{sum(size[b.tag] for b in built) / MB:.0f} MB; layered here: {layered / MB:.0f} MB",
        ]
        remove_images(client, [u.image for u in report.images if u.image.name in later])

    text = "\n".join(lines)
    print(text)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
