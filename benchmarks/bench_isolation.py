"""What the local sandbox's boundary costs per instance, against the earlier layout.

For each instance of a dataset (default: ``mini``), interleaved in the same run:

* boundary: a whole gold evaluation (``InstanceRunner.run``) in today's local sandbox:
  an allow-list file system, the unprivileged user (``setpriv`` when run as root, with
  the checkout handed to that user), no capabilities, the seccomp filter;
* earlier layout (the baseline, kept in this file only): the same evaluation in a
  sandbox built the way the local backend used to build it: every top-level host folder
  bound read-only, answer folders hidden under empty ones, the harness's own user and
  capabilities kept, no seccomp filter, no hand-over of the checkout.

Caches are warm for both (clones, environments). It prints per-instance medians, the
seconds the boundary adds and the ratio, and writes the table as Markdown.
Run: ``python benchmarks/bench_isolation.py [--repeat 3] [--output FILE]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository's tests/

from polybench.dataset.builtin import load_builtin, materialise_builtin_repos
from polybench.dataset.models import Instance, Prediction
from polybench.environments.manager import EnvironmentManager
from polybench.environments.provider import LocalProvider
from polybench.environments.repos import RepoStore
from polybench.runner.artifacts import InstanceArtifacts
from polybench.runner.instance import InstanceRunner, RunSettings
from polybench.sandbox.local import bubblewrap_available
from tests.helpers.earlier_layout import EarlierLayoutProvider


def _evaluate(runner: InstanceRunner, instance: Instance, out: Path) -> float:
    prediction = Prediction(instance_id=instance.instance_id, model_patch=instance.patch)
    started = time.monotonic()
    result = runner.run(instance, prediction, InstanceArtifacts(out))
    seconds = time.monotonic() - started
    if not result.resolved:
        raise SystemExit(f"{instance.instance_id} did not resolve: {result.reason}")
    return seconds


def main() -> None:
    """Measure and print the table (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--instance-ids", default="")
    parser.add_argument("--output", type=Path, default=Path("benchmarks/results/isolation.md"))
    args = parser.parse_args()
    if not bubblewrap_available():
        raise SystemExit("bubblewrap cannot run here: there is no boundary to measure")
    instances = load_builtin("mini")
    if args.instance_ids:
        wanted = set(args.instance_ids.split(","))
        instances = [i for i in instances if i.instance_id in wanted]
    work = Path(tempfile.mkdtemp(prefix="polybench-bench-isolation-"))
    repos = work / "repos"
    materialise_builtin_repos("mini", repos)
    store, environments = RepoStore(repo_dir=repos), EnvironmentManager()
    providers = {
        "boundary": LocalProvider(store, environments, work_dir=work / "boxes",
                                  isolation="bubblewrap"),
        "earlier layout": EarlierLayoutProvider(store, environments, work_dir=work / "boxes",
                                                isolation="bubblewrap"),
    }  # fmt: skip
    runners = {name: InstanceRunner(p, RunSettings(timeout=1800)) for name, p in providers.items()}
    for instance in instances:  # warm every cache once
        _evaluate(runners["boundary"], instance, work / "warm" / instance.instance_id)
    times: dict[str, dict[str, list[float]]] = {i.instance_id: {} for i in instances}
    for attempt in range(args.repeat):
        for instance in instances:
            order = list(runners) if attempt % 2 == 0 else list(reversed(runners))
            for name in order:
                out = work / "runs" / f"{name}-{attempt}" / instance.instance_id
                seconds = _evaluate(runners[name], instance, out)
                times[instance.instance_id].setdefault(name, []).append(seconds)
    rows = ["| instance | earlier layout (s) | boundary (s) | added (s) | ratio |",
            "|---|---:|---:|---:|---:|"]  # fmt: skip
    added, ratios = [], []
    for instance_id, measured in times.items():
        earlier = statistics.median(measured["earlier layout"])
        boundary = statistics.median(measured["boundary"])
        added.append(boundary - earlier)
        ratios.append(boundary / earlier)
        rows.append(f"| {instance_id} | {earlier:.2f} | {boundary:.2f} | "
                    f"{boundary - earlier:+.2f} | {boundary / earlier:.2f}x |")  # fmt: skip
    summary = (
        f"median added per instance {statistics.median(added):+.2f}s "
        f"(mean {statistics.mean(added):+.2f}s); median ratio {statistics.median(ratios):.2f}x "
        f"against the earlier layout, {args.repeat} interleaved repeats, harness uid "
        f"{os.geteuid()}"
    )
    text = "\n".join([*rows, "", summary]) + "\n"
    print(text)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(
        "# Isolation cost per instance\n\n`python benchmarks/bench_isolation.py`: a whole "
        "gold evaluation per instance in today's sandbox against the earlier layout "
        "(see the benchmark's docstring), warm caches, interleaved.\n\n" + text
    )


if __name__ == "__main__":
    main()
