"""``polybench eval --canaries on|off``: on (the default) confirms each resolved verdict with
a canary run and says so in ``result.json``, ``run.json``, ``report.json`` and under the
table; off makes one run per instance, as the official harness, and records that too."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e.conftest import read_report, run_cli

pytestmark = pytest.mark.slow

IDS = "polybench-mini__logline-58,polybench-mini__hues-41"


@pytest.mark.parametrize("setting", ["on", "off"])
def test_the_canaries_setting_is_run_recorded_and_reported(
    setting: str, shared_cache: Path, tmp_path: Path
) -> None:
    done = run_cli(
        ["eval", "--predictions", "gold", "--dataset", "mini", "--instance-ids", IDS,
         "--canaries", setting, "-o", str(tmp_path), "--run-id", setting],
        shared_cache,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    run_dir = tmp_path / setting
    assert json.loads((run_dir / "run.json").read_text())["canaries"] == setting
    report = read_report(run_dir)
    assert report["canaries"] == setting and report["resolved_instances"] == 2
    statuses = report["tampering"]["canaries"]["statuses"]
    for instance_id in IDS.split(","):
        result = json.loads((run_dir / "instances" / instance_id / "result.json").read_text())
        canaries = result["tampering"]["canaries"]
        probe = result["tampering"]["probe"]
        canary_log = run_dir / "instances" / instance_id / "canary_output.txt"
        if setting == "on":
            assert canaries["status"] == "checked" and canaries["detection_probability"] == 0.75
            assert probe["status"] == "read" and canary_log.exists()
        else:
            assert canaries["status"] == "off" and probe["status"] == "off"
            assert not canary_log.exists()
    if setting == "on":
        assert statuses == {"checked": 2}
        assert (
            "canaries (instances): checked 2; detection probability per checked instance "
            ">= 0.75, per run >= 0.9375" in done.stdout
        )
    else:
        assert statuses == {"off": 2} and "canaries: off for this run" in done.stdout
