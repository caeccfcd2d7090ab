"""Splitting diffs into code and test patches, recipes, and building instances."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from polybench.curation.build import build_all, build_instance
from polybench.curation.candidates import Candidate, Rejection, write_jsonl
from polybench.curation.recipes import RecipeError, RepoRecipe, load_recipes
from polybench.curation.testpaths import (
    TestPathRules,
    diff_sections,
    glob_regex,
    new_files_tested,
    split_diff,
)
from polybench.dataset.loaders import load_instances_from_file
from polybench.dataset.models import Instance, Language
from tests.curation.conftest import RECIPE, curation_app

runner = CliRunner()


def _file(path: str, added: list[str], new: bool = False, deleted: bool = False) -> str:
    old = "/dev/null" if new else f"a/{path}"
    target = "/dev/null" if deleted else f"b/{path}"
    mode = "new file mode 100644\n" if new else ("deleted file mode 100644\n" if deleted else "")
    body = "".join(f"+{line}\n" for line in added)
    return (
        f"diff --git a/{path} b/{path}\n{mode}index 1111111..2222222\n--- {old}\n+++ {target}\n"
        f"@@ -0,0 +1,{len(added)} @@\n{body}"
    )


@pytest.mark.parametrize(
    ("pattern", "path", "matches"),
    [
        ("**/tests/**", "tests/test_a.py", True),
        ("**/tests/**", "pkg/tests/data/x.json", True),
        ("**/tests/**", "testsuite/a.py", False),
        ("**/test_*.py", "test_top.py", True),
        ("**/test_*.py", "a/b/test_x.py", True),
        ("**/test_*.py", "a/b/test_x.pyc", False),
        ("**/*.test.*", "src/x.test.ts", True),
        ("**/src/test/**", "core/src/test/java/FooTest.java", True),
        ("**/*Test.java", "src/main/java/Contest.java", False),  # case-sensitive
        ("**/*Test.java", "src/test/java/ParserTest.java", True),
        ("src/*.py", "src/a/b.py", False),
    ],
)
def test_globs(pattern: str, path: str, matches: bool) -> None:
    assert bool(glob_regex(pattern).match(path)) is matches


def test_default_rules_per_language() -> None:
    rules = TestPathRules()
    assert rules.is_test("tests/test_x.py", Language.PYTHON)
    assert rules.is_test("pkg/conftest.py", Language.PYTHON)
    assert not rules.is_test("pkg/testing_utils.py", Language.PYTHON)
    assert rules.is_test("src/__tests__/a.js", Language.JAVASCRIPT)
    assert rules.is_test("lib/parse.spec.ts", Language.TYPESCRIPT)
    assert rules.is_test("test/__snapshots__/a.js.snap", Language.JAVASCRIPT)
    assert not rules.is_test("lib/contest.js", Language.JAVASCRIPT)
    assert rules.is_test("core/src/test/java/a/B.java", Language.JAVA)
    assert not rules.is_test("core/src/main/java/a/B.java", Language.JAVA)


def test_rules_from_yaml_replace_named_languages(tmp_path: Path) -> None:
    config = tmp_path / "paths.yaml"
    config.write_text("Python:\n  - 'checks/**'\n")
    rules = TestPathRules.from_yaml(config)
    assert rules.is_test("checks/a.py", Language.PYTHON)
    assert not rules.is_test("tests/test_a.py", Language.PYTHON)
    assert rules.is_test("src/a.test.js", Language.JAVASCRIPT)  # untouched default
    config.write_text("Python: tests\n")
    with pytest.raises(ValueError, match="list of glob"):
        TestPathRules.from_yaml(config)


def test_split_keeps_each_file_section_verbatim() -> None:
    code = _file("pkg/mod.py", ["x = 1"])
    test = _file("tests/test_mod.py", ["def test(): pass"])
    renamed = (
        "diff --git a/tests/old.py b/tests/new.py\nsimilarity index 100%\n"
        "rename from tests/old.py\nrename to tests/new.py\n"
    )
    gone = _file("pkg/gone.py", [], deleted=True)
    split = split_diff(code + test + renamed + gone, Language.PYTHON, TestPathRules())
    assert split.patch == code + gone
    assert split.test_patch == test + renamed
    assert split.test_files == ["tests/test_mod.py", "tests/new.py"]
    sections = diff_sections(code + gone)
    assert [(s.old_path, s.new_path) for s in sections] == [
        ("pkg/mod.py", "pkg/mod.py"),
        ("pkg/gone.py", None),
    ]


def test_new_files_the_tests_use_are_found() -> None:
    new_module = _file("pkg/slugify.py", ["def slugify(text):", "    return text"], new=True)
    new_index = _file("lib/parsers/index.js", ["module.exports = {}"], new=True)
    new_java = _file(
        "src/main/java/a/Helpers.java", ["public final class TextHelper {", "}"], new=True
    )
    unused = _file("pkg/extra.py", ["X = 1"], new=True)
    readme = _file("docs/guide.md", ["# slugify"], new=True)
    tests_py = _file("tests/test_s.py", ["from pkg.slugify import slugify"])
    split = split_diff(new_module + unused + readme + tests_py, Language.PYTHON, TestPathRules())
    assert [(u.path, u.name) for u in new_files_tested(split, Language.PYTHON)] == [
        ("pkg/slugify.py", "slugify")
    ]
    tests_js = _file("test/p.test.js", ["const p = require('../lib/parsers')"])
    split = split_diff(new_index + tests_js, Language.JAVASCRIPT, TestPathRules())
    assert [u.name for u in new_files_tested(split, Language.JAVASCRIPT)] == ["parsers"]
    tests_java = _file("src/test/java/a/HelpersTest.java", ["TextHelper.trim(x);"])
    split = split_diff(new_java + tests_java, Language.JAVA, TestPathRules())
    assert [u.name for u in new_files_tested(split, Language.JAVA)] == ["TextHelper"]
    # A test that only mentions a longer name containing the module name does not count.
    tests_py = _file("tests/test_s.py", ["assert extra_value == 1"])
    split = split_diff(unused + tests_py, Language.PYTHON, TestPathRules())
    assert new_files_tested(split, Language.PYTHON) == []


def test_recipe_renders_dockerfile_and_test_command() -> None:
    recipe = RepoRecipe(
        repo="acme/lib",
        base_image="python:3.11-slim",
        install=["pip install -e .", "pip install pytest"],
        env={"A": "1", "B": "two words"},
        test_command="python -m pytest -rA {test_files} # {test_classes} | {test_modules}",
        log_parser="pytest",
        test_files=["**/test_*.py"],
    )
    runnable = recipe.runnable_tests(["tests/test_a.py", "tests/conftest.py", "tests/my test_b.py"])
    assert runnable == ["tests/test_a.py"]
    command = recipe.render_test_command(["tests/test_a.py", "tests/sub/test b.py"])
    assert command == (
        "python -m pytest -rA tests/test_a.py 'tests/sub/test b.py' "
        "# test_a,test b | tests.test_a tests.sub.test b"
    )
    assert recipe.dockerfile("abc123") == (
        "FROM python:3.11-slim\n"
        "RUN git clone https://github.com/acme/lib.git /testbed\n"
        "WORKDIR /testbed\n"
        "RUN git checkout abc123\n"
        "RUN pip install -e .\n"
        "RUN pip install pytest\n"
        "ENV A=1 \\\n    B='two words'\n"
    )


def test_recipes_load_from_a_directory_and_report_errors(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(RECIPE)
    assert list(load_recipes(tmp_path)) == ["acme/textkit"]
    (tmp_path / "b.yml").write_text(RECIPE.replace("log_parser: pytest", "log_parser: nosuch"))
    with pytest.raises(RecipeError, match=r"b\.yml: log_parser: .*unknown log parser 'nosuch'"):
        load_recipes(tmp_path)
    (tmp_path / "b.yml").write_text("repo: acme/x\n")
    with pytest.raises(RecipeError, match=r"b\.yml: base_image: Field required"):
        load_recipes(tmp_path)
    (tmp_path / "b.yml").write_text(RECIPE)
    with pytest.raises(RecipeError, match="a second recipe for acme/textkit"):
        load_recipes(tmp_path)


def _candidate(number: int, diff: str) -> Candidate:
    return Candidate(
        instance_id=f"acme__textkit-{number}",
        repo="acme/textkit",
        pull_number=number,
        language="Python",
        base_commit="b" * 40,
        created_at="2024-01-01T00:00:00Z",
        issue_numbers=["1"],
        problem_statement="It is broken.",
        hints_text="a hint",
        diff=diff,
    )


def test_build_fills_columns_and_rejects_with_reasons(tmp_path: Path) -> None:
    recipe_file = tmp_path / "r.yaml"
    recipe_file.write_text(RECIPE)
    recipes = load_recipes(recipe_file)
    code = _file("textkit/case.py", ["x = 1"])
    test = _file("tests/test_case.py", ["def test_x(): pass"])
    good = build_instance(_candidate(3, code + test), recipes["acme/textkit"], TestPathRules())
    assert isinstance(good, Instance)
    assert good.instance_id == "acme__textkit-3" and good.language is Language.PYTHON
    assert good.patch == code and good.test_patch == test
    assert good.test_command == "python -m pytest -rA -p no:cacheprovider tests/test_case.py"
    assert good.log_parser == "pytest" and good.created_at == "2024-01-01T00:00:00Z"
    assert good.Dockerfile.startswith("FROM python:3.11-slim\n")
    assert good.base_commit in good.Dockerfile and good.F2P == [] and good.hints_text == "a hint"

    cases = {
        4: code,
        5: test,
        6: "not a diff at all",
        7: _file("textkit/slug.py", ["def slug(): pass"], new=True)
        + _file("tests/test_slug.py", ["from textkit.slug import slug"], new=True),
        8: code + _file("tests/conftest.py", ["import pytest"]),
    }
    outcome = build_all(
        [_candidate(n, d) for n, d in cases.items()]
        + [_candidate(3, code + test), _candidate(3, code + test)]
        + [_candidate(9, code + test).model_copy(update={"repo": "other/repo"})],
        recipes,
        TestPathRules(),
    )
    assert [i.instance_id for i in outcome.instances] == ["acme__textkit-3"]
    reasons = {r.item: r.reason for r in outcome.rejected}
    assert reasons == {
        "acme__textkit-4": "no_test_changes",
        "acme__textkit-5": "no_code_changes",
        "acme__textkit-6": "invalid_patch",
        "acme__textkit-7": "new_file_tested",
        "acme__textkit-8": "no_runnable_tests",
        "acme__textkit-9": "no_recipe",
    }
    assert isinstance(outcome.rejected[3], Rejection)
    assert "textkit/slug.py (test patch mentions 'slug')" in outcome.rejected[3].detail


def test_build_cli_writes_a_loadable_dataset(tmp_path: Path) -> None:
    code = _file("textkit/case.py", ["x = 1"])
    test = _file("tests/test_case.py", ["def test_x(): pass"])
    candidates = tmp_path / "c.jsonl"
    write_jsonl(candidates, [_candidate(3, code + test), _candidate(4, code)])
    (tmp_path / "recipes").mkdir()
    (tmp_path / "recipes" / "t.yaml").write_text(RECIPE)
    for name in ("out.jsonl", "out.csv"):
        out = tmp_path / name
        result = runner.invoke(
            curation_app(),
            ["build", str(candidates), "--recipes", str(tmp_path / "recipes"), "-o", str(out)],
            env={"COLUMNS": "200"},
        )
        assert result.exit_code == 0, result.output
        assert "rejected acme__textkit-4 (no_test_changes)" in result.output
        assert "2 candidates: 1 instances built, rejected: no_test_changes 1" in result.output
        [instance] = load_instances_from_file(out)
        assert instance.patch == code and instance.log_parser == "pytest"
        assert instance.issue_numbers == ["1"]
    report = json.loads((tmp_path / "out.csv.report.json").read_text())
    assert report["rejected"] == {"no_test_changes": 1}
    missing = runner.invoke(curation_app(), ["build", str(candidates), "--recipes", "/nonexist"])
    assert missing.exit_code == 2 and "no such file or directory" in missing.output
