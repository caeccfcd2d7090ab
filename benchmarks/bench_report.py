"""Cost of the statistics and of a full stratified report at the size of the full dataset.

Measured in the same run:

* bootstrap: :func:`polybench.metrics.stats.bootstrap_mean` (one vectorised index
  matrix) against the baseline of a pure-Python loop over resamples
  (``random.choices``), and against the same index matrix averaged row by row in a
  Python loop (same SE), for n = 382 (Verified), 2110 (full) and 10000;
* report: every pass-rate table for 3 runs over a synthetic 2110-instance dataset, then
  the Markdown, CSV and HTML renderings, against the baseline of reading the same results
  into a plain dict (so the ratio says what the tables cost beyond touching the data).

Run: ``python benchmarks/bench_report.py``.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import numpy as np

from polybench.dataset.models import Instance
from polybench.grading.result import InstanceResult, Status
from polybench.metrics.stats import bootstrap_mean
from polybench.report.build import build_report
from polybench.report.render_html import to_html
from polybench.report.render_text import csv_files, to_markdown
from polybench.report.runs import LoadedRun
from polybench.report.strata import STRATIFICATIONS

T = TypeVar("T")


def python_loop_se(values: list[float], n_resamples: int = 2000, seed: int = 0) -> float:
    """Baseline: the textbook loop, one resample at a time in pure Python."""
    rng = random.Random(seed)
    n = len(values)
    means = [sum(rng.choices(values, k=n)) / n for _ in range(n_resamples)]
    return statistics.stdev(means)


def numpy_row_loop_se(values: np.ndarray, n_resamples: int = 2000, seed: int = 0) -> float:
    """Same draws as ``bootstrap_mean``, but averaged row by row in a Python loop."""
    n = values.size
    indices = np.random.default_rng(seed).integers(0, n, size=(n_resamples, n), dtype=np.int32)
    return statistics.stdev(float(values[row].mean()) for row in indices)


def median_seconds(fn: Callable[[], object], repeat: int = 5) -> float:
    fn()  # warm-up (first-touch page faults, imports)
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def timed(fn: Callable[[], T]) -> tuple[float, T]:
    started = time.perf_counter()
    result = fn()
    return time.perf_counter() - started, result


def bench_bootstrap() -> None:
    print("bootstrap SE, 2000 resamples (median of 5)")
    print(
        f"{'n':>7} {'vectorised s':>13} {'python loop s':>14} {'ratio':>7}"
        f" {'numpy row loop s':>17} {'ratio':>7}"
    )
    for n in (382, 2110, 10000):
        values = np.random.default_rng(1).integers(0, 2, size=n).astype(float)
        as_list = values.tolist()
        fast = median_seconds(lambda v=values: bootstrap_mean(v))
        slow = median_seconds(lambda v=as_list: python_loop_se(v), repeat=1)
        rows = median_seconds(lambda v=values: numpy_row_loop_se(v))
        same = abs((bootstrap_mean(values).se or 0.0) - numpy_row_loop_se(values)) < 1e-12
        print(
            f"{n:>7} {fast:>13.4f} {slow:>14.4f} {slow / fast:>6.1f}x"
            f" {rows:>17.4f} {rows / fast:>6.1f}x  same SE as row loop: {same}"
        )


def synthetic(n: int = 2110) -> tuple[dict[str, Instance], list[LoadedRun]]:

    rng = np.random.default_rng(2)
    languages = ["Java", "JavaScript", "TypeScript", "Python"]
    instances = {}
    for k in range(n):
        files = int(rng.integers(1, 8))
        patch = "".join(
            f"diff --git a/f{i}.py b/f{i}.py\n--- a/f{i}.py\n+++ b/f{i}.py\n@@ -1 +1 @@\n-a\n+b\n"
            for i in range(files)
        )
        funcs, classes = int(rng.integers(0, 3)), int(rng.integers(0, 2))
        instance = Instance(
            instance_id=f"org__repo{k % 21}-{k}",
            repo=f"org/repo{k % 21}",
            base_commit="0" * 40,
            patch=patch,
            language=languages[k % 4],
            task_category=["Bug Fix", "Feature", "Refactoring"][k % 3],
            num_func_changes=funcs,
            num_class_changes=classes,
        )
        instances[instance.instance_id] = instance
    runs = []
    for r in range(3):
        results = {
            i: InstanceResult(
                instance_id=i,
                repo="org/repo",
                language="Python",
                status=Status.RESOLVED if rng.random() < 0.1 + 0.1 * r else Status.UNRESOLVED,
            )
            for i in instances
        }
        run = LoadedRun(
            run_dir=Path(f"run{r}"),
            run_id=f"run{r}",
            label=f"run{r}",
            metadata={},
            results=results,
            patches={},
            listed_ids=list(instances),
        )
        run.instance_ids = list(instances)
        runs.append(run)
    return instances, runs


def bench_report() -> None:
    instances, runs = synthetic()
    baseline, _ = timed(
        lambda: {run.label: {i: run.status(i) for i in run.instance_ids} for run in runs}
    )
    tables, report = timed(lambda: build_report(runs, instances))
    text, _ = timed(lambda: (to_markdown(report), csv_files(report)))
    html, page = timed(lambda: to_html(report))
    print(f"\nreport: 3 runs x {len(instances)} instances, {len(STRATIFICATIONS)} strata")
    print(f"{'step':<28} {'seconds':>8} {'ratio to baseline':>18}")
    for name, seconds in (
        ("baseline (read statuses)", baseline),
        ("tables (bootstrap SEs)", tables),
        ("markdown + csv", text),
        ("html (charts)", html),
    ):
        print(f"{name:<28} {seconds:>8.3f} {seconds / baseline:>17.1f}x")
    print(f"report.html size: {len(page) / 1024:.0f} KiB")


if __name__ == "__main__":
    bench_bootstrap()
    bench_report()
