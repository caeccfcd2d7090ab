"""Write every rendering of a report into one folder."""

from __future__ import annotations

from pathlib import Path

from polybench.atomic import atomic_write_bytes, atomic_write_text
from polybench.report.model import Report
from polybench.report.render_latex import to_latex
from polybench.report.render_text import csv_files, to_markdown

REPORT_FILES = ("report.md", "report.json", "report.tex", "report.html")
CHARTS_DIR = "charts"
INSTANCES_DIR = "instances"
"""``instances/<run>/``: each run's instance pages, linked from ``report.html``."""


def write_instance_pages(report: Report, output_dir: Path) -> dict[str, str]:
    """The pages of every run whose folder is still there, under ``instances/<run>/``;
    returns each such run's folder of pages, relative to ``output_dir``."""
    from polybench.report.instance_view import RunViewError, load_run_view
    from polybench.report.render_view import page_name
    from polybench.report.views import write_pages

    folders = {}
    for run in report.runs:
        try:
            view = load_run_view(Path(run.run_dir), report.prices)
        except RunViewError:
            continue
        folder = f"{INSTANCES_DIR}/{page_name(run.label).removesuffix('.html')}"
        write_pages(view, output_dir / folder)
        folders[run.label] = folder
    return folders


def write_report(
    report: Report, output_dir: Path, html: bool = True, charts: bool = True
) -> list[Path]:
    """Write ``report.md``, ``report.json``, ``report.tex`` (LaTeX tables), one CSV per
    table, ``report.html`` (with each
    run's instance pages under ``instances/<run>/``) and every chart as
    ``charts/<name>.svg`` and ``charts/<name>.pdf``.

    ``html`` and ``charts`` turn the page and the chart files off. Returns the paths
    written, in that order.
    """
    output_dir.mkdir(parents=True, exist_ok=True)
    written = []
    contents = {
        "report.md": to_markdown(report),
        "report.json": report.model_dump_json(indent=2),
        "report.tex": to_latex(report),
        **csv_files(report),
    }
    drawn = []
    if html or charts:
        # matplotlib is imported only when charts are drawn (it is slow to import).
        from polybench.report.charts import report_charts

        drawn = report_charts(report)
    if html:
        from polybench.report.render_html import to_html

        pages = write_instance_pages(report, output_dir)
        contents["report.html"] = to_html(report, drawn, pages)
    for name, text in contents.items():
        path = output_dir / name
        atomic_write_text(path, text)
        written.append(path)
    if charts and drawn:
        folder = output_dir / CHARTS_DIR
        folder.mkdir(exist_ok=True)
        for chart in drawn:
            svg, pdf = folder / f"{chart.name}.svg", folder / f"{chart.name}.pdf"
            atomic_write_text(svg, chart.svg)
            atomic_write_bytes(pdf, chart.pdf)
            written += [svg, pdf]
    return written
