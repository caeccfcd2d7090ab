"""Running the attack catalogue with its controls in one run, on any backend, and checking it.

Every attack runs on its own copy of a mini instance (same repository, tests and lists, a
suffixed id). Next to them, for every instance an attack uses, two controls: the gold
patch (must resolve, confirmed by its canary run, nothing detected) and an honest
wrong patch (must stay unresolved, with nothing detected either: the defences must not
mistake honest work for tampering).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from polybench.dataset.models import Instance, Language, Prediction
from polybench.environments.provider import ReadySandbox, SandboxProvider
from polybench.grading.canaries import CanaryOutcome, CanaryStatus
from polybench.grading.grade import Outcome
from polybench.grading.result import ErrorKind, InstanceResult, Status
from polybench.patches.diff import touched_files
from tests.e2e.attacks import CLASSES, Attack, Context
from tests.e2e.attacks.environment import ATTACKS as ENVIRONMENT_ATTACKS
from tests.e2e.attacks.novelty import ATTACKS as NOVELTY_ATTACKS
from tests.e2e.attacks.reports import ATTACKS as REPORT_ATTACKS
from tests.e2e.attacks.runtime import ATTACKS as RUNTIME_ATTACKS
from tests.e2e.hostile import Edit, make_patch

ALL_ATTACKS: list[Attack] = [
    *REPORT_ATTACKS, *RUNTIME_ATTACKS, *ENVIRONMENT_ATTACKS, *NOVELTY_ATTACKS
]  # fmt: skip
GOLD = "gold"
HONEST = "honest-wrong"
_COMMENT = {Language.PYTHON: "#", Language.JAVA: "//"}


class AliasProvider:
    """Provides the sandbox of the instance an attack copy was made from (so a backend
    that builds per-instance images builds each base once)."""

    def __init__(self, provider: SandboxProvider, bases: dict[str, Instance]) -> None:
        self.provider = provider
        self.bases = bases
        self.name = provider.name

    def provide(self, instance: Instance) -> ReadySandbox:
        """The base instance's sandbox."""
        return self.provider.provide(self.bases.get(instance.instance_id, instance))


@dataclass
class Suite:
    """The instances and predictions of one hostile run, and what each one is."""

    instances: list[Instance] = field(default_factory=list)
    predictions: dict[str, Prediction] = field(default_factory=dict)
    attacks: dict[str, Attack] = field(default_factory=dict)
    controls: dict[str, str] = field(default_factory=dict)
    bases: dict[str, Instance] = field(default_factory=dict)

    def add(self, base: Instance, suffix: str, patch: str, model: str) -> str:
        """A copy of ``base`` with ``patch`` as its prediction; returns the copy's id."""
        copy_id = f"{base.instance_id}.{suffix}"
        self.instances.append(base.model_copy(update={"instance_id": copy_id}))
        self.predictions[copy_id] = Prediction(
            instance_id=copy_id, model_patch=patch, model_name_or_path=model
        )
        self.bases[copy_id] = base
        return copy_id


def honest_wrong_patch(instance: Instance, clone: Path, scratch: Path) -> str:
    """A harmless comment in the first file the gold patch changes: no fix, no trick."""
    code = [p for p in touched_files(instance.patch) if not p.endswith((".md", ".txt"))]
    target = code[0]
    comment = _COMMENT.get(instance.language, "//")
    edit = Edit(append={target: f"\n{comment} the fix is left for later\n"})
    return make_patch(clone, instance.base_commit, scratch, edit)


def build_suite(
    mini: dict[str, Instance],
    repo_dir: Path,
    scratch: Path,
    attacks: list[Attack],
) -> Suite:
    """Every attack of ``attacks`` plus the two controls of each instance they use."""
    suite = Suite()
    for attack in attacks:
        base = mini[attack.base]
        clone = repo_dir / base.repo_dir_name
        patch = attack.build(Context(base, clone, scratch))
        copy_id = suite.add(base, attack.name, patch, "hostile")
        suite.attacks[copy_id] = attack
    for base_id in sorted({attack.base for attack in attacks}):
        base = mini[base_id]
        clone = repo_dir / base.repo_dir_name
        suite.controls[suite.add(base, GOLD, base.patch, "gold")] = GOLD
        honest = honest_wrong_patch(base, clone, scratch)
        suite.controls[suite.add(base, HONEST, honest, "honest")] = HONEST
    return suite


def defences_fired(result: InstanceResult) -> set[str]:
    """Which defences acted on an instance, read from its result."""
    fired: set[str] = set()
    tampering = result.tampering
    if not result.patch_applied and result.reason.startswith("patch rejected"):
        fired.add("rejected")
    if not result.patch_applied and "did not apply" in result.reason:
        fired.add("not-applied")
    if tampering.refused:
        fired.add("refused")
    for record in tampering.reverted:
        fired.add("reset" if "test" in record.reason else "reverted")
    if tampering.canaries.tampered:
        fired.add("canary")
    if tampering.probe.tampered:
        fired.add("probe")
    if tampering.distrusted_reports:
        fired.add("distrust")
    if any("summary" in reason for reason in tampering.detected):
        fired.add("summary")
    if tampering.truncated_bytes:
        fired.add("truncation")
    if "forged harness output" in result.reason:
        fired.add("marker")
    if result.error_kind is ErrorKind.NO_TEST_RESULTS or result.build_failure:
        fired.add("no-results")
    failing = {Outcome.FAILED, Outcome.ERRORED, Outcome.MISSING}
    if result.status is Status.UNRESOLVED and failing & set(result.f2p.values()):
        fired.add("real-failure-wins")
    return fired


def check_attack(attack: Attack, result: InstanceResult) -> str | None:
    """Why the attack's outcome is wrong, or None when a named defence stopped it."""
    if result.status is Status.RESOLVED:
        return f"{attack.name}: RESOLVED ({result.reason})"
    fired = defences_fired(result)
    if not fired & set(attack.stopped_by):
        return (
            f"{attack.name}: {result.status.value} ({result.reason}) but none of "
            f"{attack.stopped_by} fired (fired: {sorted(fired)})"
        )
    return None


def check_control(kind: str, result: InstanceResult) -> str | None:
    """Why a control's outcome is wrong, or None."""
    tampering = result.tampering
    canaries = tampering.canaries
    if (
        tampering.detected
        or canaries.tampered
        or tampering.distrusted_reports
        or tampering.probe.tampered
    ):
        return f"{result.instance_id}: honest work flagged: {tampering.detected} {canaries}"
    if kind == GOLD:
        if result.status is not Status.RESOLVED:
            return f"{result.instance_id}: gold {result.status.value} ({result.reason})"
        if canaries.status is not CanaryStatus.CHECKED or not all(
            r.outcome is CanaryOutcome.AS_PLANTED for r in canaries.records
        ):
            return f"{result.instance_id}: gold canaries {canaries}"
    elif result.status is not Status.UNRESOLVED:
        return f"{result.instance_id}: honest wrong patch {result.status.value} ({result.reason})"
    return None


def outcome_text(result: InstanceResult) -> str:
    """The status, with the error kind when there is one."""
    kind = f" ({result.error_kind.value})" if result.error_kind else ""
    return result.status.value + kind


def attack_row(attack: Attack, result: InstanceResult) -> dict[str, str]:
    """One line of the hostile table."""
    shown = {*attack.stopped_by, "canary", "probe", "refused", "reverted", "reset", "distrust",
             "summary"}  # fmt: skip
    fired = sorted(defences_fired(result) & shown)
    return {
        "attack": f"{attack.name}: {attack.description}",
        "class": CLASSES[attack.klass],
        "language": attack.language,
        "outcome": outcome_text(result),
        "layer": ", ".join(fired),
        "reason": result.reason[:300],
    }
