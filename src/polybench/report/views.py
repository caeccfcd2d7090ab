"""Per-instance pages of a run as a library call: :func:`write_run_view` reads a run
folder (:mod:`polybench.report.instance_view`) and writes its pages
(:mod:`polybench.report.render_view`)."""

from __future__ import annotations

from pathlib import Path

from polybench.atomic import atomic_write_text
from polybench.report.instance_view import RunView, load_run_view
from polybench.report.model import TokenPrices
from polybench.report.render_view import INDEX, render_run

VIEW_DIR = "view"
"""Where the pages go by default: ``<run>/view/``."""


def write_pages(run: RunView, out_dir: Path) -> Path:
    """Write the pages of ``run`` into ``out_dir``; returns the index page."""
    out_dir.mkdir(parents=True, exist_ok=True)
    folder = out_dir.resolve()
    for name, html in render_run(run, folder).items():
        atomic_write_text(folder / name, html)
    return folder / INDEX


def write_run_view(
    run_dir: Path, out_dir: Path | None = None, prices: TokenPrices | None = None
) -> tuple[RunView, Path]:
    """The run folder's instances and the index page written for them (in
    ``<run_dir>/view/`` unless ``out_dir``). Raises
    :class:`~polybench.report.instance_view.RunViewError` when it is not a run."""
    run = load_run_view(run_dir.resolve(), prices)
    return run, write_pages(run, out_dir or run_dir / VIEW_DIR)
