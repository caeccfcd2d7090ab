"""What a test command needs prepared, and how each backend prepares it."""

from __future__ import annotations

import subprocess
from pathlib import Path

from polybench.dataset.models import Instance
from polybench.environments.commandneeds import command_needs, with_nvm_script
from polybench.environments.images.envspec import env_spec
from polybench.environments.images.prepare import PREPARE_DIR, prepare_lines
from polybench.environments.toolchains import write_nvm_script
from tests.environments.official_shaped import JAVA_DOCKERFILE

GSON_COMMAND = (
    "export JAVA_HOME=/usr/lib/jvm/java-11-amazon-corretto.x86_64/ && "
    "update-alternatives --set java /usr/lib/jvm/java-11-amazon-corretto.x86_64/bin/java && "
    "mvn -o -B -pl gson test surefire-report:report -Dtest={tests} -DfailIfNoTests=false ; "
    "find . -name 'TEST-*.xml' | while read f; do cat \"$f\"; done"
)
NVM_COMMAND = ". /usr/local/nvm/nvm.sh && nvm use 12 && npx jest --json"


def test_each_maven_call_is_a_step_with_the_shell_setup_before_it() -> None:
    needs = command_needs("cd /testbed/core && mvn -B verify ; mvn -B test -Dtest=A | tee log")
    # A call whose output goes through a pipe is a call all the same.
    (verify, test) = needs.steps
    assert verify.command.startswith("cd /testbed/core && mvn -B verify ")
    assert test.command.startswith("cd /testbed/core && mvn -B test -Dtest=A ")
    assert "-Dtest" not in test.key
    assert needs.node_versions == ()


def test_a_test_selection_does_not_change_the_needs() -> None:
    one = command_needs(GSON_COMMAND.format(tests="FooTest"))
    two = command_needs(GSON_COMMAND.format(tests="BarTest,BazTest"))
    assert one.key() == two.key()
    assert one.steps[0].command != two.steps[0].command
    assert one.key() != command_needs(GSON_COMMAND.replace("surefire-report:report ", "")).key()
    assert command_needs("npx jest --json").empty


def test_nvm_use_is_a_node_version_to_prepare() -> None:
    needs = command_needs(NVM_COMMAND)
    assert needs.node_versions == ("12",) and needs.steps == ()
    assert command_needs('source "$NVM_DIR/nvm.sh"; nvm use lts/gallium').node_versions == ("16",)
    assert command_needs('source "$NVM_DIR/nvm.sh"; nvm use').node_versions == ()


def test_the_local_backend_sources_its_own_nvm() -> None:
    mapped = with_nvm_script(NVM_COMMAND, "/cache/envs/node-1/nvm/nvm.sh")
    assert mapped == ". /cache/envs/node-1/nvm/nvm.sh && nvm use 12 && npx jest --json"
    quoted = with_nvm_script(
        '(source "$NVM_DIR/nvm.sh" && nvm use 14) ; echo nvm.sh', "/e n/nvm.sh"
    )
    assert quoted == "(source '/e n/nvm.sh' && nvm use 14) ; echo nvm.sh"


def test_docker_prepares_in_a_copy_and_installs_node_with_the_images_nvm() -> None:
    needs = command_needs(f"{NVM_COMMAND} ; export JAVA_HOME=/opt/jdk ; cd /testbed && mvn -B test")
    header, node, maven = prepare_lines(needs)
    assert header.startswith("#")
    assert node == "RUN bash -c '. /usr/local/nvm/nvm.sh && nvm install 12'"
    assert f"cp -a /testbed {PREPARE_DIR}" in maven and f"rm -rf {PREPARE_DIR}" in maven
    assert f"cd {PREPARE_DIR} && mvn -B test" in maven and "cd /testbed" not in maven
    assert "export JAVA_HOME=/opt/jdk && " in maven, "only /testbed is moved"
    assert prepare_lines(command_needs("npx jest")) == []


def _instance(commit: str, command: str) -> Instance:
    return Instance(
        instance_id="o__r-1",
        repo="o/r",
        base_commit=commit,
        language="Java",
        Dockerfile=JAVA_DOCKERFILE,
        test_command=command,
    )


def test_the_environment_image_ends_with_what_the_test_command_needs(
    make_repo: object,
) -> None:
    repo, commit = make_repo({"pom.xml": "<project/>", ".dockerignore": "**\n"})  # type: ignore[operator]
    spec = env_spec(_instance(commit, GSON_COMMAND.format(tests="FooTest")), repo)
    assert spec.dockerfile.startswith(JAVA_DOCKERFILE)
    assert f"git -C /testbed checkout -q {commit} -- .dockerignore" in spec.dockerfile
    assert "surefire-report:report -Dtest=FooTest" in spec.dockerfile
    other_tests = env_spec(_instance(commit, GSON_COMMAND.format(tests="BarTest")), repo)
    assert other_tests.key == spec.key, "one environment for every test selection"
    no_report = env_spec(_instance(commit, "mvn -B test ; cat x"), repo)
    assert no_report.key != spec.key


def test_the_local_nvm_selects_among_the_prepared_nodes(tmp_path: Path) -> None:
    nodes = []
    for version in ("18.20.4", "12.22.12", "12.18.0"):
        bin_dir = tmp_path / f"node-{version}" / "bin"
        bin_dir.mkdir(parents=True)
        (bin_dir / "node").write_text(f"#!/bin/sh\necho v{version}\n")
        (bin_dir / "node").chmod(0o755)
        nodes.append((version, str(bin_dir)))
    script = tmp_path / "nvm" / "nvm.sh"
    write_nvm_script(script, nodes)

    def run(line: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["bash", "-c", f". {script} && {line}"], capture_output=True, text=True, check=False
        )

    assert run("nvm use 12 >/dev/null && node").stdout == "v12.22.12\n"
    assert run("nvm use v12.18 >/dev/null && node").stdout == "v12.18.0\n"
    assert run("nvm use lts/erbium").stdout == "Now using node v12.22.12\n"
    assert run("nvm use default >/dev/null && node").stdout == "v18.20.4\n"
    missing = run("nvm use 16 && node")
    assert missing.returncode == 3 and "not prepared" in missing.stderr
