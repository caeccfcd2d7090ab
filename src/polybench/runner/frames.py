"""Per-instance results as a pandas DataFrame, for notebooks (pandas is an optional extra)."""

from __future__ import annotations

from typing import Any

from polybench import DISTRIBUTION
from polybench.grading.grade import Outcome
from polybench.grading.result import InstanceResult


def result_row(result: InstanceResult) -> dict[str, Any]:
    """One instance's result as a flat row."""
    passed = (Outcome.PASSED, Outcome.XFAIL)
    tampering = result.tampering
    return {
        "instance_id": result.instance_id,
        "repo": result.repo,
        "language": result.language,
        "model": result.model_name_or_path,
        "status": result.status.value,
        "resolved": result.resolved,
        "strict_resolved": result.strict_resolved,
        "official_resolved": result.official_resolved,
        "reason": result.reason,
        "error_kind": result.error_kind.value if result.error_kind else None,
        "patch_applied": result.patch_applied,
        "f2p_total": len(result.f2p),
        "f2p_passed": sum(o is Outcome.PASSED for o in result.f2p.values()),
        "p2p_total": len(result.p2p),
        "p2p_passed": sum(o in passed for o in result.p2p.values()),
        "reverted_paths": len(tampering.reverted),
        "refused_paths": len(tampering.refused),
        "canaries_tampered": tampering.canaries.tampered,
        "tampering_detected": bool(tampering.detected),
        "flags": len(tampering.flags),
        "backend": result.backend,
        "seconds": result.timings.get("total"),
        "attempts": result.attempts,
    }


def results_frame(results: dict[str, InstanceResult]) -> Any:
    """A DataFrame with one :func:`result_row` per instance, indexed by instance id."""
    try:
        import pandas
    except ImportError as exc:
        raise ImportError(
            f"results as a DataFrame need pandas: pip install '{DISTRIBUTION}[data]'"
        ) from exc
    rows = [result_row(results[key]) for key in sorted(results)]
    frame = pandas.DataFrame(rows)
    return frame.set_index("instance_id") if rows else frame
