"""Without bubblewrap, untrusted code is refused before anything runs, unless the user
asks for no isolation; the dataset's own patches run and say so first."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.e2e.conftest import run_cli

pytestmark = pytest.mark.slow
INSTANCE = "polybench-mini__timespan-34"
WRONG = """diff --git a/NOTES.md b/NOTES.md
new file mode 100644
--- /dev/null
+++ b/NOTES.md
@@ -0,0 +1 @@
+not a fix
"""


@pytest.fixture
def no_bwrap(tmp_path: Path) -> dict[str, str]:
    """A PATH with every program of this machine's PATH but ``bwrap``."""
    folder = tmp_path / "bin"
    folder.mkdir()
    for entry in os.environ.get("PATH", "").split(os.pathsep):
        if not os.path.isdir(entry):
            continue
        for name in os.listdir(entry):
            target = Path(entry) / name
            if name != "bwrap" and not (folder / name).exists() and os.access(target, os.X_OK):
                (folder / name).symlink_to(target)
    return {"PATH": str(folder)}


def test_predictions_are_refused_without_isolation(
    no_bwrap: dict[str, str], shared_cache: Path, tmp_path: Path
) -> None:
    predictions = tmp_path / "p.jsonl"
    predictions.write_text(json.dumps({"instance_id": INSTANCE, "model_patch": WRONG}) + "\n")
    out = tmp_path / "runs"
    done = run_cli(["eval", "--predictions", str(predictions), "--instance-ids", INSTANCE,
                    "-o", str(out), "--run-id", "r"], shared_cache, env=no_bwrap)  # fmt: skip
    assert done.returncode == 2, done.stdout + done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, done.stderr
    assert "refusing to run predictions from" in lines[0] and "bubblewrap" in lines[0]
    assert "--backend docker" in lines[0] and "--isolation none" in lines[0]
    assert not out.exists()


def test_an_agent_is_refused_without_isolation(
    no_bwrap: dict[str, str], shared_cache: Path, tmp_path: Path
) -> None:
    done = run_cli(
        ["agent", "run", "--instance-ids", INSTANCE, "--model", "m", "--base-url",
         "http://127.0.0.1:9/v1", "-o", str(tmp_path / "agents"), "--run-id", "a"],
        shared_cache,
        env={**no_bwrap, "OPENAI_API_KEY": "k"},
    )  # fmt: skip
    assert done.returncode == 2, done.stdout + done.stderr
    assert "refusing to run an agent" in done.stderr and "bubblewrap" in done.stderr
    assert not (tmp_path / "agents" / "a" / "predictions.jsonl").exists()


def test_gold_runs_unisolated_and_says_so_first_and_none_is_a_request(
    no_bwrap: dict[str, str], shared_cache: Path, tmp_path: Path
) -> None:
    out = tmp_path / "runs"
    gold = run_cli(["eval", "--predictions", "gold", "--instance-ids", INSTANCE, "-o", str(out),
                    "--run-id", "g"], shared_cache, env=no_bwrap)  # fmt: skip
    assert gold.returncode == 0, gold.stdout + gold.stderr
    assert "without isolation" in gold.stderr.splitlines()[0], gold.stderr
    record = json.loads((out / "g" / "run.json").read_text())
    assert record["isolation"] == "none"
    assert record["backend_settings"]["requested_isolation"] == "auto"
    assert record["backend_settings"]["isolation"] == "none"
    predictions = tmp_path / "p.jsonl"
    predictions.write_text(json.dumps({"instance_id": INSTANCE, "model_patch": WRONG}) + "\n")
    asked = run_cli(["eval", "--predictions", str(predictions), "--instance-ids", INSTANCE,
                     "--isolation", "none", "-o", str(out), "--run-id", "n"], shared_cache,
                    env=no_bwrap)  # fmt: skip
    assert asked.returncode == 0, asked.stdout + asked.stderr
    assert "isolation none" in asked.stderr and "as asked" in asked.stderr
    result = json.loads((out / "n" / "instances" / INSTANCE / "result.json").read_text())
    assert (result["status"], result["isolation"]) == ("unresolved", "none")
