"""One self-contained HTML page: every table of the report, with inline SVG charts.

The page loads nothing from anywhere (no scripts, fonts, images or style sheets from
outside the file), so it can be mailed, archived or opened offline. The charts are the
ones :func:`polybench.report.charts.report_charts` draws (also saved as files).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from urllib.parse import quote

from polybench.report.charts import Chart, color, report_charts
from polybench.report.model import PassRateTable, Report, RetrievalTable
from polybench.report.render_text import (
    DEFENCES_DESCRIPTION,
    PAIRED_DESCRIPTION,
    RULES_DESCRIPTION,
    STRATUM_HEADERS,
    count,
    defence_cells,
    detected_lines,
    disagreement_lines,
    paired_cells,
    pct,
    pct_se,
    prices_line,
    rules_cells,
    summary_cells,
    token_cells,
    token_columns,
    token_summary_cells,
    usd,
)

_CSS = """
body { font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 0;
  color: #222; background: #fafafa; }
main { max-width: 1180px; margin: 0 auto; padding: 16px 24px 48px; }
h1 { font-size: 1.6em; margin: 0.4em 0 0.1em; }
h2 { font-size: 1.2em; margin: 0.6em 0 0.4em; border-bottom: 1px solid #ddd; padding-bottom: 4px; }
h3 { font-size: 1.0em; margin: 1.0em 0 0.3em; }
p.meta, p.description, ul.notes { color: #555; font-size: 0.9em; }
nav { font-size: 0.9em; margin: 8px 0 0; }
nav a { margin-right: 12px; color: #2a5db0; text-decoration: none; }
section { background: #fff; border: 1px solid #e4e4e4; border-radius: 6px; padding: 4px 16px 12px;
  margin-top: 16px; }
figure { margin: 8px 0; overflow-x: auto; }
figure svg { max-width: 100%; height: auto; }
table { border-collapse: collapse; font-size: 0.85em; margin: 8px 0; }
th, td { padding: 3px 8px; border-bottom: 1px solid #eee; white-space: nowrap; }
th { background: #f3f3f3; font-weight: 600; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
td.label { text-align: left; }
tr.overall td { font-weight: 600; border-top: 2px solid #ccc; }
th.run { border-bottom: 3px solid var(--run-color); }
.swatch { display: inline-block; width: 10px; height: 10px; border-radius: 2px;
  background: var(--run-color); margin-right: 4px; }
.scroll { overflow-x: auto; }
div.warning { background: #fff4e5; border: 1px solid #f0b35b; border-left: 6px solid #e08a00;
  border-radius: 6px; padding: 8px 14px; margin: 12px 0 0; color: #5a3700; }
p.scope { font-style: italic; font-size: 0.9em; color: #5a3700; }
"""


def _run_header(labels: Sequence[str], spans: Sequence[int]) -> str:
    return "".join(
        f'<th class="run" colspan="{span}" style="--run-color:{color(i)}">'
        f'<span class="swatch"></span>{escape(label)}</th>'
        for i, (label, span) in enumerate(zip(labels, spans, strict=True))
    )


def _td(text: str, numeric: bool = True) -> str:
    return f'<td class="{"num" if numeric else "label"}">{escape(text)}</td>'


def _notes(notes: Sequence[str]) -> str:
    if not notes:
        return ""
    return '<ul class="notes">' + "".join(f"<li>{escape(n)}</li>" for n in notes) + "</ul>"


def pass_rate_html(table: PassRateTable, labels: Sequence[str]) -> str:
    """A pass-rate table with a column group per run (token columns for runs with usage)."""
    grouped = any(row.group for row in table.rows)
    subs = {
        label: ["n", "resolved", "pass rate (%)", "SE", *token_columns(table, label)]
        for label in labels
    }
    head_cells = (["axis"] if grouped else []) + [STRATUM_HEADERS.get(table.key, table.key)]
    first = "".join(f'<th rowspan="2">{escape(h)}</th>' for h in head_cells)
    runs = _run_header(labels, [len(subs[label]) for label in labels])
    second = "".join(f"<th>{escape(h)}</th>" for label in labels for h in subs[label])
    rows = []
    for row in table.rows:
        cells = ([_td(row.group or "", False)] if grouped else []) + [_td(row.label, False)]
        for label in labels:
            cell = row.cells[label]
            cells += [
                _td(str(cell.n)),
                _td(str(cell.resolved)),
                _td(pct(cell.pass_rate)),
                _td(pct_se(cell.se)),
            ]
            cells += [_td(text) for text in token_cells(table, label, cell)]
        css = ' class="overall"' if row.key == "All" else ""
        rows.append(f"<tr{css}>{''.join(cells)}</tr>")
    return (
        f'<div class="scroll"><table id="table-{escape(table.key)}"><thead>'
        f"<tr>{first}{runs}</tr><tr>{second}</tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )


def retrieval_html(table: RetrievalTable, labels: Sequence[str]) -> str:
    """The file and node retrieval tables, a column group per run."""
    parts = []
    for level in ("file", "node"):
        sub = ["n", "recall (%)", "precision (%)", "F1 (%)"]
        second = "".join(f"<th>{h}</th>" for _ in labels for h in sub)
        rows = []
        for row in table.rows:
            cells = [_td(row.label, False)]
            for label in labels:
                cell = row.cells[label]
                cells += [
                    _td(str(cell.n if level == "file" else cell.node_n)),
                    _td(pct(getattr(cell, f"{level}_recall"))),
                    _td(pct(getattr(cell, f"{level}_precision"))),
                    _td(pct(getattr(cell, f"{level}_f1"))),
                ]
            css = ' class="overall"' if row.key == "All" else ""
            rows.append(f"<tr{css}>{''.join(cells)}</tr>")
        parts.append(
            f"<h3>{level.capitalize()} retrieval</h3>"
            f'<div class="scroll"><table id="table-retrieval-{level}"><thead>'
            f'<tr><th rowspan="2">language</th>{_run_header(labels, [len(sub)] * len(labels))}</tr>'
            f"<tr>{second}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
        )
    return "".join(parts)


def _summary_html(report: Report) -> str:
    header, rows = summary_cells(report)
    head = "".join(f"<th>{escape(h)}</th>" for h in header)
    body = []
    for index, row in enumerate(rows):
        swatch = f'<span class="swatch" style="--run-color:{color(index)}"></span>'
        first = f'<td class="label">{swatch}{escape(row[0])}</td>'
        rest = "".join(_td(c, numeric=i >= 3) for i, c in enumerate(row[1:], start=1))
        body.append(f"<tr>{first}{rest}</tr>")
    notes = [f"{run.label}: {note}" for run in report.runs for note in run.notes]
    return (
        f'<div class="scroll"><table id="table-runs"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table></div>{_notes(notes)}"
    )


def _simple_table(
    table_id: str, header: Sequence[str], rows: Sequence[Sequence[str]], labels: int = 1
) -> str:
    """A one-header table; the first ``labels`` columns are text, the others numbers."""
    head = "".join(f"<th>{escape(h)}</th>" for h in header)
    body = "".join(
        "<tr>" + "".join(_td(c, numeric=i >= labels) for i, c in enumerate(row)) + "</tr>"
        for row in rows
    )
    return (
        f'<div class="scroll"><table id="{escape(table_id)}"><thead><tr>{head}</tr></thead>'
        f"<tbody>{body}</tbody></table></div>"
    )


def _paired_html(report: Report) -> str:
    return _simple_table("table-paired", *paired_cells(report.paired, report.confidence), 2)


def _rules_html(report: Report) -> str:
    body = f'<p class="description">{escape(RULES_DESCRIPTION)}</p>'
    body += _simple_table("table-rules", *rules_cells(report), 2)
    for run in report.runs:
        if run.disagreements:
            body += f"<h3>Where the rules disagree in {escape(run.label)}</h3>"
            body += _notes(disagreement_lines(run))
    return body


def _defences_html(report: Report) -> str:
    body = f'<p class="description">{escape(DEFENCES_DESCRIPTION)}</p>'
    body += _simple_table("table-defences", *defence_cells(report))
    detected = detected_lines(report)
    if detected:
        body += "<h3>Tampering detected in</h3>" + _notes(detected)
    return body


def _tokens_html(report: Report, charts: dict[str, Chart]) -> str:
    header, rows = token_summary_cells(report)
    if not rows:
        return ""
    line = prices_line(report)
    body = "<h3>Token usage per instance, all task categories</h3>"
    body += f'<p class="description">{escape(line)}</p>' if line else ""
    body += _simple_table("table-tokens", header, rows)
    return body + _figure(charts, "cost")


def _figure(charts: dict[str, Chart], name: str) -> str:
    chart = charts.get(name)
    return "" if chart is None else f"<figure>{chart.inline_svg}</figure>"


def _scope(text: str) -> str:
    return f'<p class="scope">{escape(text)}</p>' if text else ""


def _section(anchor: str, title: str, body: str) -> str:
    return f'<section id="{escape(anchor)}"><h2>{escape(title)}</h2>{body}</section>'


INSTANCES_OPEN = 50
"""A run's instance table starts open when it has at most this many rows."""


def _yes_no(value: bool | None) -> str:
    return "-" if value is None else ("yes" if value else "no")


def _instances_html(report: Report, pages: Mapping[str, str]) -> str:
    """Each run's instances: status, both rules, defences, tokens, cost, file F1; the id
    links to the instance's page when ``pages`` has a folder of pages for the run."""
    from polybench.report.render_view import page_name

    header = ["instance", "status", "strict", "official", "defences", "input tokens",
              "output tokens", "cost (USD)", "file F1 (%)"]  # fmt: skip
    head = "".join(f"<th>{escape(h)}</th>" for h in header)
    parts = []
    for label in report.labels:
        records = report.instances.get(label, [])
        folder = pages.get(label)
        rows = []
        for record in records:
            name = escape(record.instance_id)
            if folder is not None:
                href = escape(quote(f"{folder}/{page_name(record.instance_id)}"), quote=True)
                name = f'<a href="{href}">{name}</a>'
            retrieval = record.retrieval or {}
            file_f1 = (retrieval.get("file") or {}).get("f1")
            cells = [
                f'<td class="label">{name}</td>',
                _td(record.status, False),
                _td(_yes_no(record.strict_resolved), False),
                _td(_yes_no(record.official_resolved), False),
                _td(", ".join(record.defences), False),
                _td(count(record.input_tokens)),
                _td(count(record.output_tokens)),
                _td(usd(record.cost)),
                _td(pct(file_f1) if isinstance(file_f1, (int, float)) else "-"),
            ]
            rows.append(f"<tr>{''.join(cells)}</tr>")
        opened = " open" if len(records) <= INSTANCES_OPEN else ""
        where = "" if folder is None else " (each links to its page)"
        parts.append(
            f"<details{opened}><summary>{escape(label)}: {len(records)} instances{where}"
            f'</summary><div class="scroll"><table class="instances"><thead><tr>{head}</tr>'
            f"</thead><tbody>{''.join(rows)}</tbody></table></div></details>"
        )
    return "".join(parts)


def to_html(
    report: Report,
    charts: Sequence[Chart] | None = None,
    instance_pages: Mapping[str, str] | None = None,
) -> str:
    """The whole report as one self-contained HTML page.

    ``charts`` are the report's charts when already drawn (else they are drawn here).
    ``instance_pages`` maps a run label to the folder (relative to the page) of its
    instances' pages, which the instance tables link to.
    """
    labels = report.labels
    by_name = {chart.name: chart for chart in (report_charts(report) if charts is None else charts)}
    sections = [
        _section("runs", "Runs", _summary_html(report)),
        _section("rules", "Strict and official rules", _rules_html(report)),
        _section("defences", "Defences", _defences_html(report)),
    ]
    nav = ['<a href="#runs">Runs</a>', '<a href="#rules">Rules</a>']
    nav.append('<a href="#defences">Defences</a>')
    if report.paired:
        body = f'<p class="description">{escape(PAIRED_DESCRIPTION)}</p>'
        body += _figure(by_name, "paired") + _paired_html(report)
        sections.append(_section("paired", "Paired comparison", body))
        nav.append('<a href="#paired">Paired</a>')
    for table in report.tables:
        title = f"{table.reference}: {table.title}" if table.reference else table.title
        body = _scope(table.scope)
        if table.description:
            body += f'<p class="description">{escape(table.description)}</p>'
        body += _figure(by_name, table.key)
        body += pass_rate_html(table, labels) + _notes(table.notes)
        if table.key == "task_category":
            body += _tokens_html(report, by_name)
        sections.append(_section(table.key, title, body))
        nav.append(f'<a href="#{escape(table.key)}">{escape(table.reference or table.title)}</a>')
    if report.retrieval is not None:
        table6 = report.retrieval
        body = _scope(table6.scope) + _figure(by_name, "retrieval")
        body += retrieval_html(table6, labels) + _notes(table6.notes)
        sections.append(_section("retrieval", f"{table6.reference}: {table6.title}", body))
        nav.append(f'<a href="#retrieval">{escape(table6.reference)}</a>')
    if any(report.instances.get(label) for label in labels):
        body = _instances_html(report, instance_pages or {})
        sections.append(_section("instances", "Instances", body))
        nav.append('<a href="#instances">Instances</a>')
    if report.notes:
        sections.append(_section("notes", "Notes", _notes(report.notes)))
        nav.append('<a href="#notes">Notes</a>')
    meta = (
        f"polybench {escape(report.polybench_version)}, {escape(report.generated_at)}. "
        f"Pass rates in %, with bootstrap standard errors in percentage points "
        f"({report.n_resamples} resamples, seed {report.seed})."
    )
    warnings = "".join(
        f'<div class="warning" role="alert"><strong>Warning:</strong> {escape(w)}</div>'
        for w in report.warnings
    )
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>polybench report: {escape(', '.join(labels))}</title>"
        f"<style>{_CSS}</style></head><body><main>"
        f'<h1>polybench report</h1><p class="meta">{meta}</p>{warnings}<nav>{"".join(nav)}</nav>'
        f"{''.join(sections)}</main></body></html>\n"
    )
