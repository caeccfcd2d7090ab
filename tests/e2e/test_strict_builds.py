"""What the harness adds never costs an honest patch its verdict, on repositories that
build with warnings as errors (``tests/data/strict``: Error Prone with ``-Xlint:all
-Werror``, TypeScript strict with ``noUnused*`` checked by tsc and ts-jest, pytest ``-W
error --strict-markers``): the gold patches resolve with canaries on, every armed form
compiles there and fails as armed, the probe loads without breaking anything; and a
planted change that does break the build is found in the log, reported and retried
without it, with the verdict unchanged.
"""

# Fixtures imported from tests.helpers.docker_fixtures are used as test arguments.
# ruff: noqa: F811

from __future__ import annotations

from pathlib import Path

import pytest

from polybench.dataset.models import Instance, Prediction
from polybench.dataset.predictions import PredictionSet
from polybench.environments.backends import ProviderSettings
from polybench.environments.images.settings import ImageSettings
from polybench.grading import arming
from polybench.grading.canaries import CanaryOutcome, CanaryStatus
from polybench.grading.probe import ProbeStatus
from polybench.grading.result import InstanceResult, Status
from polybench.runner.executors import make_runner
from polybench.runner.instance import RunSettings
from polybench.runner.run import RunPlan
from tests.helpers.docker_fixtures import docker_bases, docker_settings  # noqa: F401
from tests.helpers.strict_dataset import strict_dataset

pytestmark = [pytest.mark.slow]

GENEROUS_TIMEOUT = 1200.0
FORMS = {
    "polybench-strict__temps-1": {
        "assertEquals (imported, opposite qualified)", "assertEquals (qualified)",
        "assertNotEquals (imported)", "assertTrue (imported)",
    },
    "polybench-strict__units-1": {
        "expect .not", "expect remove .not", "node assert.strictEqual", "assert(value)",
        "assert.ok remove !",
    },
    "polybench-strict__sizes-1": {
        "python ==", "python >=", "python in", "python not", "python truth", "assertEqual",
        "assertTrue",
    },
}  # fmt: skip
ARMED = {"polybench-strict__temps-1": 4, "polybench-strict__units-1": 6,
         "polybench-strict__sizes-1": 8}  # fmt: skip


def _gold_run(
    tmp_path: Path, settings: ProviderSettings, instances: list[Instance]
) -> dict[str, InstanceResult]:
    predictions = {
        i.instance_id: Prediction(
            instance_id=i.instance_id, model_patch=i.patch, model_name_or_path="gold"
        )
        for i in instances
    }
    plan = RunPlan("strict", tmp_path / "run", instances, PredictionSet(predictions, [], "gold"),
                   workers=2)  # fmt: skip
    settings.work_dir = plan.sandboxes_dir
    runner = make_runner("local", settings, RunSettings(timeout=GENEROUS_TIMEOUT))
    return runner.run(plan).results


def _check_gold(results: dict[str, InstanceResult]) -> None:
    for instance_id, forms in FORMS.items():
        result = results[instance_id]
        assert result.status is Status.RESOLVED, (instance_id, result.reason)
        canaries = result.tampering.canaries
        assert canaries.status is CanaryStatus.CHECKED, (instance_id, canaries)
        assert {r.outcome for r in canaries.records} == {CanaryOutcome.AS_PLANTED}
        assert {r.form for r in canaries.records} == forms
        # Every F2P test was armed (a parametrized one once, for all its cases).
        assert len(canaries.records) == ARMED[instance_id]
        assert result.tampering.probe.status is not ProbeStatus.UNAVAILABLE
        assert not result.tampering.detected and not result.tampering.probe.findings


def test_gold_resolves_with_canaries_on_in_every_form_on_the_local_backend(
    tmp_path: Path, cache_env: Path
) -> None:
    repo_dir = cache_env / "strict-repos"
    settings = ProviderSettings(repo_dir=repo_dir, work_dir=tmp_path)
    _check_gold(_gold_run(tmp_path, settings, strict_dataset(repo_dir)))


@pytest.mark.docker
def test_gold_resolves_with_canaries_on_in_every_form_on_the_docker_backend(
    tmp_path: Path,
    cache_env: Path,
    docker_bases: object,
    docker_settings: ImageSettings,
) -> None:
    repo_dir = cache_env / "strict-repos"
    options = {"base_source": docker_settings.base_source,
               "trust_host_ca": docker_settings.trust_host_ca}  # fmt: skip
    settings = ProviderSettings(
        backend="docker",
        repo_dir=repo_dir,
        work_dir=tmp_path,
        cache_dir=docker_settings.cache_dir.parent,
        options=options,
    )
    results = _gold_run(tmp_path, settings, strict_dataset(repo_dir))
    _check_gold(results)
    assert {r.isolation for r in results.values()} == {"docker"}


def test_an_armed_line_that_breaks_the_build_is_reported_and_retried_without_it(
    tmp_path: Path, cache_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # assertTrue armed as a method that does not exist: javac stops at that line.
    monkeypatch.setitem(arming._JUNIT_OPPOSITES, "assertTrue", "assertUntrue")
    repo_dir = cache_env / "strict-repos"
    java = [i for i in strict_dataset(repo_dir) if i.instance_id == "polybench-strict__temps-1"]
    settings = ProviderSettings(repo_dir=repo_dir, work_dir=tmp_path)
    result = _gold_run(tmp_path, settings, java)["polybench-strict__temps-1"]

    assert result.status is Status.RESOLVED, result.reason
    canaries = result.tampering.canaries
    assert canaries.runs == 2
    assert canaries.reason is not None
    assert canaries.reason.startswith(
        "the armed test at src/test/java/io/strict/TemperatureTest.java:27 broke the canary "
        "run's build ("
    )
    assert "cannot find symbol" in canaries.reason and "retried without it" in canaries.reason
    # The retry armed the other three tests and they failed as armed.
    assert canaries.status is CanaryStatus.CHECKED
    assert sorted(r.test for r in canaries.records) == [
        "ConversionTest > bodyTemperatureIsNotTheCelsiusFormula",
        "ConversionTest > freezingPointInFahrenheit",
        "TemperatureTest > boilingPointInFahrenheit",
    ]
    assert {r.outcome for r in canaries.records} == {CanaryOutcome.AS_PLANTED}
