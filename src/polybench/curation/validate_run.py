"""Validating many instances: workers, resume from saved verdicts, the dataset and report."""

from __future__ import annotations

import json
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path
from typing import Any

from polybench.curation.validate import ValidationResult, Validator
from polybench.dataset.models import Instance
from polybench.seal import read_sealed, write_sealed

RESULT_FILE = "result.json"


def _saved(
    results_dir: Path | None,
    instance_id: str,
    on_untrusted: Callable[[str, str], None] | None,
) -> ValidationResult | None:
    """A saved verdict to reuse: sealed by this harness (:mod:`polybench.seal`)."""
    if results_dir is None:
        return None
    found = read_sealed(results_dir / instance_id / RESULT_FILE)
    if found.data is None:
        return None
    if found.problem is not None:
        if on_untrusted is not None:
            on_untrusted(instance_id, found.problem)
        return None
    try:
        saved = ValidationResult.model_validate_json(found.data)
    except ValueError:
        return None
    return saved if saved.status in ("valid", "invalid") else None


def validate_all(
    instances: list[Instance],
    validator: Validator,
    workers: int = 1,
    results_dir: Path | None = None,
    force: bool = False,
    on_result: Callable[[ValidationResult, bool], None] | None = None,
    on_untrusted: Callable[[str, str], None] | None = None,
) -> dict[str, ValidationResult]:
    """Validate every instance, reusing verdicts saved in ``results_dir`` unless ``force``.

    Each verdict is saved (sealed) as soon as it is known, so a killed run resumes;
    errors are not reused, nor is a verdict whose seal fails (``on_untrusted(id, why)``
    is told). ``on_result(result, reused)`` is called for every instance.
    """
    results: dict[str, ValidationResult] = {}
    todo = []
    for instance in instances:
        saved = None if force else _saved(results_dir, instance.instance_id, on_untrusted)
        if saved is not None:
            results[instance.instance_id] = saved
            if on_result is not None:
                on_result(saved, True)
        else:
            todo.append(instance)

    def work(instance: Instance) -> ValidationResult:
        result = validator.validate(instance)
        if results_dir is not None:
            path = results_dir / instance.instance_id / RESULT_FILE
            write_sealed(path, result.model_dump_json(indent=1))
        return result

    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        futures = [pool.submit(work, instance) for instance in todo]
        for future in as_completed(futures):
            result = future.result()
            results[result.instance_id] = result
            if on_result is not None:
                on_result(result, False)
    return {i.instance_id: results[i.instance_id] for i in instances}


def validated_instances(
    instances: list[Instance], results: dict[str, ValidationResult]
) -> list[Instance]:
    """The valid instances with their F2P and P2P lists filled in."""
    kept = []
    for instance in instances:
        result = results.get(instance.instance_id)
        if result is not None and result.valid:
            kept.append(instance.model_copy(update={"F2P": result.F2P, "P2P": result.P2P}))
    return kept


def validation_report(results: dict[str, ValidationResult], runs: int) -> dict[str, Any]:
    """Totals, reasons and every instance's verdict."""
    values = list(results.values())
    reasons: dict[str, int] = {}
    for result in values:
        if not result.valid:
            key = result.kind or "unknown"
            reasons[key] = reasons.get(key, 0) + 1
    valid = [r for r in values if r.valid]
    return {
        "runs_per_phase": runs,
        "totals": {
            "instances": len(values),
            "valid": len(valid),
            "invalid": sum(r.status == "invalid" for r in values),
            "error": sum(r.status == "error" for r in values),
            "f2p_tests": sum(len(r.F2P) for r in valid),
            "p2p_tests": sum(len(r.P2P) for r in valid),
            "flaky_tests_dropped": sum(len(r.flaky) for r in values),
        },
        "not_valid_reasons": reasons,
        "instances": [json.loads(r.model_dump_json()) for r in values],
    }
