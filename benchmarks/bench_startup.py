"""Start-up time of the ``polybench`` command line, against ``python -c pass``.

Each case is a fresh interpreter (``sys.executable``) run to its exit, output discarded;
its CPU time (user + system, from the kernel's accounting of the child) and its wall time
are recorded. The cases run in turns, one run of each per round, so that a neighbour's
load on a shared machine falls on all of them alike; the median of the rounds is kept.
The baseline, timed in the same run, is ``python -c pass``: the interpreter's own start.

* ``polybench --help``, ``polybench version``, ``polybench eval --help`` (the longest
  help), run as ``python -m polybench``;
* references: ``python -c "import typer, rich"`` (the libraries any typer command line
  with rich output imports) and a typer app with one command and one option, asked for
  its help and run (typer then imports pydantic to check the value).

Results go to benchmarks/results/startup.md.

    python benchmarks/bench_startup.py             # 21 rounds
    python benchmarks/bench_startup.py --runs 51
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from importlib.metadata import version
from pathlib import Path

from bytecode import compile_polybench

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results" / "startup.md"
FLOOR_APP = '''
import sys

import typer

MARKUP = "rich" if sys.argv.pop(1) == "rich" else None

app = typer.Typer(add_completion=False, rich_markup_mode=MARKUP)


@app.command()
def main(count: int = 1) -> None:
    """Do nothing."""


app()
'''


def cases(floor_script: Path) -> dict[str, list[str]]:
    """The command line of each case, the baseline first."""
    cli = [sys.executable, "-m", "polybench"]
    return {
        "baseline: python -c pass": [sys.executable, "-c", "pass"],
        "polybench --help": [*cli, "--help"],
        "polybench version": [*cli, "version"],
        "polybench eval --help": [*cli, "eval", "--help"],
        "reference: python -c 'import typer, rich'": [
            sys.executable,
            "-c",
            "import typer, rich",
        ],
        "reference: one-command typer app --help (plain help)": [
            sys.executable,
            str(floor_script),
            "plain",
            "--help",
        ],
        "reference: one-command typer app run (no --help)": [
            sys.executable,
            str(floor_script),
            "plain",
        ],
        "reference: one-command typer app --help (rich help panels)": [
            sys.executable,
            str(floor_script),
            "rich",
            "--help",
        ],
    }


def run_once(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """CPU seconds (user + system) and wall seconds of one run (it must succeed)."""
    start = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise SystemExit(f"{command} exited with {child.returncode}")
    return usage.ru_utime + usage.ru_stime, wall


def measure(commands: dict[str, list[str]], runs: int) -> dict[str, list[tuple[float, float]]]:
    """``runs`` timings of every case, taken in turns after one warm-up run each."""
    env = {**os.environ, "COLUMNS": "100"}
    for command in commands.values():
        run_once(command, env)  # bytecode caches written, files in the page cache
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    for _ in range(runs):
        for name, command in commands.items():
            times[name].append(run_once(command, env))
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21, help="rounds (default 21)")
    parser.add_argument("--output", type=Path, default=RESULTS)
    args = parser.parse_args()
    compile_polybench()
    with tempfile.TemporaryDirectory() as scratch:
        floor = Path(scratch) / "floor_app.py"
        floor.write_text(FLOOR_APP, encoding="utf-8")
        times = measure(cases(floor), args.runs)
    names = list(times)
    cpu = {name: statistics.median(t[0] for t in times[name]) for name in names}
    wall = {name: statistics.median(t[1] for t in times[name]) for name in names}
    base = names[0]
    lines = [
        "# Start-up time of the command line",
        "",
        f"Median of {args.runs} runs each, in turns, on {os.cpu_count()} CPUs "
        f"(Python {platform.python_version()}, typer {version('typer')}, "
        f"rich {version('rich')}); ratios to `python -c pass` timed in the same run.",
        "",
        "| command | CPU (s) | CPU / python -c pass | wall (s) | wall / python -c pass |",
        "|---|---:|---:|---:|---:|",
    ]
    for name in names:
        lines.append(
            f"| {name} | {cpu[name]:.3f} | {cpu[name] / cpu[base]:.2f}x | "
            f"{wall[name]:.3f} | {wall[name] / wall[base]:.2f}x |"
        )
    text = "\n".join(lines)
    print(text)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
