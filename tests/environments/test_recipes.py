"""Recipes: what an environment installs, with which toolchains, under which key."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from polybench.dataset.models import Instance
from polybench.environments.recipes import (
    extras_for_tests,
    git_show,
    git_show_many,
    maven_resolution_steps,
    python_extras,
    recipe_for,
)
from tests.environments.official_shaped import JAVA_TEST_COMMAND, official_java

MakeRepo = Callable[[dict[str, str]], tuple[Path, str]]
OFFICIAL_COMMAND = (
    "export JAVA_HOME=/usr/lib/jvm/java-11-amazon-corretto.x86_64/ && "
    "update-alternatives --set java /usr/lib/jvm/java-11-amazon-corretto.x86_64/bin/java && "
    "mvn -o -B -pl gson test surefire-report:report -Dtest={tests} -DfailIfNoTests=false ; "
    "find . -name 'TEST-*.xml' | while read f; do cat \"$f\"; done"
)


def instance(commit: str, language: str, **columns: str) -> Instance:
    return Instance(
        instance_id="o__r-1", repo="o/r", base_commit=commit, language=language, **columns
    )


def test_maven_step_runs_the_commands_goals_online_and_keys_without_test_selection() -> None:
    (step,) = maven_resolution_steps(OFFICIAL_COMMAND.format(tests="FooTest"))
    # The JDK the command chooses comes along: a profile may depend on it.
    setup, _, maven = step.command.rpartition(" && ")
    assert setup.startswith("export JAVA_HOME=/usr/lib/jvm/java-11-amazon-corretto.x86_64/ && ")
    assert "update-alternatives --set java" in setup
    assert maven.startswith("mvn -B -pl gson test surefire-report:report -Dtest=FooTest")
    assert " -o " not in step.command and "find" not in step.command
    assert "-Dmaven.test.failure.ignore=true" in step.command
    assert step.key is not None and "-Dtest" not in step.key
    assert "surefire-report:report" in step.key
    (other,) = maven_resolution_steps(OFFICIAL_COMMAND.format(tests="BarTest"))
    assert other.key == step.key and other.command != step.command
    assert maven_resolution_steps("npx jest") == ()


def test_java_recipe_resolves_the_test_commands_plugins_and_keys_by_them(
    make_repo: MakeRepo,
) -> None:
    official = official_java()
    repo, commit = make_repo({"pom.xml": "<project/>"})
    recipe = recipe_for(official.model_copy(update={"base_commit": commit}), repo)
    assert recipe is not None and recipe.source == "Dockerfile"
    assert recipe.needs.java_version == "/usr/lib/jvm/java-1.8.0-amazon-corretto.x86_64"
    commands = [step.command for step in recipe.install]
    assert "mvn -B clean install -DskipTests" in commands[0]
    assert "maven-surefire-report-plugin:3.2.5:report" in commands[1]
    retargeted = official.model_copy(
        update={
            "base_commit": commit,
            "test_command": JAVA_TEST_COMMAND.replace("IniTest,ValueConverterTest", "IniTest"),
        }
    )
    other_goals = official.model_copy(
        update={"base_commit": commit, "test_command": "mvn -B test ; cat x"}
    )
    assert recipe.key("t") == recipe_for(retargeted, repo).key("t")  # type: ignore[union-attr]
    assert recipe.key("t") != recipe_for(other_goals, repo).key("t")  # type: ignore[union-attr]
    assert recipe.key("t") != recipe.key("other toolchain")


def test_a_changed_dockerfile_step_changes_the_key(make_repo: MakeRepo) -> None:
    repo, commit = make_repo({"package.json": "{}"})
    one = recipe_for(instance(commit, "JavaScript", Dockerfile="FROM x\nRUN npm ci\n"), repo)
    two = recipe_for(instance(commit, "JavaScript", Dockerfile="FROM x\nRUN npm install\n"), repo)
    assert one is not None and two is not None and one.key("t") != two.key("t")


def test_python_installs_the_project_editable_with_its_test_extras(make_repo: MakeRepo) -> None:
    pyproject = (
        "[project]\nname = 'p'\n\n[project.optional-dependencies]\n"
        "dev = ['ruff']\ntest = [\n  'pytest',\n]\n\n[tool.x]\ny = 1\n"
    )
    repo, commit = make_repo({"pyproject.toml": pyproject, "requirements.txt": "six\n"})
    recipe = recipe_for(instance(commit, "Python"), repo)
    assert recipe is not None and recipe.source == "inferred"
    commands = [step.command for step in recipe.install]
    assert commands[0] == "{python} -m venv {env_dir}/venv"
    assert commands[1].endswith("-r requirements.txt")
    assert commands[2].endswith("-e '.[test]'")


def test_python_extras_from_every_manifest_kind() -> None:
    setup_cfg = b"[metadata]\nname = p\n[options.extras_require]\ntesting = pytest\n"
    setup_py = b"setup(name='p', extras_require={'dev': ['x'], \"docs\": ['y']})\n"
    assert python_extras({"setup.cfg": setup_cfg}) == ["testing"]
    assert python_extras({"setup.py": setup_py}) == ["dev", "docs"]
    assert python_extras({"setup.py": b"setup(extras_require=dict(tests=['x']))"}) == ["tests"]
    assert extras_for_tests(["docs", "dev", "testing"]) == ["testing"]
    assert extras_for_tests(["docs", "dev"]) == ["dev"]
    assert extras_for_tests(["docs"]) == []


def test_python_without_a_project_installs_requirements_only(make_repo: MakeRepo) -> None:
    repo, commit = make_repo({"requirements-dev.txt": "pytest\n", "m.py": ""})
    recipe = recipe_for(instance(commit, "Python"), repo)
    assert recipe is not None
    assert [s.command.split()[-1] for s in recipe.install[1:]] == ["requirements-dev.txt"]


def test_node_yarn_workspaces_and_packages_with_their_own_lockfile(make_repo: MakeRepo) -> None:
    root = {"name": "r", "private": True, "workspaces": ["packages/*"]}
    repo, commit = make_repo(
        {
            "package.json": json.dumps(root),
            "yarn.lock": "",
            ".nvmrc": "v16\n",
            "packages/a/package.json": "{}",
            "packages/a/package-lock.json": "{}",
            "tools/x/package.json": "{}",
            "tools/x/package-lock.json": "{}",
            "docs/package-lock.json": "{}",
        }
    )
    recipe = recipe_for(instance(commit, "TypeScript"), repo)
    assert recipe is not None
    assert [(s.command, s.workdir) for s in recipe.install] == [
        ("yarn install --frozen-lockfile --non-interactive", ""),
        ("npm ci --no-audit --no-fund", "tools/x"),
    ]
    assert recipe.needs.yarn and recipe.needs.node_version == "16"
    assert "tools/x/package-lock.json" in recipe.manifests


def test_node_version_from_engines_and_from_the_dockerfile(make_repo: MakeRepo) -> None:
    package = json.dumps({"engines": {"node": ">=12 <17"}})
    repo, commit = make_repo({"package.json": package, "package-lock.json": "{}"})
    inferred = recipe_for(instance(commit, "JavaScript"), repo)
    assert inferred is not None and inferred.needs.node_version == ">=12 <17"
    assert not inferred.needs.yarn
    assert [s.command for s in inferred.install] == ["npm ci --no-audit --no-fund"]
    dockerfile = (
        "FROM polybench_javascript_base\nRUN . /usr/local/nvm/nvm.sh && nvm use 14 && yarn\n"
    )
    planned = recipe_for(instance(commit, "JavaScript", Dockerfile=dockerfile), repo)
    assert planned is not None and planned.needs.node_version == "14" and planned.needs.yarn


def test_no_checkout_path_on_path(make_repo: MakeRepo) -> None:
    repo, commit = make_repo({"package.json": "{}"})
    dockerfile = (
        "FROM polybench_javascript_base\nRUN npm ci\n"
        "ENV PATH=/testbed/node_modules/.bin:/testbed/scripts:$PATH\n"
    )
    recipe = recipe_for(instance(commit, "JavaScript", Dockerfile=dockerfile), repo)
    assert recipe is not None
    assert recipe.activation.path_prepend == ("{env_dir}/node_modules/.bin", "{env_dir}/global/bin")


def test_many_files_at_a_commit_are_read_in_one_batch_as_git_show_reads_each(
    make_repo: MakeRepo,
) -> None:
    binary = "\x00\x01 two\nlines\n\n"
    repo, commit = make_repo(
        {"a.txt": "alpha\n", "dir/b.bin": binary, "empty": "", "sp ace.txt": "s"}
    )
    paths = ["a.txt", "dir/b.bin", "empty", "sp ace.txt", "missing.txt", "dir", "new\nline"]
    read = git_show_many(repo, commit, paths)
    assert list(read) == paths
    for path in ["a.txt", "dir/b.bin", "empty", "sp ace.txt"]:
        assert read[path] == git_show(repo, commit, path) is not None
    assert read["dir/b.bin"] == binary.encode()
    # Not a file at the commit (absent, a folder, a name the batch cannot carry): None.
    assert read["missing.txt"] is None and read["dir"] is None and read["new\nline"] is None
    assert git_show_many(repo, commit, []) == {}
