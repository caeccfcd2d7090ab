"""LaTeX tables of a :class:`~polybench.report.model.Report` (``report.tex``), for papers.

One ``table`` environment per table of ``report.md``, with the same cells (pass rates in
%, SEs in percentage points), typeset with ``booktabs``: ``\\input{report.tex}`` after
``\\usepackage{booktabs}``. Every text (run labels, strata, repository names) is escaped.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from polybench.report.model import Report
from polybench.report.render_text import (
    STRATUM_HEADERS,
    defence_cells,
    paired_cells,
    pass_rate_cells,
    pass_rate_columns,
    retrieval_cells,
    rules_cells,
    summary_cells,
    token_summary_cells,
)

_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
}
_PATTERN = re.compile("|".join(re.escape(char) for char in _SPECIAL))
_NUMBER = re.compile(r"^(-|[-+]?[\d,.]+( - [\d,.]+)?)$")


def latex_escape(text: str) -> str:
    """``text`` with every character LaTeX treats specially written as itself."""
    return _PATTERN.sub(lambda found: _SPECIAL[found.group(0)], text)


def _label(text: str) -> str:
    return "tab:polybench-" + re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def latex_table(
    caption: str, header: Sequence[str], rows: Sequence[Sequence[str]], key: str
) -> str:
    """One ``table`` with ``booktabs`` rules; columns of numbers are right-aligned."""
    align = "".join(
        "r" if rows and all(_NUMBER.match(row[i]) for row in rows) else "l"
        for i in range(len(header))
    )
    lines = [
        r"\begin{table}[htbp]",
        r"\centering",
        rf"\caption{{{latex_escape(caption)}}}",
        rf"\label{{{_label(key)}}}",
        r"\small",
        rf"\begin{{tabular}}{{{align}}}",
        r"\toprule",
        " & ".join(latex_escape(cell) for cell in header) + r" \\",
        r"\midrule",
    ]
    for row in rows:
        overall = row[0] == "All"
        cells = [latex_escape(cell) for cell in row]
        if overall:
            lines.append(r"\midrule")
            cells = [rf"\textbf{{{cell}}}" for cell in cells]
        lines.append(" & ".join(cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}", ""]
    return "\n".join(lines)


def to_latex(report: Report) -> str:
    """Every table of the report as LaTeX (see the module docstring)."""
    labels = report.labels
    parts = [
        f"% polybench {report.polybench_version}, {report.generated_at}: pass rates in %, "
        f"bootstrap SEs in percentage points ({report.n_resamples} resamples, seed "
        f"{report.seed}).",
        r"% Needs \usepackage{booktabs}.",
        "",
        latex_table("Runs", *summary_cells(report), "runs"),
        latex_table("Pass rate by resolved rule", *rules_cells(report), "rules"),
        latex_table("Defences: instances per run", *defence_cells(report), "defences"),
    ]
    if report.paired:
        header, rows = paired_cells(report.paired, report.confidence)
        parts.append(latex_table("Paired comparison", header, rows, "paired"))
    for table in report.tables:
        title = f"{table.reference}: {table.title}" if table.reference else table.title
        header = [STRATUM_HEADERS.get(table.key, table.key), *pass_rate_columns(table, labels)]
        rows = pass_rate_cells(table, labels)
        if any(row.group for row in table.rows):
            header = ["axis", *header]
            rows = [[row.group or "", *cells] for row, cells in zip(table.rows, rows, strict=True)]
        parts.append(latex_table(title, header, rows, table.key))
    tokens_header, tokens_rows = token_summary_cells(report)
    if tokens_rows:
        parts.append(latex_table("Token usage per instance", tokens_header, tokens_rows, "tokens"))
    if report.retrieval is not None:
        for level in ("file", "node"):
            header, rows = retrieval_cells(report.retrieval, labels, level)
            title = f"{report.retrieval.reference}: {level} retrieval (%)"
            parts.append(latex_table(title, header, rows, f"retrieval-{level}"))
    return "\n".join(parts)
