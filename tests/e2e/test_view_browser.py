"""The per-instance page of a real run in a real browser: an agent run (a scripted model
that writes hostile text) on a ``mini`` instance, its evaluation, ``polybench view``; the
page renders without errors, loads nothing, runs nothing from the run, and shows the
verdict, the reason and every step."""

from __future__ import annotations

import dataclasses
import io
import json
from pathlib import Path
from typing import Any

import pytest

from polybench.dataset.models import Instance
from polybench.report.render_view import page_name
from tests.agent.fake_chat import Reply, ScriptedChatServer
from tests.agent.scripted_agent import ScriptedAgent
from tests.e2e.conftest import run_cli
from tests.helpers.browser import find_chromium, load_page

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(find_chromium() is None, reason="needs chromium (Debian package)"),
]

INSTANCE = "polybench-mini__logline-58"
HOSTILE = "<img src=x onerror=\"document.title='owned'\"><script>document.title='owned'</script>"
PROBES = {
    "title": "document.title",
    "scripts": "document.querySelectorAll('script').length",
    "images": "document.querySelectorAll('img').length",
    "steps": "document.querySelectorAll('.step').length",
    "status": "document.querySelector('#facts .status').textContent",
    "log_link": "Array.from(document.querySelectorAll('#log a')).map(a => a.href)",
}


class Talkative:
    """The scripted model, saying something hostile with each answer."""

    def __init__(self, agent: ScriptedAgent) -> None:
        self.agent = agent

    def __call__(self, body: dict[str, Any]) -> Reply:
        return dataclasses.replace(self.agent(body), content=f"My plan: {HOSTILE}")


def test_an_instance_page_of_a_real_run_in_chromium(
    mini: dict[str, Instance], shared_cache: Path, tmp_path: Path
) -> None:
    server = ScriptedChatServer([], responder=Talkative(ScriptedAgent(mini, {})))
    server.start()
    try:
        agent = run_cli(
            ["agent", "run", "--dataset", "mini", "--instance-ids", INSTANCE, "--model", "m",
             "--base-url", server.base_url, "--run-id", "a", "--output-dir",
             str(tmp_path / "agent")],
            shared_cache,
            env={"OPENAI_API_KEY": "k"},
        )  # fmt: skip
    finally:
        server.stop()
    assert agent.returncode == 0, agent.stdout + agent.stderr
    predictions = tmp_path / "agent" / "a" / "predictions.jsonl"
    evaluated = run_cli(
        ["eval", "--dataset", "mini", "--predictions", str(predictions), "--run-id", "e",
         "--output-dir", str(tmp_path / "runs"), "--instance-ids", INSTANCE],
        shared_cache,
    )  # fmt: skip
    assert evaluated.returncode == 0, evaluated.stdout + evaluated.stderr
    viewed = run_cli(["view", str(tmp_path / "runs" / "e")], shared_cache)
    assert viewed.returncode == 0, viewed.stdout + viewed.stderr
    pages = tmp_path / "runs" / "e" / "view"
    page = pages / page_name(INSTANCE)

    visit = load_page(page, screenshot=True, probes=PROBES)

    assert visit.errors == []
    assert visit.requests == [page.resolve().as_uri()]  # nothing loaded from the run's text
    assert visit.probes["title"] == f"{INSTANCE} (e)"  # no script of the run ran
    assert visit.probes["scripts"] == 0 and visit.probes["images"] == 0
    assert visit.probes["status"] == "resolved"
    record = json.loads(predictions.read_text())
    assert visit.probes["steps"] == record["api_calls"] == 2
    log = tmp_path / "runs" / "e" / "instances" / INSTANCE / "test_output.txt"
    assert visit.probes["log_link"] == [log.resolve().as_uri()]
    text = visit.text
    assert f"My plan: {HOSTILE}" in text  # shown as text
    assert "Step 1" in text and "Step 2" in text and "git apply" in text
    assert "all 4 F2P and" in text  # the reason
    assert "agent ending\tsubmitted" in text
    assert "tokens\t240 input, 40 cached, 30 output" in text  # two answers of 120/20/15

    assert visit.screenshot is not None and visit.screenshot.startswith(b"\x89PNG")
    image_module = pytest.importorskip("PIL.Image")
    image = image_module.open(io.BytesIO(visit.screenshot)).convert("RGB")
    assert image.size[0] == 1280 and image.size[1] > 900
    colours = image.getcolors(maxcolors=1 << 20)
    assert colours is not None and len(colours) > 50  # not a blank page
    assert any(rgb == (223, 243, 224) for _, rgb in colours)  # the resolved badge
    assert any(rgb == (31, 36, 48) for _, rgb in colours)  # a command block

    index = load_page(pages / "index.html", probes={"links": "document.links.length"})
    assert index.errors == [] and index.probes["links"] == 1
    assert INSTANCE in index.text
