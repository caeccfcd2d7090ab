"""What ``polybench eval`` costs over the tests it runs: the whole CLI against the bare
test commands, interleaved in one run.

For each instance of the built-in ``mini`` dataset (gold predictions) and each backend
asked for, this times:

* **bare test command**, the baseline, named for what it is:

  - ``local``: the instance's test command run by ``bash -c`` in a bubblewrap sandbox
    with the harness's own boundary and mounts (one ``LocalSandbox.exec``), in a checkout
    that already holds the gold and test patches and the environment (that preparation
    is not timed);
  - ``docker``: ``docker exec -w /testbed <container> bash -c <test command>`` with the
    docker CLI, in a container of the instance's image that already holds the patches.

* **CLI**: ``python -m polybench eval --dataset mini --predictions gold --instance-ids ID
  --workers 1 --canaries off`` as a subprocess, wall time: start-up, loading, sandbox,
  patch admission, the tests, grading, the reports: what the user waits for. With
  ``--canaries-too`` also the default (canaries on: a resolved instance's tests run a
  second time, armed, so expect about twice the bare command there).

* **whole run**: one ``polybench eval`` of every instance chosen (``--workers 1``,
  canaries off; the default ``--prepare-ahead 1`` prepares the next instance while the
  tests of one run, one test command at a time) against the sum of the bare commands of
  every instance timed right before or after it, so that the two meet the same load; and
  the same run with ``--prepare-ahead 0`` (each instance prepared only after the last
  one ended). The three take turns going first, round by round. Each round's line also
  shows the time the CLI itself recorded for its test commands (the sandbox entries that
  ran them): the rest of its time is the harness's own (start-up, the first instance's
  preparation, the last one's grading, the report), and a round whose tests ran slower
  or faster than the bare ones next to them shows as such.

Rounds alternate which of the two goes first, so both meet the same machine load. The
caches (clones, environments, images) are warmed first and not timed. A bare command on
the host, outside any sandbox, is not measured: the environments' editable installs point
at ``/testbed``, which exists only inside a sandbox.

Run::

    python benchmarks/bench_overhead.py [--backend local] [--backend docker] [--repeat 3]
        [--instances id,id] [--canaries-too]
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
import uuid
from collections.abc import Callable
from pathlib import Path

from bytecode import compile_polybench

from polybench.dataset.builtin import load_builtin, repo_dir_for
from polybench.dataset.models import Instance
from polybench.environments.backends import ProviderSettings, build_provider
from polybench.environments.provider import ReadySandbox
from polybench.paths import cache_root

BASE_SOURCE = ["registry"]
"""Docker: where base images come from (``--base-source``; ``rootfs`` without a registry)."""
TRUST_HOST_CA = [False]
"""Docker: builds trust this machine's CA certificates (``--trust-host-ca``, behind a
proxy that re-signs TLS)."""
GOALS = {"local": 1.10, "docker": 1.5}
BASELINES = {
    "local": "bare test command in a bubblewrap sandbox (same boundary and mounts)",
    "docker": "bare `docker exec` of the test command in a container of the same image",
}


def _cli(
    backend: str,
    ids: list[str],
    out: Path,
    canaries: bool,
    ahead: int = 1,
    tests: list[float] | None = None,
) -> float:
    """Wall seconds of one ``polybench eval`` subprocess (it must resolve every instance);
    ``ahead`` is its ``--prepare-ahead`` (1, the default: the next instance is prepared
    while the tests of one run). ``tests`` gets the seconds the run itself recorded for
    its test commands (the sandbox entries that ran them), summed over the instances."""
    argv = [
        sys.executable, "-m", "polybench", "eval", "--dataset", "mini", "--predictions",
        "gold", "--instance-ids", ",".join(ids), "--workers", "1", "--backend", backend,
        "--canaries", "on" if canaries else "off", "--run-id", uuid.uuid4().hex[:12],
        "--output-dir", str(out), "--prepare-ahead", str(ahead),
    ]  # fmt: skip
    if backend == "docker":
        argv += ["--base-source", BASE_SOURCE[0]]
        argv += ["--trust-host-ca"] if TRUST_HOST_CA[0] else []
    started = time.monotonic()
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    seconds = time.monotonic() - started
    if done.returncode != 0:
        raise SystemExit(f"polybench eval failed on {ids}:\n{done.stdout}\n{done.stderr}")
    run_id = argv[argv.index("--run-id") + 1]
    report = json.loads((out / run_id / "report.json").read_text(encoding="utf-8"))
    if report["resolved_instances"] != len(ids):
        raise SystemExit(f"polybench eval did not resolve every one of {ids}: {report}")
    if tests is not None:
        results = (out / run_id / "instances").glob("*/result.json")
        tests.append(
            sum(json.loads(r.read_text(encoding="utf-8"))["timings"]["tests"] for r in results)
        )
    return seconds


def _prepared(backend: str, instance: Instance, work: Path) -> ReadySandbox:
    """A sandbox of ``instance`` holding the gold and test patches and the environment."""
    options: dict[str, object] = {}
    if backend == "docker":
        options = {"base_source": BASE_SOURCE[0], "trust_host_ca": TRUST_HOST_CA[0]}
    settings = ProviderSettings(
        backend=backend, repo_dir=repo_dir_for("mini", None), work_dir=work, options=options
    )
    provider = build_provider(settings)
    ready = provider.provide(instance)
    sandbox = ready.sandbox
    for name, patch in (("gold.patch", instance.patch), ("test.patch", instance.test_patch)):
        path = f"{sandbox.scratch_dir}/{name}"
        sandbox.write_file(path, patch)
        applied = sandbox.exec(["git", "apply", path], timeout=300)
        if not applied.ok:
            raise SystemExit(f"{instance.instance_id}: {name} did not apply: {applied.output}")
    ready.activate()
    return ready


def bare_seconds(backend: str, instance: Instance, work: Path) -> float:
    """Seconds of the bare test command (see the module docstring), in a fresh sandbox."""
    ready = _prepared(backend, instance, work)
    sandbox = ready.sandbox
    try:
        command = ready.environment.test_command(instance.test_command)
        env = {**ready.environment.exec_env(sandbox.workdir), "PYTHONDONTWRITEBYTECODE": "1"}
        if backend == "docker":
            container = sandbox.container_id  # type: ignore[attr-defined]
            argv = ["docker", "exec", "-w", sandbox.workdir]
            for key, value in env.items():
                argv += ["-e", f"{key}={value}"]
            started = time.monotonic()
            subprocess.run([*argv, container, "bash", "-c", command], capture_output=True)
            return time.monotonic() - started
        started = time.monotonic()
        sandbox.exec(["bash", "-c", command], env=env, timeout=1800)
        return time.monotonic() - started
    finally:
        sandbox.cleanup()


def _rotated(runs: list[Callable[[], float]], round_: int) -> list[float]:
    """Each of ``runs`` once, starting at a different one each round; in their order."""
    seconds = [0.0] * len(runs)
    for step in range(len(runs)):
        which = (round_ + step) % len(runs)
        seconds[which] = runs[which]()
    return seconds


def _row(label: str, bare: list[float], cli: list[float]) -> str:
    b, c = statistics.median(bare), statistics.median(cli)
    return f"| {label} | {b:.2f} | {c:.2f} | {c - b:+.2f} | {c / b:.2f}x |"


def measure(
    backend: str, instances: list[Instance], repeat: int, canaries_too: bool, scratch: Path
) -> list[str]:
    """Warm the caches, then time every instance and the whole run; the table's lines."""
    ids = [i.instance_id for i in instances]
    print(f"[{backend}] warming caches...", file=sys.stderr)
    _cli(backend, ids, scratch / "warm", canaries=False)
    for instance in instances:
        bare_seconds(backend, instance, scratch / "sbx")
    per: dict[str, tuple[list[float], list[float], list[float]]] = {i: ([], [], []) for i in ids}
    whole_bare: list[float] = []
    whole_cli: list[float] = []
    whole_alone: list[float] = []
    whole_tests: list[float] = []
    for round_ in range(repeat):
        for instance in instances:
            bare, cli = _rotated(
                [
                    lambda i=instance: bare_seconds(backend, i, scratch / "sbx"),
                    lambda i=instance: _cli(backend, [i.instance_id], scratch / "runs", False),
                ],
                round_,
            )
            per[instance.instance_id][0].append(bare)
            per[instance.instance_id][1].append(cli)
            if canaries_too:
                per[instance.instance_id][2].append(
                    _cli(backend, [instance.instance_id], scratch / "runs", True)
                )
            print(
                f"[{backend}] {instance.instance_id}: bare {bare:.2f}s, CLI {cli:.2f}s",
                file=sys.stderr,
            )
        bare_sum, run_cli, run_alone = _rotated(
            [
                lambda: sum(bare_seconds(backend, i, scratch / "sbx") for i in instances),
                lambda: _cli(backend, ids, scratch / "runs", False, tests=whole_tests),
                lambda: _cli(backend, ids, scratch / "runs", False, ahead=0),
            ],
            round_,
        )
        whole_bare.append(bare_sum)
        whole_cli.append(run_cli)
        whole_alone.append(run_alone)
        print(
            f"[{backend}] whole run: bare sum {bare_sum:.2f}s, CLI {run_cli:.2f}s "
            f"(its test commands {whole_tests[-1]:.2f}s), CLI --prepare-ahead 0 {run_alone:.2f}s",
            file=sys.stderr,
        )
    lines = [
        f"### backend {backend}: baseline = {BASELINES[backend]}",
        f"median of {repeat} interleaved rounds; CLI = `polybench eval --canaries off --workers 1`",
        "",
        "| instance | bare (s) | CLI (s) | overhead (s) | ratio |",
        "|---|---:|---:|---:|---:|",
    ]
    for instance_id in ids:
        bare, cli, _ = per[instance_id]
        lines.append(_row(instance_id, bare, cli))
    ratios = [statistics.median(per[i][1]) / statistics.median(per[i][0]) for i in ids]
    whole = statistics.median(whole_cli) / statistics.median(whole_bare)
    lines += [
        _row(f"**whole run ({len(ids)} instances, one `polybench eval`)**", whole_bare, whole_cli),
        _row("whole run, `--prepare-ahead 0` (one instance at a time)", whole_bare, whole_alone),
        "",
        "whole run, round by round (bare sum; CLI; the CLI's test commands as it timed them; "
        "the rest of the CLI's time):",
        "",
        *(
            f"- round {n}: bare {bare:.2f} s; CLI {cli:.2f} s ({cli / bare:.2f}x); "
            f"its tests {tests:.2f} s; the rest {cli - tests:.2f} s"
            for n, (bare, cli, tests) in enumerate(
                zip(whole_bare, whole_cli, whole_tests, strict=True), start=1
            )
        ),
        "",
        f"per-instance CLI ratio: median {statistics.median(ratios):.2f}x "
        f"(min {min(ratios):.2f}x, max {max(ratios):.2f}x); whole run {whole:.2f}x; "
        f"goal {GOALS[backend]:.2f}x: {'met' if whole <= GOALS[backend] else 'NOT met'}",
    ]
    if canaries_too:
        with_canaries = [statistics.median(per[i][2]) / statistics.median(per[i][0]) for i in ids]
        lines.append(
            f"with canaries on (the default; resolved instances run their tests twice): "
            f"median per-instance ratio {statistics.median(with_canaries):.2f}x"
        )
    return lines


def main() -> None:
    """Measure and print the overhead tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", action="append", choices=sorted(GOALS))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--instances", default="", help="comma-separated ids (default: all)")
    parser.add_argument("--canaries-too", action="store_true")
    parser.add_argument("--base-source", default="registry", choices=("registry", "rootfs"))
    parser.add_argument(
        "--trust-host-ca", action="store_true", help="Docker builds trust this machine's CAs"
    )
    parser.add_argument("--output", type=Path, default=Path("benchmarks/results/overhead.md"))
    args = parser.parse_args()
    BASE_SOURCE[0] = args.base_source
    TRUST_HOST_CA[0] = args.trust_host_ca
    chosen = [i for i in args.instances.split(",") if i]
    instances = [i for i in load_builtin("mini") if not chosen or i.instance_id in chosen]
    print(f"cache: {os.environ.get('POLYBENCH_CACHE_DIR') or cache_root()}", file=sys.stderr)
    print(f"bytecode compiled: {compile_polybench()}", file=sys.stderr)
    lines = ["Whole-CLI overhead over the bare test commands (mini, gold predictions)", ""]
    with tempfile.TemporaryDirectory(prefix="polybench-bench-") as scratch:
        for backend in args.backend or ["local"]:
            lines += measure(backend, instances, args.repeat, args.canaries_too, Path(scratch))
            lines.append("")
    text = "\n".join(lines)
    print(text)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
