"""``report.tex``: the report's tables in LaTeX, cells as in report.md, every text escaped;
and the note on equal pass rates with different bootstrap SEs."""

from __future__ import annotations

import re
from pathlib import Path

from polybench.report.build import build_report
from polybench.report.output import write_report
from polybench.report.render_latex import latex_escape
from polybench.report.render_text import pct, pct_se
from polybench.report.runs import attach_dataset, load_run
from tests.helpers.report_data import dataset, sample_report, write_run

HOSTILE = "a_b%c&d#e$f{g}h~i^j\\k"


def _tables(tex: str) -> list[str]:
    return re.findall(r"\\begin\{table\}.*?\\end\{table\}", tex, flags=re.S)


def test_report_tex_holds_every_table_with_the_markdown_cells(tmp_path: Path) -> None:
    report = sample_report(tmp_path / "runs")
    out = tmp_path / "out"
    written = write_report(report, out, html=False, charts=False)
    assert out / "report.tex" in written
    tex = (out / "report.tex").read_text()
    tables = _tables(tex)
    # Runs, rules, defences, paired, every stratified table, tokens, file and node retrieval.
    assert len(tables) == 3 + 1 + len(report.tables) + 1 + 2
    for table in tables:
        assert table.count(r"\begin{tabular}") == table.count(r"\end{tabular}") == 1
        body = table.split(r"\midrule", 1)[1].split(r"\bottomrule", 1)[0]
        header = table.split(r"\toprule", 1)[1].split(r"\midrule", 1)[0]
        columns = header.count(" & ") + 1
        align = re.search(r"\\begin\{tabular\}\{([lr]+)\}", table)
        assert align is not None and len(align.group(1)) == columns
        for line in body.strip().splitlines():
            if line.strip() != r"\midrule":
                assert line.count(" & ") + 1 == columns and line.endswith(r"\\"), line
    language = report.table("language")
    for row in language.rows:
        cell = row.cells["agent-a"]
        expected = f"{cell.n} & {cell.resolved} & {pct(cell.pass_rate)} & {pct_se(cell.se)}"
        assert expected in tex, (row.label, expected)


def test_every_text_is_escaped(tmp_path: Path) -> None:
    instances = {i.instance_id: i for i in dataset()}
    run = load_run(write_run(tmp_path, HOSTILE, {"a-1": "resolved", "a-2": "unresolved"}))
    attach_dataset(run, instances)
    report = build_report([run], instances, n_resamples=50, seed=1)
    write_report(report, tmp_path / "out", html=False, charts=False)
    tex = (tmp_path / "out" / "report.tex").read_text()
    escaped = latex_escape(HOSTILE)
    assert (
        escaped == r"a\_b\%c\&d\#e\$f\{g\}h\textasciitilde{}i\textasciicircum{}j\textbackslash{}k"
    )
    assert escaped in tex and HOSTILE not in tex
    for line in tex.splitlines():
        if not line.startswith("%"):
            assert not re.search(r"(?<!\\)[%#$]", line), line


def test_equal_pass_rates_with_different_ses_get_a_note(tmp_path: Path) -> None:
    instances = {i.instance_id: i for i in dataset()}
    ids = list(instances)
    # The same 3 of 10 resolved, at other positions: the bootstrap SEs differ.
    first = {i: ("resolved" if n < 3 else "unresolved") for n, i in enumerate(ids)}
    second = {i: ("resolved" if n >= 7 else "unresolved") for n, i in enumerate(ids)}
    runs = [load_run(write_run(tmp_path, name, statuses))
            for name, statuses in (("first", first), ("second", second))]  # fmt: skip
    for run in runs:
        attach_dataset(run, instances)
    report = build_report(runs, instances, n_resamples=200, seed=3)
    a, b = report.runs
    assert (a.resolved, a.instances) == (b.resolved, b.instances) == (3, 10)
    assert pct_se(a.se) != pct_se(b.se)
    (note,) = [n for n in report.notes if n.startswith("Equal pass rates")]
    assert "3/10" in note and "seed 3" in note and "14.49" in note  # sqrt(.3 * .7 / 10)
    same = [load_run(write_run(tmp_path / "same", name, first)) for name in ("x", "y")]
    for run in same:
        attach_dataset(run, instances)
    alike = build_report(same, instances, n_resamples=200, seed=3)
    assert not any(n.startswith("Equal pass rates") for n in alike.notes)
