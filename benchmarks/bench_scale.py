"""Scale: harness overhead per instance, and throughput with 1 and 2 workers, local and Ray.

Measured in one run, on a warm cache, over the gold predictions of a dataset (default
``mini``):

* overhead: per instance, the bare test command in a bubblewrap sandbox of a prepared
  checkout (the baseline of ``bench_overhead.py``) against one in-process
  ``InstanceRunner.run`` (fresh checkout, patch checks, apply chain, test restore, eval
  script, parsing, grading, artifacts). This leaves out what a ``polybench eval`` spends
  outside instances (start-up, loading the dataset, reports): ``bench_overhead.py`` times
  the whole CLI;
* throughput (in-process, the library's ``evaluate`` as the ``eval`` command calls it:
  what differs between executors; the CLI's start-up is the same for all of them): the
  whole dataset with the ``local`` executor (thread pool) and 1 and 2
  workers, then with the ``ray`` executor on a Ray instance started here
  (``ray.init(num_cpus=2)``; one worker is one task at a time, by giving each task both
  CPUs). Ray's start-up is measured apart, then excluded. Rounds alternate the two
  executors and the fastest round of each counts, as the machine may be shared.

Ratios are against the local executor with 1 worker. Run::

    python benchmarks/bench_scale.py [--repeat 2] [--instances a,b,...]
"""

from __future__ import annotations

import argparse
import logging
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench_overhead import bare_seconds

from polybench.dataset.builtin import load_builtin, materialise_builtin_repos
from polybench.dataset.models import Instance, Prediction
from polybench.environments.backends import ProviderSettings, build_provider
from polybench.grading.result import Status
from polybench.paths import cache_root
from polybench.runner.api import EvalConfig, evaluate
from polybench.runner.artifacts import InstanceArtifacts
from polybench.runner.instance import InstanceRunner


def _run(executor: str, workers: int, instances: list[Instance], root: Path, **ray: float) -> float:
    """Wall seconds of a gold run over ``instances`` (the library's ``evaluate``, as the
    ``eval`` command runs it); every instance must resolve."""
    run_dir = Path(tempfile.mkdtemp(prefix=f"{executor}-{workers}-", dir=root))
    config = EvalConfig(
        dataset="mini",
        predictions="gold",
        run_id=run_dir.name,
        output_dir=root,
        instance_ids=[instance.instance_id for instance in instances],
        workers=workers,
        executor=executor,
        force=True,
        timeout=600,
        **ray,
    )
    started = time.monotonic()
    report = evaluate(config)
    wall = time.monotonic() - started
    bad = [r.instance_id for r in report.results.values() if r.status is not Status.RESOLVED]
    if bad:
        raise SystemExit(f"{executor} x{workers}: not resolved: {bad}")
    return wall


def _repo_dir() -> Path:
    repo_dir = cache_root() / "builtin" / "mini" / "repos"
    materialise_builtin_repos("mini", repo_dir)
    return repo_dir


def _overhead(instances: list[Instance], root: Path) -> list[tuple[str, float, float]]:
    """(instance, test command seconds, harness seconds) for each instance, warm."""
    provider = build_provider(ProviderSettings(repo_dir=_repo_dir(), work_dir=root / "sbx"))
    runner = InstanceRunner(provider)
    rows = []
    for instance in instances:
        base = bare_seconds("local", instance, root / "sbx")
        prediction = Prediction(instance_id=instance.instance_id, model_patch=instance.patch)
        artifacts = InstanceArtifacts(root / "overhead" / instance.instance_id)
        started = time.monotonic()
        result = runner.run(instance, prediction, artifacts)
        full = time.monotonic() - started
        if result.status is not Status.RESOLVED:
            raise SystemExit(f"{instance.instance_id}: {result.reason}")
        rows.append((instance.instance_id, base, full))
        print(f"{instance.instance_id}: test {base:.2f}s, harness {full:.2f}s", file=sys.stderr)
    return rows


def main() -> None:
    """Measure and write the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--instances", default="", help="comma-separated ids (default: all)")
    parser.add_argument("--repeat", type=int, default=2, help="rounds; the fastest counts")
    parser.add_argument("--output", type=Path, default=Path("benchmarks/results/scale.md"))
    args = parser.parse_args()
    wanted = {i for i in args.instances.split(",") if i}
    instances = [i for i in load_builtin("mini") if not wanted or i.instance_id in wanted]
    count = len(instances)

    with tempfile.TemporaryDirectory(prefix="polybench-scale-") as scratch:
        root = Path(scratch)
        print("warming caches...", file=sys.stderr)
        _run("local", 2, instances, root)
        overhead = _overhead(instances, root)
        import ray  # the optional extra; only this part needs it

        walls: dict[tuple[str, int], list[float]] = {}
        starts: list[float] = []
        # Rounds alternate local and Ray runs, so a busy spell of the machine hits both.
        for _ in range(args.repeat):
            for workers in (1, 2):
                walls.setdefault(("local", workers), []).append(
                    _run("local", workers, instances, root)
                )
            started = time.monotonic()
            ray.init(num_cpus=2, include_dashboard=False, logging_level=logging.WARNING,
                     log_to_driver=False, _system_config={"worker_niceness": 0})  # fmt: skip
            starts.append(time.monotonic() - started)
            try:
                _run("ray", 2, instances[:2], root)  # start the worker processes
                for workers in (1, 2):
                    walls.setdefault(("ray", workers), []).append(
                        _run("ray", workers, instances, root, ray_cpus_per_task=2.0 / workers)
                    )
            finally:
                ray.shutdown()
            print(f"walls so far: {walls}", file=sys.stderr)
        local = {w: min(walls["local", w]) for w in (1, 2)}
        remote = {w: min(walls["ray", w]) for w in (1, 2)}
        ray_start = min(starts)

    extra = [full - base for _, base, full in overhead]
    ratios = [full / base for _, base, full in overhead]
    base_tp = count / local[1]

    def row(name: str, wall: float, workers: int) -> str:
        throughput = count / wall
        speedup = local[1] / wall
        return (
            f"| {name} | {workers} | {wall:.1f} | {throughput * 60:.1f} | {speedup:.2f}x | "
            f"{speedup / workers:.0%} |"
        )

    lines = [
        f"Scale benchmark: {count} gold instances of `mini`, warm caches, one run "
        f"(`python benchmarks/bench_scale.py`); walls are the fastest of {args.repeat} "
        "rounds that alternate the local and Ray executors.",
        "",
        "Harness overhead per instance (whole evaluation minus the bare test command):",
        "",
        "| median overhead (s) | mean overhead (s) | median harness / test command |",
        "|---:|---:|---:|",
        f"| {statistics.median(extra):.2f} | {statistics.mean(extra):.2f} | "
        f"{statistics.median(ratios):.2f}x |",
        "",
        "Throughput (ratios against the local executor with 1 worker):",
        "",
        "| executor | workers | wall (s) | instances / min | speedup | scaling efficiency |",
        "|---|---:|---:|---:|---:|---:|",
        row("local (threads)", local[1], 1),
        row("local (threads)", local[2], 2),
        row("ray (ray.init here)", remote[1], 1),
        row("ray (ray.init here)", remote[2], 2),
        "",
        f"Ray against local with the same workers: 1 worker {remote[1] / local[1]:.2f}x the "
        f"wall time, 2 workers {remote[2] / local[2]:.2f}x; Ray adds "
        f"{(remote[1] - local[1]) / count:+.2f}s per instance with 1 worker. Starting Ray "
        f"took {ray_start:.1f}s (not in the walls above). Ray workers run at normal priority "
        "here (`worker_niceness` 0; Ray's default is nice 15). Base throughput "
        f"{base_tp * 60:.1f} instances/min. The machine has 2 cores: 2 workers share them "
        "with the test frameworks' own threads (Maven, Jest workers).",
    ]
    text = "\n".join(lines)
    print(text)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
