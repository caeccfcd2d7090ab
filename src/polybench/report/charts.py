"""Charts of a report as inline SVG text (matplotlib, no display needed).

Pass rates are grouped bars (one bar per run) with the bootstrap standard error as error
bars; long tables (repositories) get horizontal bars. Retrieval scores are grouped bars in
four panels (file/node x recall/precision). Text stays text in the SVG
(``svg.fonttype: none``), so the numbers can be searched and read by tests.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import Any, cast

import matplotlib
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from polybench.report.model import PassRateTable, PassRow, RetrievalTable

PALETTE = (
    "#4c72b0",
    "#dd8452",
    "#55a868",
    "#c44e52",
    "#8172b3",
    "#937860",
    "#da8bc3",
    "#8c8c8c",
    "#ccb974",
    "#64b5cd",
)
HORIZONTAL_FROM = 11
"""Tables with this many rows (in one panel) or more are drawn with horizontal bars."""
LONG_LABEL = 18
"""Tables with a row label longer than this are drawn with horizontal bars too."""
_RC: dict[str, Any] = {
    "svg.fonttype": "none",
    "text.parse_math": False,  # a "$" in a run label is text, not TeX
    "font.size": 9,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.titlesize": 9,
    "axes.titleweight": "bold",
}
_ERROR_STYLE = {"elinewidth": 0.8, "ecolor": "#333333"}


def _style(salt: str) -> AbstractContextManager[None]:
    """Chart style, and ``salt`` for ids unique among the SVGs of one page."""
    return matplotlib.rc_context(cast(Any, {**_RC, "svg.hashsalt": salt}))


def color(index: int) -> str:
    """The colour of the ``index``-th run (also used by the HTML tables)."""
    return PALETTE[index % len(PALETTE)]


def _svg(figure: Figure) -> str:
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", metadata={"Date": None})
    text = buffer.getvalue()
    return text[text.index("<svg") :]


def _legend(figure: Figure, axes: Axes, labels: Sequence[str]) -> None:
    """One legend of the runs above the panels (none for a single run)."""
    if len(labels) > 1:
        handles, names = axes.get_legend_handles_labels()
        figure.legend(
            handles,
            names,
            loc="outside upper center",
            ncols=min(len(labels), 6),
            frameon=False,
            fontsize=8,
        )


def _common_n(row: PassRow, labels: Sequence[str]) -> int | None:
    sizes = {row.cells[label].n for label in labels}
    return sizes.pop() if len(sizes) == 1 else None


def _tick_label(row: PassRow, labels: Sequence[str], wrap: int = 18) -> str:
    text = row.label if len(row.label) <= wrap else row.label[: wrap - 1] + "\u2026"
    n = _common_n(row, labels)
    return f"{text}\nn={n}" if n is not None else text


def _offsets(count: int) -> tuple[float, list[float]]:
    width = 0.8 / max(1, count)
    return width, [-0.4 + width * (index + 0.5) for index in range(count)]


def _bar_series(
    rows: Sequence[PassRow], label: str, offset: float
) -> tuple[list[float], list[float], list[float]]:
    """Bar positions, pass rates and standard errors (in %) of one run, rows without a
    pass rate left out."""
    shown = [(pos, row.cells[label]) for pos, row in enumerate(rows)]
    shown = [(pos, cell) for pos, cell in shown if cell.pass_rate is not None]
    positions = [pos + offset for pos, _ in shown]
    rates = [100 * (cell.pass_rate or 0.0) for _, cell in shown]
    errors = [100 * (cell.se or 0.0) for _, cell in shown]
    return positions, rates, errors


def _vertical(axes: Axes, rows: Sequence[PassRow], labels: Sequence[str]) -> None:
    width, offsets = _offsets(len(labels))
    rotate = len(labels) > 1
    for index, label in enumerate(labels):
        xs, heights, errors = _bar_series(rows, label, offsets[index])
        axes.bar(
            xs,
            heights,
            width=width * 0.92,
            yerr=errors,
            color=color(index),
            label=label,
            capsize=2,
            error_kw=_ERROR_STYLE,
        )
        for x, h, e in zip(xs, heights, errors, strict=True):
            axes.text(
                x,
                h + e + 1.5,
                f"{h:.1f}",
                ha="center",
                va="bottom",
                fontsize=6.5,
                rotation=90 if rotate else 0,
            )
    axes.set_xticks(range(len(rows)))
    axes.set_xticklabels([_tick_label(row, labels) for row in rows], fontsize=8)
    axes.set_xlim(-0.6, len(rows) - 0.4)
    axes.set_ylim(0, 124 if rotate else 112)
    axes.set_yticks(range(0, 101, 20))
    axes.grid(axis="y", color="#dddddd", linewidth=0.6)
    axes.set_axisbelow(True)


def _horizontal(axes: Axes, rows: Sequence[PassRow], labels: Sequence[str]) -> None:
    height, offsets = _offsets(len(labels))
    for index, label in enumerate(labels):
        ys, widths, errors = _bar_series(rows, label, offsets[index])
        axes.barh(
            ys,
            widths,
            height=height * 0.92,
            xerr=errors,
            color=color(index),
            label=label,
            capsize=1.5,
            error_kw=_ERROR_STYLE,
        )
        for y, w, e in zip(ys, widths, errors, strict=True):
            axes.text(w + e + 1, y, f"{w:.1f}", va="center", fontsize=6.5)
    axes.set_yticks(range(len(rows)))
    names = []
    for row in rows:
        n = _common_n(row, labels)
        names.append(f"{row.label} (n={n})" if n is not None else row.label)
    axes.set_yticklabels(names, fontsize=8)
    axes.set_ylim(len(rows) - 0.5, -0.5)
    axes.set_xlim(0, 112)
    axes.set_xticks(range(0, 101, 20))
    axes.set_xlabel("pass rate (%)")
    axes.grid(axis="x", color="#dddddd", linewidth=0.6)
    axes.set_axisbelow(True)


def pass_rate_chart(table: PassRateTable, labels: Sequence[str], salt: str) -> str:
    """Grouped bars of a pass-rate table (one panel per row group) as SVG text.

    ``salt`` makes the SVG's internal ids unique when several charts share a page.
    """
    with _style(salt):
        return _pass_rate_svg(table, labels)


def _pass_rate_svg(table: PassRateTable, labels: Sequence[str]) -> str:
    groups: dict[str | None, list[PassRow]] = {}
    for row in table.rows:
        groups.setdefault(row.group, []).append(row)
    runs = max(1, len(labels))
    longest = max((len(row.label) for row in table.rows), default=0)
    if len(groups) == 1 and (len(table.rows) >= HORIZONTAL_FROM or longest > LONG_LABEL):
        height = 0.9 + len(table.rows) * (0.18 + 0.12 * runs)
        figure = Figure(figsize=(8.0, min(height, 40.0)), layout="constrained")
        axes = figure.subplots()
        _horizontal(axes, table.rows, labels)
        _legend(figure, axes, labels)
        return _svg(figure)
    widths = [max(2.2, len(rows) * (0.5 + 0.3 * runs)) for rows in groups.values()]
    scale = min(1.0, 14.0 / sum(widths))
    figure = Figure(figsize=(max(4.5, sum(widths) * scale), 3.4), layout="constrained")
    panels = figure.subplots(1, len(groups), squeeze=False, width_ratios=widths)[0]
    for index, (axes, (group, rows)) in enumerate(zip(panels, groups.items(), strict=True)):
        _vertical(axes, rows, labels)
        if group:
            axes.set_title(group.capitalize())
        if index == 0:
            axes.set_ylabel("pass rate (%)")
    _legend(figure, panels[0], labels)
    return _svg(figure)


def retrieval_chart(table: RetrievalTable, labels: Sequence[str], salt: str) -> str:
    """Four panels (file/node x recall/precision) of grouped bars per language, as SVG."""
    with _style(salt):
        return _retrieval_svg(table, labels)


def _retrieval_svg(table: RetrievalTable, labels: Sequence[str]) -> str:
    runs = max(1, len(labels))
    figure = Figure(figsize=(max(8.0, 5.0 + 1.6 * runs), 5.8), layout="constrained")
    grid = figure.subplots(2, 2, sharey=True)
    metrics = (("file", "recall"), ("file", "precision"), ("node", "recall"), ("node", "precision"))
    width, offsets = _offsets(runs)
    rotate = runs > 1
    for axes, (level, metric) in zip(grid.flat, metrics, strict=True):
        for index, label in enumerate(labels):
            xs, heights = [], []
            for position, row in enumerate(table.rows):
                value = getattr(row.cells[label], f"{level}_{metric}")
                if value is None:
                    continue
                xs.append(position + offsets[index])
                heights.append(100 * value)
            axes.bar(xs, heights, width=width * 0.92, color=color(index), label=label)
            for x, h in zip(xs, heights, strict=True):
                axes.text(
                    x,
                    h + 1.5,
                    f"{h:.1f}",
                    ha="center",
                    va="bottom",
                    fontsize=6,
                    rotation=90 if rotate else 0,
                )
        axes.set_title(f"{level.capitalize()} {metric} (%)")
        axes.set_xticks(range(len(table.rows)))
        axes.set_xticklabels([row.label for row in table.rows], fontsize=8)
        axes.set_ylim(0, 124 if rotate else 112)
        axes.set_yticks(range(0, 101, 20))
        axes.grid(axis="y", color="#dddddd", linewidth=0.6)
        axes.set_axisbelow(True)
    _legend(figure, grid[0][0], labels)
    return _svg(figure)
