"""``polybench build``: candidates to dataset instances (patch split, recipes)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from polybench.atomic import atomic_write_text
from polybench.cli.consoles import console, err_console, escape


def build_command(
    candidates: Annotated[Path, typer.Argument(help="Candidates JSONL from `polybench collect`.")],
    recipes: Annotated[
        Path | None,
        typer.Option(
            help="A recipe YAML file, or a directory of them (one per repo). The official "
            "SWE-PolyBench repositories have shipped recipes; a recipe given here wins."
        ),
    ] = None,
    output: Annotated[
        Path, typer.Option("--output", "-o", help="Dataset file (.jsonl, .json or .csv).")
    ] = Path("instances.jsonl"),
    test_paths: Annotated[
        Path | None, typer.Option(help="YAML file of test-path globs per language.")
    ] = None,
) -> None:
    """Split each PR into code and test patches and fill the dataset columns."""
    from polybench.curation.build import build_all
    from polybench.curation.candidates import Candidate, read_jsonl
    from polybench.curation.dataset_io import write_dataset
    from polybench.curation.recipes import RecipeError, recipes_for_build
    from polybench.curation.testpaths import TestPathRules

    try:
        items = read_jsonl(candidates, Candidate)
        recipe_map, shipped = recipes_for_build(recipes)
        rules = TestPathRules.from_yaml(test_paths) if test_paths else TestPathRules()
    except (OSError, ValueError, RecipeError) as exc:
        err_console.print(f"[red]error:[/red] {escape(str(exc))}")
        raise typer.Exit(2) from exc
    used = sorted({c.repo for c in items if c.repo.lower() in shipped}, key=str.lower)
    for repo in used:
        console.print(f"{escape(repo)}: the shipped official recipe")
    outcome = build_all(items, recipe_map, rules)
    for rejection in outcome.rejected:
        detail = f": {rejection.detail}" if rejection.detail else ""
        text = escape(f"{rejection.item} ({rejection.reason}){detail}")
        console.print(f"[yellow]rejected[/yellow] {text}")
    try:
        write_dataset(outcome.instances, output)
    except ValueError as exc:
        err_console.print(f"[red]error:[/red] {escape(str(exc))}")
        raise typer.Exit(2) from exc
    report_path = output.with_name(output.name + ".report.json")
    report = {
        "candidates": len(items),
        "built": len(outcome.instances),
        "shipped_recipes": used,
        "rejected": outcome.counts(),
        "rejections": [r.model_dump() for r in outcome.rejected],
    }
    atomic_write_text(report_path, json.dumps(report, indent=1) + "\n")
    counts = ", ".join(f"{k} {v}" for k, v in sorted(outcome.counts().items())) or "none"
    console.print(
        f"{len(items)} candidates: {len(outcome.instances)} instances built, rejected: {counts}"
    )
    console.print(f"wrote {escape(str(output))} (report: {escape(str(report_path))})")
