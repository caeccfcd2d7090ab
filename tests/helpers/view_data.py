"""An evaluation run of an agent's predictions, with its agent run beside it, as the
runner and the agent runner leave them, and with hostile text in every field a page shows."""

from __future__ import annotations

import json
from pathlib import Path

from polybench.agent.trajectory import (
    ApiAttemptError,
    RequestRecord,
    ResponseRecord,
    ResponseToolCall,
    StepRecord,
    TokenUsage,
    ToolCallRecord,
    Trajectory,
)
from polybench.grading.grade import Outcome
from polybench.grading.result import InstanceResult, Status
from polybench.grading.tampering import PathRecord, Tampering

HOSTILE = (
    "<script>alert('x')</script> [red]not markup[/red] \"q\" & </pre><img src=x onerror=alert(1)>"
)
"""A text that would run, break the page or print markup if it were not escaped."""
SOLVED = "acme__calc-1"
FAILED = "acme__calc-2"
MISSING = "acme__calc-3"
LOG_LINES = 200


def trajectory(instance_id: str) -> Trajectory:
    """Two steps: a bash call (after one failed API attempt), then submit."""
    command = f"sed -i 's/-/+/' calc.py && echo '{HOSTILE}'"
    return Trajectory(
        instance_id=instance_id,
        repo_path="/testbed",
        started_at="2026-01-01T00:00:00+00:00",
        settings={"model": "m"},
        tools=[],
        steps=[
            StepRecord(
                step=1,
                request=RequestRecord(
                    message_offset=0,
                    new_messages=[
                        {"role": "system", "content": "system prompt"},
                        {"role": "user", "content": f"Fix add(). {HOSTILE}"},
                    ],
                ),
                started=0.1,
                duration=1.5,
                failed_attempts=[
                    ApiAttemptError(
                        attempt=1,
                        started=0.1,
                        duration=0.2,
                        error_type="RateLimitError",
                        status_code=429,
                        message="RateLimitError: HTTP 429: slow down",
                        retryable=True,
                        wait_seconds=2.0,
                    )
                ],
                response=ResponseRecord(
                    content=f"I will fix it. {HOSTILE}",
                    tool_calls=[ResponseToolCall(id="c1", name="bash", arguments="{}")],
                    usage=TokenUsage(input_tokens=1000, output_tokens=40, cached_tokens=200),
                ),
                tool_calls=[
                    ToolCallRecord(
                        id="c1",
                        name="bash",
                        arguments="{}",
                        kind="bash",
                        command=command,
                        exit_code=0,
                        duration=0.3,
                        timeout=120,
                        output=f"exit code: 0\n{HOSTILE}",
                    )
                ],
            ),
            StepRecord(
                step=2,
                request=RequestRecord(message_offset=2, new_messages=[]),
                started=2.0,
                duration=0.8,
                response=ResponseRecord(
                    tool_calls=[ResponseToolCall(id="c2", name="submit", arguments="{}")],
                    usage=TokenUsage(input_tokens=200, output_tokens=5),
                ),
                tool_calls=[
                    ToolCallRecord(
                        id="c2", name="submit", arguments="{}", kind="submit", output="Submitted."
                    )
                ],
            ),
        ],
        exit_status="submitted",
        reason="the model called submit",
        responses=2,
        api_errors=1,
        wall_seconds=3.2,
    )


def write_agent_run(root: Path) -> Path:
    """``<root>/agent/r``: predictions (with usage) and trajectories of two instances."""
    run = root / "agent" / "r"
    (run / "trajectories").mkdir(parents=True)
    records = [
        {"instance_id": SOLVED, "model_patch": "diff", "model_name_or_path": "m",
         "usage": {"input_tokens": 1200, "output_tokens": 45, "cached_tokens": 200},
         "api_calls": 2, "exit_status": "submitted", "reason": "the model called submit"},
        {"instance_id": FAILED, "model_patch": "", "model_name_or_path": "m",
         "usage": {"input_tokens": 0, "output_tokens": 0}, "api_calls": 0,
         "exit_status": "agent_failed",
         "reason": f"the command exited with status 3; its output ends with:\n{HOSTILE}"},
    ]  # fmt: skip
    (run / "predictions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    (run / "trajectories" / f"{SOLVED}.traj.json").write_text(
        trajectory(SOLVED).model_dump_json(indent=1)
    )
    (run / "trajectories" / f"{FAILED}.agent.log").write_text(f"started\n{HOSTILE}\n")
    return run


def write_eval_run(root: Path) -> Path:
    """``<root>/runs/e``: the evaluation of the agent run's predictions (one resolved, one
    unresolved with a reverted test file, one without a prediction)."""
    agent = write_agent_run(root)
    run = root / "runs" / "e"
    (run / "instances").mkdir(parents=True)
    (run / "run.json").write_text(
        json.dumps({"run_id": "e", "dataset": "d.jsonl",
                    "predictions_source": str(agent / "predictions.jsonl")})
    )  # fmt: skip
    results = [
        InstanceResult(
            instance_id=SOLVED, repo="acme/calc", language="Python", status=Status.RESOLVED,
            reason="all 1 F2P and 0 P2P tests passed", strict_resolved=True,
            official_resolved=True, f2p={"tests/test_calc.py:None:test_add": Outcome.PASSED},
        ),
        InstanceResult(
            instance_id=FAILED, repo="acme/calc", language="Python", status=Status.UNRESOLVED,
            reason=f"F2P test failed: {HOSTILE}", strict_resolved=False, official_resolved=False,
            f2p={"tests/test_calc.py:None:test_add": Outcome.FAILED},
            tampering=Tampering(reverted=[PathRecord(path="tests/test_calc.py", reason=HOSTILE)]),
        ),
    ]  # fmt: skip
    for result in results:
        folder = run / "instances" / result.instance_id
        folder.mkdir()
        (folder / "result.json").write_text(result.model_dump_json(indent=2))
        (folder / "patch.diff").write_text("diff --git a/calc.py b/calc.py\n")
        log = [f"log line {n}" for n in range(1, LOG_LINES)] + [HOSTILE]
        (folder / "test_output.txt").write_text("\n".join(log) + "\n")
    summary = {"run_id": "e", "resolved_ids": [SOLVED], "unresolved_ids": [FAILED],
               "no_prediction_ids": [MISSING]}  # fmt: skip
    (run / "report.json").write_text(json.dumps(summary))
    return run
