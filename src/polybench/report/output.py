"""Write every rendering of a report into one folder."""

from __future__ import annotations

from pathlib import Path

from polybench.atomic import atomic_write_text
from polybench.report.model import Report
from polybench.report.render_text import csv_files, to_markdown

REPORT_FILES = ("report.md", "report.json", "report.html")


def write_report(report: Report, output_dir: Path, html: bool = True) -> list[Path]:
    """Write ``report.md``, ``report.json``, one CSV per table and ``report.html``.

    Returns the paths written, in that order.
    """
    output_dir.mkdir(parents=True, exist_ok=True)
    written = []
    contents = {
        "report.md": to_markdown(report),
        "report.json": report.model_dump_json(indent=2),
        **csv_files(report),
    }
    if html:
        # matplotlib is imported only when a page is drawn (it is slow to import).
        from polybench.report.render_html import to_html

        contents["report.html"] = to_html(report)
    for name, text in contents.items():
        path = output_dir / name
        atomic_write_text(path, text)
        written.append(path)
    return written
