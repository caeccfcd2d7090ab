"""Run the reliability suite and write its table: attack, outcome, reason.

The suite is the tests marked ``reliability`` (hostile predictions, a killed sandbox, a
full disk, a killed driver, a Ray worker and a Ray node lost). Each test records the rows
it verified; this script collects them and writes Markdown. A row exists only when its
test's assertions held.

Run: ``python benchmarks/reliability.py [--workers 2] [--output benchmarks/results/reliability.md]``
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

GROUPS = ("attacks", "hostile predictions", "faults")
ATTACK_COLUMNS = ("attack", "class", "language", "backend", "outcome", "layer")


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render(rows: list[dict[str, str]], summary: str) -> str:
    """The Markdown table of ``rows``, one section per group."""
    lines = [
        "# Reliability suite",
        "",
        "Produced by `python benchmarks/reliability.py` (the tests marked `reliability`).",
        f"pytest: {summary}",
        "",
    ]
    attacks = [row for row in rows if row.get("group") == "attacks"]
    if attacks:
        resolved = sum(1 for row in attacks if row["outcome"].startswith("resolved"))
        lines += [
            "## Attacks on the verdict",
            "",
            f"{len(attacks)} rows, false resolves: {resolved}. `layer` names the defences "
            "that acted (see docs/reliability.md).",
            "",
            "| " + " | ".join(ATTACK_COLUMNS) + " |",
            "|" + "---|" * len(ATTACK_COLUMNS),
        ]
        key = lambda row: (row.get("backend", ""), row.get("class", ""), row["attack"])  # noqa: E731
        lines += [
            "| " + " | ".join(_cell(row.get(c, "")) for c in ATTACK_COLUMNS) + " |"
            for row in sorted(attacks, key=key)
        ]
        lines.append("")
    for group in GROUPS[1:]:
        chosen = [row for row in rows if row.get("group", "faults") == group]
        if not chosen:
            continue
        lines += [f"## {group.capitalize()}", "", "| attack | outcome | reason |", "|---|---|---|"]
        lines += [
            f"| {_cell(r['attack'])} | {_cell(r['outcome'])} | {_cell(r['reason'])} |"
            for r in chosen
        ]
        lines.append("")
    return "\n".join(lines)


def main() -> int:
    """Run the suite, write the table, and exit with pytest's status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", default="2", help="pytest-xdist workers (-n)")
    parser.add_argument("--output", type=Path, default=Path("benchmarks/results/reliability.md"))
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="polybench-reliability-") as scratch:
        log = Path(scratch) / "rows.jsonl"
        env = dict(os.environ, POLYBENCH_RELIABILITY_LOG=str(log))
        started = time.monotonic()
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "-m", "reliability", "-n", args.workers, "-q",
             "-p", "no:cacheprovider"],
            env=env, capture_output=True, text=True, check=False,
        )  # fmt: skip
        elapsed = time.monotonic() - started
        rows = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    tail = [line for line in done.stdout.splitlines() if line.strip()]
    summary = f"{tail[-1] if tail else 'no output'} (wall {elapsed:.0f}s)"
    text = render(rows, summary)
    print(text)
    if done.returncode != 0:
        print(done.stdout[-5000:], done.stderr[-5000:], sep="\n", file=sys.stderr)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(text + "\n", encoding="utf-8")
    return done.returncode


if __name__ == "__main__":
    raise SystemExit(main())
