"""Starting ``polybench`` imports no heavy library: commands import theirs when they run."""

from __future__ import annotations

from tests.cli.imports import calling_the_cli, modules_after

HEAVY = (
    "aiohttp",
    "docker",
    "httpx",
    "huggingface_hub",
    "matplotlib",
    "numpy",
    "openai",
    "pandas",
    "pyarrow",
    "pydantic",
    "ray",
    "requests",
    "scipy",
    "tree_sitter",
)
"""Each takes tens to hundreds of milliseconds to import (pydantic: to build models)."""


def _modules_after(code: str) -> set[str]:
    """The top-level packages imported once ``code`` has run in a fresh interpreter."""
    return {name.split(".")[0] for name in modules_after(code)}


def test_importing_the_command_line_imports_no_heavy_library() -> None:
    imported = _modules_after("import polybench.cli.main")
    assert "typer" in imported and "polybench" in imported
    assert not imported & set(HEAVY), sorted(imported & set(HEAVY))


def test_building_every_command_imports_no_heavy_library() -> None:
    """Typer reads every signature and default when it builds a command (reading the
    group's commands builds them all)."""
    imported = _modules_after(
        "import typer\nfrom polybench.cli.main import app\n"
        "built = list(typer.main.get_command(app).commands.values())"
    )
    assert not imported & set(HEAVY), sorted(imported & set(HEAVY))


def test_top_level_help_imports_no_heavy_library() -> None:
    imported = _modules_after(calling_the_cli("['--help']"))
    assert not imported & set(HEAVY), sorted(imported & set(HEAVY))


def test_annotating_without_the_llm_does_not_import_its_client() -> None:
    imported = _modules_after(
        "import polybench.curation.annotate, polybench.curation.classify, polybench.curation.llm"
    )
    assert "openai" not in imported


def test_version_and_a_commands_help_import_no_heavy_library() -> None:
    """Typer checks every option value it reads with pydantic: these read none."""
    for args in ("['version']", "['eval', '--help']", "['agent', '--help']"):
        imported = _modules_after(calling_the_cli(args))
        assert not imported & set(HEAVY), (args, sorted(imported & set(HEAVY)))


def test_a_commands_help_does_not_import_rich() -> None:
    """Consoles are made on first use: help is printed by click's plain formatter."""
    assert "rich" not in _modules_after(calling_the_cli("['eval', '--help']"))


def test_a_local_evaluation_imports_only_what_every_run_uses() -> None:
    """The modules ``polybench eval`` imports before its first instance: pydantic (the
    dataset's models) and tree-sitter's binding (canaries arm test files; its grammars load
    per language on first use) are needed, Docker, Ray, the LLM clients and YAML (a
    test-path rules file) only when a run asks for them."""
    imported = _modules_after(
        "import polybench.cli.eval_cmd, polybench.cli.progress, polybench.runner.api"
    )
    assert "pydantic" in imported
    unused = (set(HEAVY) - {"pydantic", "tree_sitter"}) | {"yaml"}
    unused |= {f"tree_sitter_{name}" for name in ("java", "javascript", "python", "typescript")}
    assert not imported & unused, sorted(imported & unused)
