"""What real agents wrote, recorded by ``tests/e2e/test_real_agents.py`` (run with
``POLYBENCH_RECORD_AGENT_FIXTURES=tests/agent/fixtures/real``), read again in the fast
tier: mini-swe-agent's own output folders imported, and the requests mini-swe-agent and
aider sent replayed through the metering proxy, each against what the scripted endpoint
served in the real run (``served.json``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from polybench.agent.importers import import_runs
from polybench.agent.proxy import MeteringProxy
from polybench.dataset.builtin import load_builtin
from tests.agent.fake_chat import ScriptedChatServer
from tests.agent.real_agents import ScriptedModel, aider_turn, mini_swe_agent_turn

REAL = Path(__file__).parent / "fixtures" / "real"
PLANS = {
    "polybench-mini__timespan-27": "solve",
    "polybench-mini__tinyini-23": "solve",
    "polybench-mini__argkit-97": "solve",
    "polybench-mini__hues-41": "solve",
    "polybench-mini__logline-63": "wrong",
    "polybench-mini__envcfg-18": "nothing",
}


def served(folder: Path) -> dict[str, dict[str, int]]:
    return dict(json.loads((folder / "served.json").read_text()))


def expected_usage(counts: dict[str, int]) -> dict[str, int]:
    return {
        "input_tokens": counts["input"],
        "output_tokens": counts["output"],
        "cached_tokens": counts.get("cached", 0),
    }


def test_mini_swe_agent_batch_output_imports_with_the_tokens_served() -> None:
    folder = REAL / "mini-swe-agent-batch"
    imported = import_runs("mini-swe-agent", folder)
    assert imported.problems == []
    by_id = {p["instance_id"]: p for p in imported.predictions}
    assert set(by_id) == set(PLANS)
    preds = json.loads((folder / "preds.json").read_text())
    for instance_id, counts in served(folder).items():
        prediction = by_id[instance_id]
        assert prediction["usage"] == expected_usage(counts)
        assert prediction["api_calls"] == counts["calls"]
        assert prediction["exit_status"] == "Submitted"
        assert prediction["model_patch"] == preds[instance_id]["model_patch"]
    assert by_id["polybench-mini__envcfg-18"]["model_patch"] == ""
    assert by_id["polybench-mini__timespan-27"]["model_patch"].startswith("diff --git a/src/")


def test_trajectories_mini_swe_agent_wrote_in_polybench_sandboxes_import_too() -> None:
    folder = REAL / "mini-swe-agent-agent-run"
    imported = import_runs("mini-swe-agent", folder)
    assert [p.message for p in imported.problems] == [
        "no predictions file; patches come from the trajectories"
    ]
    by_id = {p["instance_id"]: p for p in imported.predictions}
    for instance_id, counts in served(folder).items():
        assert by_id[instance_id]["usage"] == expected_usage(counts)
        assert by_id[instance_id]["api_calls"] == counts["calls"]


@pytest.mark.parametrize(
    ("agent", "speak"), [("mini-swe-agent", mini_swe_agent_turn), ("aider-chat", aider_turn)]
)
def test_the_requests_a_real_agent_sent_pass_the_proxy_metered(agent: str, speak: Any) -> None:
    folder = REAL / f"{agent}-agent-run"
    recorded = [json.loads(line) for line in (folder / "requests.jsonl").read_text().splitlines()]
    mini = {i.instance_id: i for i in load_builtin("mini")}
    model = ScriptedModel(mini, PLANS, speak)
    server = ScriptedChatServer([], responder=model)
    server.start()
    counted: dict[str, Any] = {}
    try:
        with MeteringProxy(server.base_url, "sk-replay") as proxy, httpx.Client() as client:
            tokens = {instance_id: proxy.register() for instance_id in PLANS}
            for request in recorded:
                instance, _ = model.instance_of(request["body"])
                suffix = request["path"].removeprefix("/v1")
                answer = client.post(
                    proxy.base_url_for(tokens[instance.instance_id]) + suffix,
                    json=request["body"],
                    headers={"Authorization": f"Bearer {tokens[instance.instance_id]}"},
                )
                assert answer.status_code == 200, answer.text
            counted = {i: proxy.usage_for(t) for i, t in tokens.items()}
    finally:
        server.stop()
    assert set(server.authorizations) == {"Bearer sk-replay"}
    for instance_id, counts in served(folder).items():
        usage = counted[instance_id]
        assert (usage.calls, usage.input_tokens, usage.output_tokens, usage.cached_tokens) == (
            counts["calls"],
            counts["input"],
            counts["output"],
            counts.get("cached", 0),
        )
        assert usage.failed_calls == usage.unknown_usage_calls == 0
