"""Commands are built when used: the group's help imports no command module, and the
summaries it prints are the commands' own first lines."""

from __future__ import annotations

import pytest
import typer
from typer.testing import CliRunner

from polybench.cli.lazy_commands import LazyCommand, LazyCommands
from polybench.cli.main import COMMANDS, app
from tests.cli.imports import calling_the_cli, modules_after

COMMAND_MODULES = {entry.target.partition(":")[0] for entry in COMMANDS.values()} - {
    "polybench.cli.main"
}


def test_top_level_help_imports_no_command_module() -> None:
    imported = modules_after(calling_the_cli("['--help']"))
    assert "polybench.cli.main" in imported
    assert not imported & COMMAND_MODULES, sorted(imported & COMMAND_MODULES)


def test_a_command_imports_its_own_module_only() -> None:
    imported = modules_after(calling_the_cli("['parse-log', '--help']"))
    assert imported & COMMAND_MODULES == {"polybench.cli.parse_log_cmd"}


@pytest.mark.parametrize("name", list(COMMANDS))
def test_summary_is_the_start_of_the_commands_own_help(name: str) -> None:
    command = typer.main.get_command(app).commands[name]
    own = " ".join((command.help or "").split("\n\n")[0].split())
    assert own == COMMANDS[name].summary


def test_every_command_is_listed_in_order_and_runs() -> None:
    runner = CliRunner()
    listed = runner.invoke(app, ["--help"], env={"COLUMNS": "200"})
    assert listed.exit_code == 0
    positions = [listed.output.index(f"\n  {name} ") for name in COMMANDS]
    assert positions == sorted(positions)
    version = runner.invoke(app, ["version"])
    assert version.exit_code == 0 and version.output.strip()


def test_a_mistyped_command_is_refused_with_a_suggestion() -> None:
    result = CliRunner().invoke(app, ["evl"])
    assert result.exit_code == 2
    assert "No such command 'evl'" in result.output and "eval" in result.output


def test_the_mapping_builds_on_access_and_rejects_unknown_names() -> None:
    built: list[str] = []
    table = {
        "version": LazyCommand("polybench.cli.main:version_command", "Print the version."),
        "docker": LazyCommand("polybench.cli.docker_cmd:docker_app", "Docker."),
    }
    commands = LazyCommands(table, prepare=lambda command: built.append(str(command.name)))
    assert list(commands) == ["version", "docker"] and len(commands) == 2
    assert commands.summary("docker") == "Docker." and built == []
    docker = commands["docker"]
    assert docker.name == "docker" and built == ["docker"]
    assert list(getattr(docker, "commands", {})) == ["clean"]  # a group, even of one command
    assert commands["docker"] is commands["docker"] and built == ["docker"]
    assert "nope" not in commands
    with pytest.raises(KeyError):
        commands["nope"]
    with pytest.raises(TypeError):
        del commands["docker"]


@pytest.mark.parametrize("name", list(COMMANDS))
def test_a_commands_help_is_the_same_with_or_without_group_options(name: str) -> None:
    """``polybench COMMAND --help`` is answered before the group's options are read; it
    prints what the full path (through ``--quiet``) prints."""
    runner = CliRunner()
    direct = runner.invoke(app, [name, "--help"], env={"COLUMNS": "100"})
    through = runner.invoke(app, ["--quiet", name, "--help"], env={"COLUMNS": "100"})
    assert direct.exit_code == through.exit_code == 0
    assert direct.output == through.output
    assert f"polybench {name} [OPTIONS]" in direct.output


def test_version_prints_the_version_alone() -> None:
    from polybench import __version__

    runner = CliRunner()
    for args in (["version"], ["--quiet", "version"]):
        done = runner.invoke(app, args)
        assert (done.exit_code, done.output) == (0, f"{__version__}\n")
