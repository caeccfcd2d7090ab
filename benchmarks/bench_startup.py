"""Start-up time of the ``polybench`` command line.

Each case is a fresh interpreter (``sys.executable``), timed by wall clock from start to
exit, output discarded. The cases run in turns, one run of each per round, so that a
neighbour's load on a shared machine falls on all of them alike; the median of the rounds
is kept. The baseline, timed in the same run, is an interpreter that only imports typer
and rich, what any typer command line needs before it can print anything:

* baseline: ``python -c "import typer, rich"``;
* ``polybench --help`` and ``polybench version`` (``python -m polybench.cli.main ...``);
* ``polybench eval --help``: the longest help;
* typer floors: ``--help`` of a typer app with one command and one option, the least any
  typer command line costs, with plain help as polybench prints it and with typer's rich
  help panels (which import rich's Markdown, syntax and traceback modules), and the same
  app run rather than asked for help (typer then imports pydantic to check values, which
  ``polybench version`` pays too).

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
    cli = [sys.executable, "-m", "polybench.cli.main"]
    return {
        "baseline: import typer, rich": [sys.executable, "-c", "import typer, rich"],
        "polybench --help": [*cli, "--help"],
        "polybench version": [*cli, "version"],
        "polybench eval --help": [*cli, "eval", "--help"],
        "typer floor: one-command app --help (plain help)": [
            sys.executable,
            str(floor_script),
            "plain",
            "--help",
        ],
        "typer floor: one-command app run (no --help)": [
            sys.executable,
            str(floor_script),
            "plain",
        ],
        "typer floor: one-command app --help (rich help panels)": [
            sys.executable,
            str(floor_script),
            "rich",
            "--help",
        ],
    }


def run_once(command: list[str], env: dict[str, str]) -> float:
    """Wall-clock seconds of one run (it must succeed)."""
    start = time.perf_counter()
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, check=True)
    return time.perf_counter() - start


def measure(commands: dict[str, list[str]], runs: int) -> dict[str, list[float]]:
    """``runs`` timings of every case, taken in turns after one warm-up run each."""
    env = {**os.environ, "COLUMNS": "100"}
    for command in commands.values():
        run_once(command, env)  # bytecode caches written, files in the page cache
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(runs):
        for name, command in commands.items():
            times[name].append(run_once(command, env))
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21, help="rounds (default 21)")
    parser.add_argument("--output", type=Path, default=RESULTS)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        floor = Path(scratch) / "floor_app.py"
        floor.write_text(FLOOR_APP, encoding="utf-8")
        times = measure(cases(floor), args.runs)
    names = list(times)
    base = statistics.median(times[names[0]])
    lines = [
        "# Start-up time of the command line",
        "",
        f"Median wall time of {args.runs} runs each, in turns, on {os.cpu_count()} CPUs "
        f"(Python {platform.python_version()}, typer {version('typer')}, "
        f"rich {version('rich')}); ratio to the baseline timed in the same run.",
        "",
        "| command | median (s) | fastest (s) | ratio to baseline |",
        "|---|---:|---:|---:|",
    ]
    for name in names:
        median = statistics.median(times[name])
        lines.append(f"| {name} | {median:.3f} | {min(times[name]):.3f} | {median / base:.2f}x |")
    text = "\n".join(lines)
    print(text)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
