"""polybench: evaluate coding agents on SWE-PolyBench.

The library's entry points (imported on first use, so ``import polybench`` stays light)::

    from polybench import EvalConfig, evaluate
    report = evaluate(EvalConfig(dataset="mini", predictions="gold"))

- :func:`evaluate` / :class:`EvalConfig` / :class:`RunReport`: run predictions and grade
  them (:mod:`polybench.runner.api`);
- :func:`regrade`: grade a finished run again from its saved logs
  (:mod:`polybench.runner.regrade`);
- :func:`report_runs` / :func:`write_report`: the stratified tables of one or more runs
  (:mod:`polybench.report.api`);
- :func:`score_predictions`: file and node retrieval metrics (:mod:`polybench.metrics`);
- :func:`load_dataset`: instances of a dataset (:mod:`polybench.dataset`).
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"
DISTRIBUTION = "polybench-harness"
"""The name to ``pip install`` (the name ``polybench`` on the package index is another
project's); the import package and the command are ``polybench``."""

_LAZY = {
    "EvalConfig": "polybench.runner.api",
    "RunReport": "polybench.runner.api",
    "ExitCode": "polybench.runner.api",
    "evaluate": "polybench.runner.api",
    "regrade": "polybench.runner.regrade",
    "report_runs": "polybench.report.api",
    "write_report": "polybench.report.output",
    "score_predictions": "polybench.metrics.api",
    "load_dataset": "polybench.dataset.loaders",
}

__all__ = ["DISTRIBUTION", "__version__", *_LAZY]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'polybench' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
