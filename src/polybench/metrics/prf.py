"""Set precision, recall and F1: the score of a retrieved set against a reference set."""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel


class PRF(BaseModel):
    """Precision, recall and F1 of one prediction, each in [0, 1]."""

    precision: float
    recall: float
    f1: float

    @classmethod
    def zero(cls) -> PRF:
        """The score of an empty, invalid or unappliable prediction."""
        return cls(precision=0.0, recall=0.0, f1=0.0)


def set_prf(reference: Iterable[str], predicted: Iterable[str]) -> PRF:
    """Score ``predicted`` against ``reference`` as sets.

    precision = |R & P| / |P| and recall = |R & P| / |R|, each 0 when its denominator is;
    F1 is their harmonic mean (0 when both are 0).
    """
    wanted, found = set(reference), set(predicted)
    hits = len(wanted & found)
    precision = hits / len(found) if found else 0.0
    recall = hits / len(wanted) if wanted else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return PRF(precision=precision, recall=recall, f1=f1)
