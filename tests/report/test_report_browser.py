"""report.html in a real browser: it renders, logs no error, loads nothing, shows the numbers."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from polybench.report.output import write_report
from polybench.report.render_text import pct, pct_se
from tests.helpers.browser import find_chromium, load_page
from tests.helpers.report_data import sample_report

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(find_chromium() is None, reason="needs chromium (Debian package)"),
]

PROBES = {
    "charts": "Array.from(document.querySelectorAll('figure svg'))"
    ".map(s => Math.round(s.getBoundingClientRect().width))",
    "tables": "document.querySelectorAll('table').length",
    "title": "document.title",
}


def test_report_renders_without_errors_and_shows_report_json(tmp_path: Path) -> None:
    report = sample_report(tmp_path / "runs")
    out = tmp_path / "out"
    write_report(report, out)
    data = json.loads((out / "report.json").read_text())

    visit = load_page(out / "report.html", screenshot=True, probes=PROBES)

    assert visit.errors == []
    assert visit.requests == [(out / "report.html").resolve().as_uri()]
    assert visit.probes["title"] == "polybench report: agent-a, agent-b"
    charts = visit.probes["charts"]
    # A chart per table, the retrieval chart and the paired comparison chart.
    assert len(charts) == len(data["tables"]) + 2 and all(width > 200 for width in charts)
    # Runs, both rules, defences, paired comparison, every table, the overall token usage
    # (agent-a reports some), file and node retrieval, each run's instances.
    assert visit.probes["tables"] == 4 + len(data["tables"]) + 1 + 2 + len(data["runs"])

    lines = visit.text.splitlines()
    for run in data["runs"]:
        assert any(
            line.startswith(run["label"]) and pct(run["pass_rate"]) in line for line in lines
        )
    for run in data["runs"]:
        strict, official = pct(run["strict_pass_rate"]), pct(run["official_pass_rate"])
        assert f"{run['strict_resolved']}\t{strict}" in visit.text
        assert f"{run['official_resolved']}\t{official}" in visit.text
    for table in data["tables"]:
        for row in table["rows"]:
            # A table row reads: label, then n, resolved, pass rate, SE of each run.
            cells = [row["label"]]
            for label in ("agent-a", "agent-b"):
                cell = row["cells"][label]
                cells += [str(cell["n"]), str(cell["resolved"])]
                cells += [pct(cell["pass_rate"]), pct_se(cell["se"])]
                if label in table["token_runs"]:
                    tokens = cell["input_tokens"], cell["output_tokens"]
                    cells += ["-" if t is None else f"{t:,.0f}" for t in tokens]
            assert "\t".join(cells) in visit.text, (table["key"], cells)
    for row in data["retrieval"]["rows"]:
        cell = row["cells"]["agent-a"]
        assert f"{row['label']}\t{cell['n']}\t{pct(cell['file_recall'])}" in visit.text

    assert visit.screenshot is not None and visit.screenshot.startswith(b"\x89PNG")
    image_module = pytest.importorskip("PIL.Image")
    image = image_module.open(io.BytesIO(visit.screenshot)).convert("RGB")
    assert image.size == (1280, visit.size[1]) and image.size[1] > 2000
    colours = image.getcolors(maxcolors=1 << 20)
    assert colours is not None and len(colours) > 50  # not a blank page
    assert any(rgb == (76, 114, 176) for _, rgb in colours)  # the first run's bars


def test_the_checks_catch_a_broken_page(tmp_path: Path) -> None:
    page = tmp_path / "bad.html"
    page.write_text(
        "<!DOCTYPE html><html><body><p>hello</p>"
        '<img src="https://example.invalid/logo.png">'
        "<script>console.error('oops'); undefinedFunction();</script></body></html>"
    )
    visit = load_page(page)
    assert visit.text == "hello"
    assert "https://example.invalid/logo.png" in visit.requests
    assert any("oops" in error for error in visit.errors)
    assert any("undefinedFunction" in error for error in visit.errors)
    assert any("logo.png" in error for error in visit.errors)
