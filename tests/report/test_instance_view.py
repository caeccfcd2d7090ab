"""``polybench view``: a page per instance of a run with its verdict, reason, defences,
tokens, cost, the end of its log (linked to all of it) and the agent's trajectory step by
step; every text escaped; the HTML report lists each run's instances and links to them."""

from __future__ import annotations

import re
from html import unescape
from pathlib import Path
from urllib.parse import unquote

from typer.testing import CliRunner

from polybench.cli.main import app
from polybench.report.output import write_report
from polybench.report.render_view import page_name
from tests.helpers.report_data import sample_report
from tests.helpers.view_data import FAILED, HOSTILE, LOG_LINES, MISSING, SOLVED, write_eval_run

runner = CliRunner()


def _text(html: str) -> str:
    """The page's text as a reader sees it (tags out, entities decoded)."""
    return unescape(re.sub(r"<[^>]+>", " ", html))


def _links(page: Path) -> list[Path]:
    hrefs = re.findall(r'href="([^"]+)"', page.read_text())
    return [(page.parent / unquote(unescape(href))).resolve() for href in hrefs]


def _view(tmp_path: Path, *extra: str) -> tuple[Path, str]:
    run = write_eval_run(tmp_path)
    result = runner.invoke(app, ["view", str(run), *extra], env={"COLUMNS": "300"})
    assert result.exit_code == 0, result.output
    return run / "view", result.output


def test_each_instance_gets_a_page_listed_in_the_index(tmp_path: Path) -> None:
    pages, output = _view(tmp_path)
    assert f"3 instance pages; open {pages / 'index.html'}" in output
    assert sorted(p.name for p in pages.iterdir()) == sorted(
        ["index.html", *(page_name(i) for i in (SOLVED, FAILED, MISSING))]
    )
    index = (pages / "index.html").read_text()
    text = _text(index)
    for instance_id, status in ((SOLVED, "resolved"), (FAILED, "unresolved"),
                                (MISSING, "no_prediction")):  # fmt: skip
        assert re.search(rf"{instance_id}\s+{status}", text), text
    assert all(link.is_file() for link in _links(pages / "index.html"))


def test_an_instance_page_shows_what_happened(tmp_path: Path) -> None:
    pages, _ = _view(tmp_path, "--price-input", "3", "--price-output", "15")
    page = pages / page_name(FAILED)
    text = " ".join(_text(page.read_text()).split())
    assert "status unresolved" in text
    assert f"reason F2P test failed: {HOSTILE}" in text
    assert "defences fired reverted : the tamper policy put paths of the patch back" in text
    assert f"reverted tests/test_calc.py: {HOSTILE}" in text
    assert "agent ending agent_failed" in text
    assert "tests/test_calc.py:None:test_add failed" in text
    # The end of the log, and a link to all of it.
    assert f"the last 80 of {LOG_LINES} lines; open the full log" in text
    assert "log line 121 " in text and "log line 120 " not in text
    links = _links(page)
    assert tmp_path / "runs" / "e" / "instances" / FAILED / "test_output.txt" in links
    assert all(link.is_file() for link in links), links
    # An agent command's output.
    assert "Agent command output" in text and "started" in text

    solved = " ".join(_text((pages / page_name(SOLVED)).read_text()).split())
    assert "tokens 1,200 input, 200 cached, 45 output" in solved
    # 1000 input at 3, 200 cached at the input price, 45 output at 15 (USD per million).
    assert f"cost USD {(1200 * 3 + 45 * 15) / 1e6:.4f}" in solved
    assert "API calls 2" in solved


def test_the_trajectory_is_shown_step_by_step(tmp_path: Path) -> None:
    pages, _ = _view(tmp_path)
    text = " ".join(_text((pages / page_name(SOLVED)).read_text()).split())
    assert "2 steps, 2 answers, 1 failed API attempts, 3.2 s" in text
    assert f"the task given to the model Fix add(). {HOSTILE}" in text
    step1, step2 = text.split("Step 1", 1)[1].split("Step 2", 1)
    assert "API attempt 1 failed: RateLimitError: HTTP 429: slow down; retried after 2 s" in step1
    assert f"model : I will fix it. {HOSTILE}" in step1
    assert f"$ sed -i 's/-/+/' calc.py && echo '{HOSTILE}'" in step1
    assert "exit code 0 in 0.3 s" in step1
    assert "1,000 input (200 cached), 40 output tokens" in step1
    assert "submit : Submitted." in step2
    assert "ended : submitted: the model called submit" in step2


def test_every_text_is_escaped(tmp_path: Path) -> None:
    pages, _ = _view(tmp_path)
    for page in pages.iterdir():
        html = page.read_text()
        # The pages have no script and no image of their own: any would come from the run.
        assert "<script" not in html.lower() and "<img" not in html.lower(), page.name
        assert html.count("<pre") == html.count("</pre>"), page.name


def test_a_folder_that_is_not_a_run_is_refused(tmp_path: Path) -> None:
    result = runner.invoke(app, ["view", str(tmp_path)], env={"COLUMNS": "300"})
    assert result.exit_code == 2 and "is not a polybench run" in result.output


def test_an_agent_run_alone_has_pages_too(tmp_path: Path) -> None:
    write_eval_run(tmp_path)
    agent = tmp_path / "agent" / "r"
    result = runner.invoke(app, ["view", str(agent), "-o", str(tmp_path / "pages")])
    assert result.exit_code == 0, result.output
    text = " ".join(_text((tmp_path / "pages" / page_name(SOLVED)).read_text()).split())
    assert "status submitted" in text and "Step 2" in text


def test_the_html_report_lists_instances_with_links_to_their_pages(tmp_path: Path) -> None:
    report = sample_report(tmp_path / "runs")
    out = tmp_path / "out"
    write_report(report, out)
    html = (out / "report.html").read_text()
    section = html.split('<section id="instances">', 1)[1].split("</section>", 1)[0]
    for label in ("agent-a", "agent-b"):
        assert f"{label}: 10 instances (each links to its page)" in section
    links = _links(out / "report.html")
    pages = [link for link in links if link.parent.parent == (out / "instances").resolve()]
    assert len(pages) == 20 and all(page.is_file() for page in pages)
    text = " ".join(_text(section).split())
    assert "d-1 resolved yes yes" in text  # agent-a: the id, status, both rules
