"""A plugin or dependency the environment lacks is the environment's failure: ``error``
(``dependency_unavailable``, retried), never an unresolved patch.

The log excerpts are Maven 3.8.7's own output, captured from a one-module project run
with an empty local repository: offline, with ``surefire-report:report`` named by its
prefix and by its coordinates, and with the repository unreachable.
"""

from __future__ import annotations

import pytest

from polybench.grading.parsers.registry import parse_log
from polybench.grading.result import ErrorKind, Status
from polybench.grading.verdict import RunFacts, decide, missing_dependency
from polybench.runner.run import RETRIED_ERRORS

F2P = ["demo.CalcTest.testAdd"]
PREFIX_OFFLINE = (
    "[INFO] BUILD FAILURE\n"
    "[ERROR] No plugin found for prefix 'surefire-report' in the current project and in the "
    "plugin groups [org.apache.maven.plugins, org.codehaus.mojo] available from the "
    "repositories [local (/root/.m2/repository), central (https://repo.maven.apache.org/"
    "maven2)] -> [Help 1]\n"
)
PLUGIN_OFFLINE = (
    "[INFO] BUILD FAILURE\n"
    "[ERROR] Plugin org.apache.maven.plugins:maven-resources-plugin:2.6 or one of its "
    "dependencies could not be resolved: Cannot access central (https://repo.maven.apache"
    ".org/maven2) in offline mode and the artifact org.apache.maven.plugins:maven-resources-"
    "plugin:jar:2.6 has not been downloaded from it before. -> [Help 1]\n"
)
PLUGIN_UNREACHABLE = (
    "[INFO] BUILD FAILURE\n"
    "[ERROR] Plugin org.apache.maven.plugins:maven-surefire-report-plugin:3.2.5 or one of its "
    "dependencies could not be resolved: Failed to read artifact descriptor for org.apache."
    "maven.plugins:maven-surefire-report-plugin:jar:3.2.5: Could not transfer artifact "
    "org.apache.maven.plugins:maven-surefire-report-plugin:pom:3.2.5 from/to central "
    "(http://127.0.0.1:9/maven2): Connect to 127.0.0.1:9 [/127.0.0.1] failed: Connection "
    "refused -> [Help 1]\n"
)
COMPILATION = (
    "[ERROR] COMPILATION ERROR : \n"
    "[ERROR] /testbed/src/main/java/demo/Calc.java:[3,34] illegal start of expression\n"
    "[INFO] BUILD FAILURE\n"
)


def _facts(exit_code: int) -> RunFacts:
    return RunFacts(
        timed_out=False,
        timeout_seconds=60,
        ended=True,
        marker_exit_code=exit_code,
        process_exit_code=exit_code,
    )


@pytest.mark.parametrize("log", [PREFIX_OFFLINE, PLUGIN_OFFLINE, PLUGIN_UNREACHABLE])
@pytest.mark.parametrize("exit_code", [0, 1])
def test_a_missing_plugin_is_an_environment_error(log: str, exit_code: int) -> None:
    parsed = parse_log(log, parser="junit_xml")
    verdict = decide(F2P, [], _facts(exit_code), parsed, log)
    assert verdict.status is Status.ERROR
    assert verdict.error_kind is ErrorKind.DEPENDENCY_UNAVAILABLE
    assert "the environment lacks what the test command needs" in verdict.reason
    assert not verdict.strict_resolved and not verdict.official_resolved
    assert ErrorKind.DEPENDENCY_UNAVAILABLE in RETRIED_ERRORS


def test_a_build_the_patch_broke_stays_unresolved() -> None:
    assert missing_dependency(COMPILATION) is None
    parsed = parse_log(COMPILATION, parser="junit_xml")
    verdict = decide(F2P, [], _facts(1), parsed, COMPILATION)
    assert verdict.status is Status.UNRESOLVED and verdict.error_kind is None
