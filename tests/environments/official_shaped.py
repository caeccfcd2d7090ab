"""Instances written exactly in the official SWE-PolyBench style, made from mini instances.

The official dataset's Java instances start ``FROM polybench_java_base``, pick a Corretto
JDK with ``export JAVA_HOME=... && update-alternatives --set java ...`` and run Maven with
``surefire-report:report``, then ``cat`` every Surefire XML report into the log; its
JavaScript instances start ``FROM polybench_javascript_base`` and choose their Node with
nvm before ``npm ci``. These fixtures keep a mini instance's repository, patches and test
lists and replace its ``Dockerfile`` and ``test_command`` columns with ones in that style.
"""

from __future__ import annotations

from polybench.dataset.builtin import load_builtin
from polybench.dataset.models import Instance

JAVA_INSTANCE = "polybench-mini__tinyini-23"
JAVASCRIPT_INSTANCE = "polybench-mini__hues-41"
CORRETTO_8 = "/usr/lib/jvm/java-1.8.0-amazon-corretto.x86_64"
JAVA_TOOLCHAIN = (
    f"export JAVA_HOME={CORRETTO_8}/ && update-alternatives --set java {CORRETTO_8}/bin/java"
)

# The official commands name the plugin by its prefix (``surefire-report:report``), which
# Maven resolves to the newest release; this machine's registry lacks a dependency of the
# newest one (surefire-report-parser 3.6.1), so the fixture names the release that
# matches the repository's Surefire instead. What is tested is the same: a plugin that
# only the test command names must be in the environment when tests run offline.
SUREFIRE_REPORT = "org.apache.maven.plugins:maven-surefire-report-plugin:3.2.5"

JAVA_DOCKERFILE = f"""FROM polybench_java_base

WORKDIR /testbed
COPY . .

RUN {JAVA_TOOLCHAIN} && mvn -B clean install -DskipTests
"""
JAVA_TEST_COMMAND = (
    f"{JAVA_TOOLCHAIN} && mvn -B test {SUREFIRE_REPORT}:report "
    "-Dtest=IniTest,ValueConverterTest -DfailIfNoTests=false "
    "-Dsurefire.failIfNoSpecifiedTests=false ; "
    "find target/surefire-reports -name 'TEST-*.xml' | while read f; do cat \"$f\"; done"
)

# The same goals, run by a program the harness does not read: what the command needs
# cannot be seen, so nothing fetches it, and tests run without network.
_MAVEN, _, _REPORTS = JAVA_TEST_COMMAND.rpartition(" && ")[2].partition(" ; ")
HIDDEN_JAVA_TEST_COMMAND = f"{JAVA_TOOLCHAIN} && bash -c '{_MAVEN}' ; {_REPORTS}"

JAVASCRIPT_DOCKERFILE = """FROM polybench_javascript_base

WORKDIR /testbed
COPY . .

RUN . /usr/local/nvm/nvm.sh && nvm install 18 && nvm use 18 && npm ci
"""
JAVASCRIPT_TEST_COMMAND = (
    "npx mocha --reporter json test/named.test.js test/color.test.js test/parse.test.js"
)
# Some official test commands choose their own Node with nvm, another than the one the
# Dockerfile installed with.
NVM_NODE = "20"
JAVASCRIPT_NVM_TEST_COMMAND = (
    f". /usr/local/nvm/nvm.sh && nvm use {NVM_NODE} && {JAVASCRIPT_TEST_COMMAND}"
)


def _mini(instance_id: str) -> Instance:
    for instance in load_builtin("mini"):
        if instance.instance_id == instance_id:
            return instance
    raise KeyError(f"the mini dataset has no {instance_id}")


def official_java() -> Instance:
    """tinyini-23 with an official-style Java ``Dockerfile`` and ``test_command``."""
    return _mini(JAVA_INSTANCE).model_copy(
        update={"Dockerfile": JAVA_DOCKERFILE, "test_command": JAVA_TEST_COMMAND}
    )


def official_java_hidden() -> Instance:
    """tinyini-23 whose test command runs Maven through ``bash -c``: its report plugin is
    in no environment."""
    return official_java().model_copy(update={"test_command": HIDDEN_JAVA_TEST_COMMAND})


def official_javascript() -> Instance:
    """hues-41 with an official-style JavaScript ``Dockerfile`` and ``test_command``."""
    return _mini(JAVASCRIPT_INSTANCE).model_copy(
        update={"Dockerfile": JAVASCRIPT_DOCKERFILE, "test_command": JAVASCRIPT_TEST_COMMAND}
    )


def official_javascript_nvm() -> Instance:
    """hues-41 whose test command selects Node 20 with nvm (the Dockerfile installs 18)."""
    return official_javascript().model_copy(update={"test_command": JAVASCRIPT_NVM_TEST_COMMAND})


def official_instances() -> list[Instance]:
    """Both official-shaped instances."""
    return [official_java(), official_javascript()]
