"""HTML pages of a run's instances: an index, and one page per instance with its verdict,
reason, defences, tokens, cost, the end of its test log and the agent's trajectory step by
step. Pages are self-contained (no script, nothing loaded from anywhere); every text from
the run folder is escaped, and links to the run's files are relative."""

from __future__ import annotations

import hashlib
import os
import re
from html import escape
from pathlib import Path
from urllib.parse import quote

from polybench.agent.trajectory import StepRecord, ToolCallRecord, Trajectory
from polybench.report.defences import DEFENCES
from polybench.report.instance_view import InstanceView, LogExcerpt, RunView

INDEX = "index.html"
FOLDED_CHARS = 2_000
"""Longer texts (tool outputs, messages) are folded, open on a click."""
REASON_CHARS = 160
FOLDED_TESTS = 20
"""A longer list of tests is folded."""

DEFENCE_MEANINGS = {
    "reverted": "the tamper policy put paths of the patch back (tests, tool configuration)",
    "refused": "paths the policy never writes were refused",
    "canaries_tampered": "a planted canary test did not end as planted",
    "distrusted": "a test report could not be trusted as it stood",
    "truncated": "the test output was cut",
    "flagged": "a change reaches into test-framework internals (for review)",
    "detected": "tampering was proven: not resolved under any rule",
}

_CSS = """
body { font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 0;
  color: #222; background: #fafafa; }
main { max-width: 1180px; margin: 0 auto; padding: 16px 24px 48px; }
h1 { font-size: 1.5em; margin: 0.4em 0 0.2em; word-break: break-all; }
h2 { font-size: 1.15em; margin: 0.6em 0 0.4em; border-bottom: 1px solid #ddd; }
h3 { font-size: 1.0em; margin: 0.8em 0 0.3em; }
section { background: #fff; border: 1px solid #e4e4e4; border-radius: 6px;
  padding: 4px 16px 12px; margin-top: 14px; }
table { border-collapse: collapse; font-size: 0.88em; margin: 6px 0; }
th, td { padding: 3px 8px; border-bottom: 1px solid #eee; text-align: left;
  vertical-align: top; }
th { background: #f3f3f3; font-weight: 600; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
pre { background: #f6f6f6; border: 1px solid #e6e6e6; border-radius: 4px; padding: 6px 8px;
  white-space: pre-wrap; word-break: break-word; font-size: 0.85em; margin: 4px 0; }
pre.cmd { background: #1f2430; color: #e8e8e8; }
.status { font-weight: 600; padding: 1px 6px; border-radius: 4px; background: #eee; }
.status-resolved, .status-submitted, .status-passed { background: #dff3e0; color: #17612a; }
.status-unresolved, .status-agent_failed, .status-failed, .status-errored, .status-missing {
  background: #fde2e1; color: #8a1c17; }
.status-error, .status-api_error, .status-harness_error { background: #fff0d6; color: #7a4b00; }
.muted { color: #666; font-size: 0.9em; }
.step { border-left: 4px solid #c9d6ee; padding-left: 10px; margin: 12px 0; }
nav a { color: #2a5db0; text-decoration: none; margin-right: 12px; }
"""


def page_name(instance_id: str) -> str:
    """The file name of an instance's page: the id itself when it is a plain name, else
    its plain characters and a short hash (two ids never share a page)."""
    plain = re.sub(r"[^A-Za-z0-9._-]", "_", instance_id).lstrip(".") or "instance"
    if plain == instance_id:
        return f"{plain}.html"
    digest = hashlib.sha256(instance_id.encode("utf-8", "surrogatepass")).hexdigest()[:10]
    return f"{plain[:80]}-{digest}.html"


def _href(target: Path, page_dir: Path) -> str:
    relative = os.path.relpath(target, page_dir)
    return escape(quote(relative.replace(os.sep, "/")), quote=True)


def _page(title: str, body: str) -> str:
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)}</title><style>{_CSS}</style></head>"
        f"<body><main>{body}</main></body></html>\n"
    )


def _status(value: str | None) -> str:
    if value is None:
        return "-"
    css = re.sub(r"[^a-z_]", "", value.lower())
    return f'<span class="status status-{css}">{escape(value)}</span>'


def _first_line(text: str, limit: int = REASON_CHARS) -> str:
    line = (text.strip().splitlines() or [""])[0]
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _count(value: float | None) -> str:
    return "-" if value is None else f"{value:,.0f}"


def _pre(text: str, css: str = "") -> str:
    klass = f' class="{css}"' if css else ""
    block = f"<pre{klass}>{escape(text)}</pre>"
    if len(text) <= FOLDED_CHARS:
        return block
    lines = text.count("\n") + 1
    return f"<details><summary>{lines} lines, {len(text):,} characters</summary>{block}</details>"


# ---- the index ------------------------------------------------------------------------------


def index_page(run: RunView, page_dir: Path) -> str:
    """The run's instances in a table, each linking to its page."""
    rows = []
    for item in run.instances:
        usage = item.usage
        rows.append(
            "<tr>"
            f'<td><a href="{_href(page_dir / page_name(item.instance_id), page_dir)}">'
            f"{escape(item.instance_id)}</a></td>"
            f"<td>{_status(item.status)}</td>"
            f"<td>{escape(_first_line(item.reason))}</td>"
            f"<td>{escape(', '.join(DEFENCES[d] for d in item.defences))}</td>"
            f"<td>{_status(item.agent_status)}</td>"
            f'<td class="num">{_count(item.api_calls)}</td>'
            f'<td class="num">{_count(usage.input if usage else None)}</td>'
            f'<td class="num">{_count(usage.output if usage else None)}</td>'
            f'<td class="num">{"-" if item.cost is None else f"{item.cost:.4f}"}</td>'
            "</tr>"
        )
    head = "".join(
        f"<th>{name}</th>"
        for name in ("instance", "status", "reason", "defences fired", "agent ending",
                     "API calls", "input tokens", "output tokens", "cost (USD)")
    )  # fmt: skip
    notes = "".join(f"<li>{escape(note)}</li>" for note in run.notes)
    what = "evaluation" if run.kind == "eval" else "agent run"
    body = (
        f"<h1>{escape(run.run_id)}: {len(run.instances)} instances</h1>"
        f'<p class="muted">{what} in {escape(str(run.run_dir))}'
        + (f"; trajectories from {escape(str(run.agent_dir))}" if run.agent_dir else "")
        + "</p>"
        + (f"<ul>{notes}</ul>" if notes else "")
        + f'<section><table id="instances"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></section>"
    )
    return _page(f"polybench {run.run_id}: instances", body)


# ---- one instance -----------------------------------------------------------------------------


def _facts(item: InstanceView) -> str:
    rows: list[tuple[str, str]] = [("status", _status(item.status))]
    if item.reason:
        rows.append(("reason", _pre(item.reason)))
    if item.error_kind:
        rows.append(("error kind", escape(item.error_kind)))
    if item.language:
        rows.append(("language", escape(item.language)))
    for rule, value in (("strict", item.strict_resolved), ("official", item.official_resolved)):
        if value is not None:
            rows.append((f"{rule} rule", "resolved" if value else "not resolved"))
    fired = "".join(
        f"<li><b>{escape(DEFENCES[key])}</b>: {escape(DEFENCE_MEANINGS[key])}</li>"
        for key in item.defences
    )
    details = "".join(f"<li>{escape(line)}</li>" for line in item.defence_details)
    if details:
        fired += f'<li>what they did:<ul class="muted">{details}</ul></li>'
    rows.append(("defences fired", f"<ul>{fired}</ul>" if fired else "none"))
    if item.agent_status is not None:
        rows.append(("agent ending", _status(item.agent_status)))
        if item.agent_reason and item.agent_reason != item.reason:
            rows.append(("agent reason", _pre(item.agent_reason)))
    if item.api_calls is not None:
        rows.append(("API calls", str(item.api_calls)))
    if item.usage is not None:
        cached = "" if item.usage.cached is None else f", {_count(item.usage.cached)} cached"
        rows.append(
            ("tokens", f"{_count(item.usage.input)} input{cached}, {_count(item.usage.output)} "
             "output")
        )  # fmt: skip
    if item.usage is None:
        cost = "- (no token usage recorded)"
    else:
        cost = (
            "- (give --price-input and --price-output)"
            if item.cost is None
            else (f"USD {item.cost:.4f}")
        )
    rows.append(("cost", escape(cost)))
    body = "".join(f"<tr><th>{escape(name)}</th><td>{value}</td></tr>" for name, value in rows)
    return f'<table id="facts">{body}</table>'


def _tests(item: InstanceView) -> str:
    rows = [
        f"<tr><td>{escape(kind)}</td><td>{escape(test)}</td><td>{_status(outcome)}</td></tr>"
        for kind in ("F2P", "P2P")
        for test, outcome in item.tests.get(kind, {}).items()
    ]
    if not rows:
        return ""
    outcomes = [o for kind in ("F2P", "P2P") for o in item.tests.get(kind, {}).values()]
    passed = sum(1 for outcome in outcomes if outcome in ("passed", "xfail"))
    table = (
        "<table><thead><tr><th>list</th><th>test</th><th>outcome</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table>"
    )
    if len(rows) > FOLDED_TESTS:
        table = f"<details><summary>all {len(rows)} tests</summary>{table}</details>"
    return (
        f'<section id="tests"><h2>Listed tests</h2><p class="muted">{passed} of '
        f"{len(outcomes)} passed</p>{table}</section>"
    )


def _files(item: InstanceView, page_dir: Path) -> str:
    if not item.files:
        return ""
    links = "".join(
        f'<li><a href="{_href(path, page_dir)}">{escape(name)}</a> '
        f'<span class="muted">{escape(path.name)}</span></li>'
        for name, path in item.files.items()
    )
    return f"<section><h2>Files</h2><ul>{links}</ul></section>"


def _excerpt(title: str, excerpt: LogExcerpt | None, page_dir: Path, anchor: str) -> str:
    if excerpt is None:
        return ""
    shown = (
        f"the last {excerpt.shown_lines} of {excerpt.total_lines} lines"
        if excerpt.shown_lines < excerpt.total_lines
        else f"all {excerpt.total_lines} lines"
    )
    link = f'<a href="{_href(excerpt.path, page_dir)}">the full log</a>'
    return (
        f'<section id="{anchor}"><h2>{escape(title)}</h2>'
        f'<p class="muted">{shown}; open {link}</p>'
        f"<pre>{escape(excerpt.text)}</pre></section>"
    )


def _tool_call(call: ToolCallRecord) -> str:
    if call.kind == "submit":
        return f"<p><b>submit</b>: {escape(call.output or 'submitted')}</p>"
    if call.kind in ("malformed", "skipped"):
        arguments = _pre(call.arguments) if call.arguments else ""
        return (
            f"<p><b>{escape(call.kind)} call to {escape(call.name)}</b>: "
            f"{escape(call.error or '')}</p>{arguments}"
        )
    timing = "" if call.duration is None else f" in {call.duration:.1f} s"
    ending = (
        f"timed out after {call.timeout:g} s"
        if call.timed_out and call.timeout is not None
        else f"exit code {call.exit_code}"
    )
    cut = f", {call.cut_chars:,} characters cut from the middle" if call.cut_chars else ""
    return (
        f"{_pre('$ ' + (call.command or ''), 'cmd')}"
        f'<p class="muted">{escape(ending)}{escape(timing)}{escape(cut)}</p>'
        f"{_pre(call.output or '')}"
    )


def _step(step: StepRecord) -> str:
    parts = [f"<h3>Step {step.step}</h3>"]
    when = f"at {step.started:.1f} s"
    if step.duration is not None:
        when += f", the answer took {step.duration:.1f} s"
    parts.append(f'<p class="muted">{escape(when)}</p>')
    for failed in step.failed_attempts:
        wait = "" if failed.wait_seconds is None else f"; retried after {failed.wait_seconds:g} s"
        parts.append(
            f"<p>API attempt {failed.attempt} failed: {escape(failed.message)}{escape(wait)}</p>"
        )
    response = step.response
    if response is not None:
        if response.content:
            parts.append("<p><b>model</b>:</p>" + _pre(response.content))
        if response.usage is not None:
            usage = response.usage
            parts.append(
                f'<p class="muted">{usage.input_tokens:,} input ({usage.cached_tokens:,} '
                f"cached), {usage.output_tokens:,} output tokens</p>"
            )
    parts += [_tool_call(call) for call in step.tool_calls]
    if step.nudged:
        parts.append('<p class="muted">no tool call: the model was asked to go on</p>')
    return f'<div class="step">{"".join(parts)}</div>'


def _trajectory(trajectory: Trajectory) -> str:
    task = ""
    first = trajectory.steps[0].request.new_messages if trajectory.steps else []
    for message in first:
        content = message.get("content")
        if message.get("role") == "user" and isinstance(content, str):
            task = (
                "<details><summary>the task given to the model</summary>"
                f"<pre>{escape(content)}</pre></details>"
            )
            break
    ending = escape(f"{trajectory.exit_status or 'unfinished'}: {trajectory.reason}")
    summary = (
        f"{len(trajectory.steps)} steps, {trajectory.responses} answers, "
        f"{trajectory.api_errors} failed API attempts, {trajectory.wall_seconds:.1f} s"
    )
    steps = "".join(_step(step) for step in trajectory.steps)
    return (
        f'<section id="trajectory"><h2>Trajectory</h2><p class="muted">{escape(summary)}</p>'
        f"{task}{steps}<p><b>ended</b>: {ending}</p></section>"
    )


def instance_page(item: InstanceView, run: RunView, page_dir: Path) -> str:
    """One instance's page."""
    index = f'<nav><a href="{_href(page_dir / INDEX, page_dir)}">all instances</a></nav>'
    notes = "".join(f"<li>{escape(note)}</li>" for note in item.notes)
    body = (
        f"{index}<h1>{escape(item.instance_id)}</h1>"
        f'<p class="muted">run {escape(run.run_id)}</p>'
        + (f"<ul>{notes}</ul>" if notes else "")
        + f"<section><h2>Outcome</h2>{_facts(item)}</section>"
        + _excerpt("Test log", item.log, page_dir, "log")
        + _excerpt("Agent command output", item.agent_log, page_dir, "agent-log")
        + (_trajectory(item.trajectory) if item.trajectory is not None else "")
        + _tests(item)
        + _files(item, page_dir)
    )
    return _page(f"{item.instance_id} ({run.run_id})", body)


def render_run(run: RunView, page_dir: Path) -> dict[str, str]:
    """Every page of ``run`` by file name, for a folder ``page_dir``."""
    pages = {INDEX: index_page(run, page_dir)}
    for item in run.instances:
        pages[page_name(item.instance_id)] = instance_page(item, run, page_dir)
    return pages
