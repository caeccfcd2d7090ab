"""Harness overhead per instance on a warm cache.

For each instance of a dataset (default: ``mini``) this measures, in the same run:

* baseline: the instance's test command alone, run with ``bash -c`` in a checkout that
  already has the gold and test patches applied and the environment linked in;
* harness: a whole ``InstanceRunner.run`` of the gold prediction (fresh checkout with its
  history pruned, patch admission and the tamper policy, the apply chain, test-file
  restore verified against the base blobs, the run-time probe, eval script in the
  sandbox, parsing, the verdict, the canary run in a sandbox of its own, artifacts), with
  the repository clone and environment caches warm;
* the same with canaries off (one run, no probe: what the official harness runs);
* with ``--reference SRC``, the harness of another polybench source tree (``src`` of an
  earlier commit, say), measured in a subprocess between the others, so that both
  versions meet the same machine load.

It prints per-instance medians, the overhead (harness minus baseline) and the ratios, and
writes the table as Markdown. Run:
``python benchmarks/bench_overhead.py [--repeat 3] [--reference /path/to/old/src]``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from polybench.dataset.builtin import load_builtin, materialise_builtin_repos
from polybench.dataset.models import Instance, Prediction
from polybench.environments.manager import EnvironmentManager
from polybench.environments.provider import LocalProvider
from polybench.environments.repos import RepoStore
from polybench.runner.artifacts import InstanceArtifacts
from polybench.runner.instance import InstanceRunner, RunSettings


def _git(checkout: Path, *args: str, stdin: str | None = None) -> None:
    subprocess.run(
        ["git", "-C", str(checkout), *args], input=stdin, text=True, check=True, capture_output=True
    )


def baseline_seconds(provider: LocalProvider, instance: Instance, repeat: int) -> float:
    """Median seconds of the bare test command, each time in a fresh prepared checkout.

    A fresh checkout per repetition keeps build output (``target/``, caches) of one
    repetition from speeding up the next, exactly as in the harness.
    """
    times = []
    for _ in range(repeat):
        ready = provider.provide(instance)
        sandbox = ready.sandbox
        try:
            checkout = sandbox.host_path(sandbox.workdir)  # type: ignore[attr-defined]
            _git(checkout, "apply", "-", stdin=instance.patch)
            _git(checkout, "apply", "-", stdin=instance.test_patch)
            ready.activate()
            env = {**ready.environment.exec_env(sandbox.workdir), "PYTHONDONTWRITEBYTECODE": "1"}
            result = sandbox.exec(["bash", "-c", instance.test_command], env=env, timeout=600)
            times.append(result.duration)
        finally:
            sandbox.cleanup()
    return statistics.median(times)


def harness_seconds(runner: InstanceRunner, instance: Instance, repeat: int, out: Path) -> float:
    """Median wall seconds of a full gold evaluation of ``instance``."""
    prediction = Prediction(instance_id=instance.instance_id, model_patch=instance.patch)
    times = []
    for attempt in range(repeat):
        artifacts = InstanceArtifacts(out / f"{instance.instance_id}-{attempt}")
        started = time.monotonic()
        result = runner.run(instance, prediction, artifacts)
        times.append(time.monotonic() - started)
        if not result.resolved:
            raise SystemExit(f"{instance.instance_id} did not resolve: {result.reason}")
    return statistics.median(times)


def _runner(canaries: bool = True) -> tuple[LocalProvider, InstanceRunner]:
    repo_dir = Path(os.environ["POLYBENCH_BENCH_REPOS"])
    provider = LocalProvider(
        RepoStore(repo_dir), EnvironmentManager(), isolation=os.environ["POLYBENCH_BENCH_ISO"]
    )
    return provider, InstanceRunner(provider, RunSettings(canaries=canaries))


def reference_seconds(source: Path, instance_id: str, repeat: int) -> float:
    """The harness of the polybench at ``source`` on one instance, in a subprocess."""
    env = {**os.environ, "PYTHONPATH": str(source)}
    done = subprocess.run(
        [sys.executable, __file__, "--one", instance_id, "--repeat", str(repeat)],
        env=env, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return float(json.loads(done.stdout.strip().splitlines()[-1])["seconds"])


def _one(instance_id: str, repeat: int) -> None:
    """Measure one instance with whatever polybench is importable (for --reference)."""
    instance = next(i for i in load_builtin("mini") if i.instance_id == instance_id)
    _, runner = _runner()
    with tempfile.TemporaryDirectory(prefix="polybench-bench-ref-") as scratch:
        seconds = harness_seconds(runner, instance, repeat, Path(scratch))
    print(json.dumps({"seconds": seconds}))


def main() -> None:
    """Measure and print the overhead table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--isolation", default="auto")
    parser.add_argument("--reference", type=Path, default=None)
    parser.add_argument("--one", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--output", type=Path, default=Path("benchmarks/results/overhead.md"))
    args = parser.parse_args()
    if args.one:
        _one(args.one, args.repeat)
        return

    instances = load_builtin("mini")
    with tempfile.TemporaryDirectory(prefix="polybench-bench-") as scratch:
        repo_dir = Path(scratch) / "repos"
        materialise_builtin_repos("mini", repo_dir)
        os.environ["POLYBENCH_BENCH_REPOS"] = str(repo_dir)
        os.environ["POLYBENCH_BENCH_ISO"] = args.isolation
        provider, runner = _runner()
        _, no_canaries = _runner(canaries=False)
        print("warming caches (environments, clones)...", file=sys.stderr)
        for instance in instances:
            harness_seconds(runner, instance, 1, Path(scratch) / "warm")
            if args.reference is not None:
                reference_seconds(args.reference, instance.instance_id, 1)
        # The baseline runs the test command in the same kind of sandbox, so the difference
        # is what the harness adds around it.
        rows = []
        for instance in instances:
            base = baseline_seconds(provider, instance, args.repeat)
            full = harness_seconds(runner, instance, args.repeat, Path(scratch) / "runs")
            bare = harness_seconds(no_canaries, instance, args.repeat, Path(scratch) / "bare")
            ref = (
                reference_seconds(args.reference, instance.instance_id, args.repeat)
                if args.reference is not None
                else None
            )
            rows.append((instance.instance_id, instance.language.value, base, full, bare, ref))
            print(
                f"{instance.instance_id}: test command {base:.2f}s, harness {full:.2f}s, "
                f"canaries off {bare:.2f}s, reference {ref if ref is not None else '-'}",
                file=sys.stderr,
            )

    reference = f" against the harness of {args.reference}" if args.reference else ""
    lines = [
        f"Harness overhead per instance (warm caches, median of {args.repeat}, "
        f"isolation {args.isolation}){reference}",
        "",
        "| instance | language | test command (s) | harness (s) | overhead (s) | ratio | "
        "canaries off (s) | canaries add (s) | reference (s) | vs reference |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for instance_id, language, base, full, bare, ref in rows:
        versus = f"{full / ref:.2f}x" if ref else "-"
        shown = f"{ref:.2f}" if ref else "-"
        lines.append(
            f"| {instance_id} | {language} | {base:.2f} | {full:.2f} | "
            f"{full - base:.2f} | {full / base:.2f}x | {bare:.2f} | {full - bare:+.2f} | "
            f"{shown} | {versus} |"
        )
    overheads = [full - base for _, _, base, full, _, _ in rows]
    ratios = [full / base for _, _, base, full, _, _ in rows]
    canaries = [full - bare for _, _, _, full, bare, _ in rows]
    lines += [
        "",
        f"median overhead {statistics.median(overheads):.2f}s per instance "
        f"(mean {statistics.mean(overheads):.2f}s); median ratio {statistics.median(ratios):.2f}x; "
        f"canaries add {statistics.median(canaries):+.2f}s per instance (median)",
    ]
    refs = [(full, ref) for _, _, _, full, _, ref in rows if ref]
    if refs:
        added = [full - ref for full, ref in refs]
        lines.append(
            f"against the reference: {statistics.median(added):+.2f}s per instance (median; "
            f"mean {statistics.mean(added):+.2f}s), median ratio "
            f"{statistics.median([full / ref for full, ref in refs]):.2f}x"
        )
    text = "\n".join(lines)
    print(text)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
