"""Real third-party agents, pinned and installed in venvs of their own, run through
``polybench agent run --agent-command`` on ``mini`` instances of every language, on the
local and the Docker backend, against a scripted OpenAI-compatible endpoint: the patches
the harness takes, the tokens it recorded against what the endpoint served, and ``eval``
of the predictions. Then mini-swe-agent run its own way (its batch runner, in containers
of polybench's instance images), its output folder imported and compared with what the
metering proxy counted.

``POLYBENCH_RECORD_AGENT_FIXTURES=DIR`` copies the folders the agents wrote, with what
the endpoint served, into ``DIR`` (the fast tier's ``tests/agent/fixtures/real``).
"""

# Fixtures imported from tests.helpers.docker_fixtures are used as test arguments.
# ruff: noqa: F811

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from polybench.agent.importers import import_runs
from polybench.agent.proxy import MeteringProxy
from polybench.dataset.builtin import repo_dir_for
from polybench.dataset.models import Instance, Language
from polybench.environments.images.manager import ImageManager
from polybench.environments.images.settings import ImageSettings
from polybench.environments.repos import RepoStore
from polybench.patches.sections import split_sections
from tests.agent.fake_chat import ScriptedChatServer
from tests.agent.real_agents import (
    NOTHING,
    SOLVE,
    WRONG,
    ScriptedModel,
    agent_venv,
    aider_turn,
    mini_swe_agent_turn,
    venv_root,
    wrong_change,
)
from tests.e2e.conftest import read_report, run_cli
from tests.helpers.docker_fixtures import docker_bases, docker_settings  # noqa: F401

pytestmark = [pytest.mark.slow]

PLANS = {
    "polybench-mini__timespan-27": SOLVE,  # Python
    "polybench-mini__tinyini-23": SOLVE,  # Java
    "polybench-mini__argkit-97": SOLVE,  # TypeScript
    "polybench-mini__hues-41": SOLVE,  # JavaScript
    "polybench-mini__logline-63": WRONG,  # Python
    "polybench-mini__envcfg-18": NOTHING,  # JavaScript
}
REAL_KEY = "sk-real-key-of-the-real-agents-test"

# The command lines the README documents, with the venv's folder as {venv}.
COMMANDS = {
    "mini-swe-agent": (
        "MSWEA_CONFIGURED=true MSWEA_COST_TRACKING=ignore_errors "
        "LITELLM_LOCAL_MODEL_COST_MAP=True {venv}/bin/mini --yolo --exit-immediately "
        '--model "openai/$POLYBENCH_MODEL" --task "$(cat "$POLYBENCH_PROBLEM_FILE")" '
        '--output "$POLYBENCH_OUTPUT_DIR/$POLYBENCH_INSTANCE_ID.traj.json"'
    ),
    "aider-chat": (
        "LITELLM_LOCAL_MODEL_COST_MAP=True {venv}/bin/aider "
        '--model "openai/$POLYBENCH_MODEL" --openai-api-base "$OPENAI_BASE_URL" '
        '--edit-format udiff --message-file "$POLYBENCH_PROBLEM_FILE" --yes-always '
        "--no-auto-commits --no-gitignore --no-check-update --no-analytics "
        "--no-show-release-notes --no-show-model-warnings --no-pretty --no-stream "
        '--chat-history-file "$POLYBENCH_OUTPUT_DIR/chat.md" '
        '--llm-history-file "$POLYBENCH_OUTPUT_DIR/llm.log" '
        '--input-history-file "$POLYBENCH_OUTPUT_DIR/input.history"; '
        "status=$?; rm -rf .aider.tags.cache.v4; exit $status"
    ),
}
SPEAKERS = {"mini-swe-agent": mini_swe_agent_turn, "aider-chat": aider_turn}
OWN_RECORD = {"mini-swe-agent": "{id}.traj.json", "aider-chat": "chat.md"}


@pytest.fixture(scope="session")
def venvs() -> Path:
    """Where the pinned agents are installed (CI installs them ahead: ``.ci/run``). Not
    under ``/tmp``: sandboxes have a ``/tmp`` of their own."""
    root = venv_root()
    root.mkdir(parents=True, exist_ok=True)
    return root


def host_libraries(venv: Path, folder: Path) -> Path:
    """A folder holding copies of the libraries the venv's ``_sqlite3`` module links to,
    outside the C library (``ldd`` says which)."""
    module = subprocess.run(
        [str(venv / "bin" / "python"), "-c", "import _sqlite3; print(_sqlite3.__file__)"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    linked = subprocess.run(["ldd", module], capture_output=True, text=True, check=True).stdout
    folder.mkdir(parents=True, exist_ok=True)
    for line in linked.splitlines():
        name, _, rest = line.strip().partition(" => ")
        if name.startswith("libsqlite3") and rest.startswith("/"):
            shutil.copy(rest.split()[0], folder / name)
    return folder


def changes(patch: str) -> dict[str, tuple[list[str], list[str]]]:
    """Each file's removed and added lines (what a patch does, whatever tool wrote it)."""
    found: dict[str, tuple[list[str], list[str]]] = {}
    for section in split_sections(patch):
        lines = section.text.splitlines()
        body = lines[next(i for i, line in enumerate(lines) if line.startswith("@@")) :]
        found[section.paths[-1]] = (
            [line[1:] for line in body if line.startswith("-")],
            [line[1:] for line in body if line.startswith("+")],
        )
    return found


def record_fixture(
    name: str, source: Path, model: ScriptedModel, server: ScriptedChatServer
) -> None:
    """Copy an agent's folder, what the endpoint served and the requests it got."""
    target_root = os.environ.get("POLYBENCH_RECORD_AGENT_FIXTURES")
    if not target_root:
        return
    target = Path(target_root) / name
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(source, target)
    served = {k: dict(v) for k, v in sorted(model.served.items())}
    (target / "served.json").write_text(json.dumps(served, indent=2) + "\n")
    pairs = zip(server.paths, server.requests, strict=True)
    requests = [{"path": path, "body": body} for path, body in pairs]
    (target / "requests.jsonl").write_text("".join(json.dumps(r) + "\n" for r in requests))


def summarise(
    title: str, records: dict[str, Any], served: dict[str, Counter[str]], table: str
) -> None:
    """Append what a run recorded against what was served, and its eval table, to
    ``$POLYBENCH_REAL_AGENTS_REPORT`` when set."""
    target = os.environ.get("POLYBENCH_REAL_AGENTS_REPORT")
    if not target:
        return
    lines = [f"## {title}", ""]
    for instance_id, record in sorted(records.items()):
        got, was = record["usage"], served[instance_id]
        lines.append(
            f"{instance_id:32} {PLANS[instance_id]:8} {record.get('exit_status')!s:10} "
            f"calls {record['api_calls']}/{was['calls']} in {got['input_tokens']}/{was['input']} "
            f"out {got['output_tokens']}/{was['output']} cached "
            f"{got.get('cached_tokens', 0)}/{was['cached']} "
            f"patch {len(record['model_patch'].splitlines())} lines"
        )
    with open(target, "a", encoding="utf-8") as report:
        report.write("\n".join(lines) + "\n\n" + table + "\n")


def backend_options(backend: str, request: pytest.FixtureRequest) -> list[str]:
    if backend == "local":
        return []
    request.getfixturevalue("docker_bases")
    return docker_options(request.getfixturevalue("docker_settings"))


def docker_options(settings: ImageSettings) -> list[str]:
    options = ["--backend", "docker", "--backend-option", f"base_source={settings.base_source}"]
    if settings.trust_host_ca:
        options += ["--backend-option", "trust_host_ca=true"]
    return options


@pytest.mark.parametrize("backend", ["local", pytest.param("docker", marks=pytest.mark.docker)])
@pytest.mark.parametrize("agent", ["mini-swe-agent", "aider-chat"])
def test_a_real_agent_runs_metered_and_its_patches_grade_as_planned(
    agent: str,
    backend: str,
    mini: dict[str, Instance],
    venvs: Path,
    shared_cache: Path,
    tmp_path: Path,
    request: pytest.FixtureRequest,
) -> None:
    assert {mini[i].language for i in PLANS} == set(Language)
    options = backend_options(backend, request)
    venv = agent_venv(agent, venvs)
    command = COMMANDS[agent].format(venv=venv)
    mounts = ["--agent-mount", str(venv)]
    if agent == "aider-chat" and backend == "docker":
        # Some images lack a library this machine's Python loads for aider (sqlite3).
        libraries = host_libraries(venv, venvs / "host-libs")
        command = f"LD_LIBRARY_PATH={libraries} {command}"
        mounts += ["--agent-mount", str(libraries)]
    model = ScriptedModel(mini, PLANS, SPEAKERS[agent])
    server = ScriptedChatServer([], responder=model)
    server.start()
    try:
        done = run_cli(
            ["agent", "run", "--dataset", "mini", "--model", "scripted", "--base-url",
             server.base_url, "--run-id", "real", "--output-dir", str(tmp_path / "agent"),
             "--instance-ids", ",".join(PLANS), "--workers", "2", "--wall-clock", "900",
             "--agent-command", command, *mounts, *options],
            shared_cache,
            timeout=3600,
            env={"OPENAI_API_KEY": REAL_KEY},
        )  # fmt: skip
    finally:
        server.stop()
    assert done.returncode == 0, done.stdout + done.stderr
    run_dir = tmp_path / "agent" / "real"
    records = {
        r["instance_id"]: r
        for r in map(json.loads, (run_dir / "predictions.jsonl").read_text().splitlines())
    }
    assert set(records) == set(PLANS)
    for instance_id, record in records.items():
        log = (run_dir / "trajectories" / f"{instance_id}.agent.log").read_text()
        assert record["exit_status"] == "submitted", (record["reason"], log[-3000:])
        assert REAL_KEY not in log
        # What the harness recorded is what the endpoint served to that instance.
        served = model.served[instance_id]
        assert record["api_calls"] == served["calls"] >= 1
        assert record["usage"] == {
            "input_tokens": served["input"],
            "output_tokens": served["output"],
            **({"cached_tokens": served["cached"]} if served["cached"] else {}),
        }
        assert record["proxy_calls"] == {"failed": 0, "without_usage": 0}
        # The patch is the working tree's, as the harness takes it.
        plan = PLANS[instance_id]
        if plan == SOLVE:
            assert changes(record["model_patch"]) == changes(mini[instance_id].patch)
        elif plan == WRONG:
            path, comment = wrong_change(mini[instance_id])
            assert changes(record["model_patch"]) == {path: ([], [comment])}
        else:
            assert record["model_patch"] == ""
        assert record["flagged_paths"] == []
        own = OWN_RECORD[agent].format(id=instance_id)
        assert (run_dir / "trajectories" / f"{instance_id}.output" / own).is_file()
    assert set(server.authorizations) == {f"Bearer {REAL_KEY}"}
    run = json.loads((run_dir / "run.json").read_text())
    assert run["network"].startswith("none: the command reaches only the metering proxy")

    if agent == "mini-swe-agent":
        # Its own trajectories, imported, tell the same tokens and patches.
        imported = import_runs("mini-swe-agent", run_dir / "trajectories")
        assert [p.message for p in imported.problems] == [
            "no predictions file; patches come from the trajectories"
        ]
        for prediction in imported.predictions:
            record = records[prediction["instance_id"]]
            assert prediction["usage"] == {"cached_tokens": 0, **record["usage"]}
            assert prediction["api_calls"] == record["api_calls"]
            assert changes(prediction["model_patch"]) == changes(record["model_patch"])
    if backend == "local":
        record_fixture(f"{agent}-agent-run", run_dir / "trajectories", model, server)

    evaluated = run_cli(
        ["eval", "--dataset", "mini", "--predictions", str(run_dir / "predictions.jsonl"),
         "--run-id", "graded", "--output-dir", str(tmp_path / "runs"), *options],
        shared_cache,
        timeout=3600,
    )  # fmt: skip
    assert evaluated.returncode == 0, evaluated.stdout + evaluated.stderr
    summarise(f"{agent} on {backend}", records, model.served, evaluated.stdout)
    report = read_report(tmp_path / "runs" / "graded")
    assert sorted(report["resolved_ids"]) == sorted(i for i, p in PLANS.items() if p == SOLVE)
    assert report["unresolved_ids"] == [i for i, p in PLANS.items() if p == WRONG]
    assert report["empty_patch_ids"] == [i for i, p in PLANS.items() if p == NOTHING]


@pytest.mark.docker
def test_mini_swe_agent_run_its_own_way_imports_as_the_proxy_counted(
    mini: dict[str, Instance],
    docker_bases: object,
    docker_settings: ImageSettings,
    venvs: Path,
    cache_env: Path,
    tmp_path: Path,
) -> None:
    shared_cache = cache_env
    # Its batch runner, on polybench's instance images (the repository at /testbed).
    repos = RepoStore(repo_dir=repo_dir_for("mini", None), cache_dir=shared_cache / "repos")
    images = ImageManager(repos, docker_settings)
    rows = [
        {
            "instance_id": i,
            "problem_statement": mini[i].problem_statement,
            "image_name": images.ensure_instance(mini[i]).tag,
        }
        for i in PLANS
    ]
    dataset = tmp_path / "dataset"
    dataset.mkdir()
    (dataset / "test.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    venv = agent_venv("mini-swe-agent", venvs)
    model = ScriptedModel(mini, PLANS, mini_swe_agent_turn)
    server = ScriptedChatServer([], responder=model)
    server.start()
    output = tmp_path / "mini-swe-agent"
    try:
        with MeteringProxy(server.base_url, REAL_KEY) as proxy:
            token = proxy.register()
            done = subprocess.run(
                [str(venv / "bin" / "mini-extra"), "swebench", "--subset", str(dataset),
                 "--split", "test", "--output", str(output), "--workers", "2",
                 "--model", "openai/scripted"],
                env=_mini_env(tmp_path, proxy.base_url_for(token), token),
                capture_output=True,
                text=True,
                timeout=3600,
                check=False,
            )  # fmt: skip
            counted = proxy.usage_for(token)
    finally:
        server.stop()
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    imported = import_runs("mini-swe-agent", output)
    assert imported.problems == []
    by_id = {p["instance_id"]: p for p in imported.predictions}
    assert set(by_id) == set(PLANS)
    for instance_id, prediction in by_id.items():
        served = model.served[instance_id]
        assert prediction["usage"] == {
            "input_tokens": served["input"],
            "output_tokens": served["output"],
            "cached_tokens": served["cached"],
        }
        assert prediction["api_calls"] == served["calls"]
        assert prediction["exit_status"] == "Submitted"
        assert prediction["model_name_or_path"] == "openai/scripted"
    totals = Counter[str]()
    for prediction in by_id.values():
        totals.update(prediction["usage"])
    assert (counted.calls, counted.input_tokens, counted.output_tokens, counted.cached_tokens) == (
        sum(p["api_calls"] for p in by_id.values()),
        totals["input_tokens"],
        totals["output_tokens"],
        totals["cached_tokens"],
    )
    record_fixture("mini-swe-agent-batch", output, model, server)

    predictions = tmp_path / "imported.jsonl"
    predictions.write_text("".join(json.dumps(p) + "\n" for p in imported.predictions))
    options = [
        "--backend",
        "docker",
        "--backend-option",
        f"base_source={docker_settings.base_source}",
    ]
    if docker_settings.trust_host_ca:
        options += ["--backend-option", "trust_host_ca=true"]
    evaluated = run_cli(
        ["eval", "--dataset", "mini", "--predictions", str(predictions), "--run-id", "imported",
         "--output-dir", str(tmp_path / "runs"), *options],
        shared_cache,
        timeout=3600,
    )  # fmt: skip
    assert evaluated.returncode == 0, evaluated.stdout + evaluated.stderr
    summarise("mini-swe-agent batch output, imported", by_id, model.served, evaluated.stdout)
    report = read_report(tmp_path / "runs" / "imported")
    assert sorted(report["resolved_ids"]) == sorted(i for i, p in PLANS.items() if p == SOLVE)
    assert report["unresolved_ids"] == [i for i, p in PLANS.items() if p == WRONG]
    assert report["empty_patch_ids"] == [i for i, p in PLANS.items() if p == NOTHING]


def _mini_env(tmp_path: Path, base_url: str, key: str) -> dict[str, Any]:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    return {
        **os.environ,
        "HOME": str(home),
        "OPENAI_BASE_URL": base_url,
        "OPENAI_API_KEY": key,
        "MSWEA_CONFIGURED": "true",
        "MSWEA_COST_TRACKING": "ignore_errors",
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "HF_DATASETS_OFFLINE": "1",
        "HF_HUB_OFFLINE": "1",
    }
