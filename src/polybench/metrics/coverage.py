"""The one rule for instances without a prediction, shared by ``metrics`` and ``report``.

An instance with no prediction counts as an empty prediction: it scores 0 for files (and
for nodes, when its gold patch touches one) and is in every mean, as it is unresolved in
the pass rate. So the same predictions give the same means in both commands.
"""

from __future__ import annotations

MISSING_PREDICTION_RULE = (
    "an instance without a prediction counts as an empty prediction (0 for files and nodes)"
)


def coverage_note(instances: int, without_prediction: int) -> str:
    """The line printed with the means: how many instances they are over, and the rule."""
    return (
        f"means over {instances} instances, {without_prediction} of them without a "
        f"prediction: {MISSING_PREDICTION_RULE}"
    )
