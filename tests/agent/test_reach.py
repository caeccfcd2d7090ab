"""Whether an agent command's program can start in its sandbox, told before a run starts:
the program word, links and ``#!`` interpreters followed, the folder to mount named."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from polybench.agent.reach import program_word, suggested_mount, unreachable_program
from polybench.agent.runner import AgentInputError, AgentRunConfig, run_agents
from polybench.agent.settings import AgentSettings
from polybench.sandbox.boundary import current_boundary
from polybench.sandbox.local import bubblewrap_available
from polybench.sandbox.mounts import MountPlan, is_within


@pytest.mark.parametrize(
    ("command", "word"),
    [
        ("mini -y --task x", "mini"),
        ("A=1 B='two words' /opt/x/bin/agent --go", "/opt/x/bin/agent"),
        ("exec env aider --yes", "aider"),
        ("cd sub && agent", None),
        ("if true; then agent; fi", None),
        ("$AGENT --go", None),
        ("echo 'unclosed", None),
        ("./run-agent.sh", "./run-agent.sh"),
    ],
)
def test_the_program_word_is_what_the_shell_starts_first(command: str, word: str | None) -> None:
    assert program_word(command) == word


def make_venv(root: Path) -> tuple[Path, Path]:
    """A venv-like install whose script's interpreter links to a base Python elsewhere."""
    base = root / "pythons" / "3.x"
    (base / "bin").mkdir(parents=True)
    python = base / "bin" / "python3.x"
    python.write_text("#!/bin/sh\necho python\n")
    python.chmod(0o755)
    venv = root / "agents" / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text(f"home = {base / 'bin'}\n")
    (venv / "bin" / "python").symlink_to(python)
    script = venv / "bin" / "agent"
    script.write_text(f"#!{venv / 'bin' / 'python'}\nprint('hi')\n")
    script.chmod(0o755)
    return venv, base


def plan_shows(*folders: Path, hidden: tuple[Path, ...] = ()) -> object:
    # The test's folders lie under /tmp, which real sandboxes replace with their own.
    plan = MountPlan(read_only=tuple(f.resolve() for f in folders), hidden=hidden, private=())
    return plan.shows


def test_a_venv_needs_its_own_folder_and_its_base_python(tmp_path: Path) -> None:
    venv, base = make_venv(tmp_path)
    script = str(venv / "bin" / "agent")
    nothing = unreachable_program(script, plan_shows(), "")
    assert nothing is not None and f"add --agent-mount {venv.resolve()}" in nothing
    venv_only = unreachable_program(f"{script} --go", plan_shows(venv), "")
    assert venv_only is not None
    assert f"add --agent-mount {base.resolve()}" in venv_only
    assert "python3.x" in venv_only and str(venv / "bin" / "python") in venv_only
    assert unreachable_program(script, plan_shows(venv, base), "") is None


def test_a_bare_program_name_is_looked_up_on_path(tmp_path: Path) -> None:
    venv, base = make_venv(tmp_path)
    search = os.pathsep.join(["/nonexistent", str(venv / "bin")])
    assert unreachable_program("agent --go", plan_shows(venv, base), search) is None
    hidden_base = unreachable_program("agent --go", plan_shows(venv), search)
    assert hidden_base is not None and str(base.resolve()) in hidden_base
    missing = unreachable_program("no-such-agent", plan_shows(venv, base), search)
    assert missing == "the agent command's program 'no-such-agent' is not on PATH"


def test_a_program_inside_a_hidden_folder_is_not_seen(tmp_path: Path) -> None:
    venv, _ = make_venv(tmp_path)
    shows = plan_shows(tmp_path, hidden=(venv.resolve(),))
    problem = unreachable_program(str(venv / "bin" / "agent"), shows, "")
    assert problem is not None and "do not see" in problem


def test_system_programs_are_seen(tmp_path: Path) -> None:
    assert unreachable_program("bash -c 'echo hi'", plan_shows(), os.environ["PATH"]) is None
    assert unreachable_program("/usr/bin/env python3 -V", plan_shows(), "") is None


def test_in_a_container_only_what_leaves_a_mounted_folder_is_refused(tmp_path: Path) -> None:
    venv, base = make_venv(tmp_path)

    def container_shows(*mounts: Path) -> object:
        resolved = [m.resolve() for m in mounts]
        return lambda path: True if any(is_within(path, m) for m in resolved) else None

    script = str(venv / "bin" / "agent")
    problem = unreachable_program(script, container_shows(venv), "")
    assert problem is not None and f"add --agent-mount {base.resolve()}" in problem
    assert unreachable_program(script, container_shows(venv, base), "") is None
    # Programs outside what is mounted may be the image's own: only the container can tell.
    assert unreachable_program("/opt/image-only/bin/agent", container_shows(), "") is None
    assert unreachable_program("python3 -V", container_shows(), os.environ["PATH"]) is None
    assert unreachable_program("image-agent", container_shows(), "", image=True) is None


def test_the_suggested_mount_is_the_installation(tmp_path: Path) -> None:
    venv, base = make_venv(tmp_path)
    assert suggested_mount(venv / "bin" / "agent") == venv
    assert suggested_mount(base / "bin" / "python3.x") == base
    assert suggested_mount(tmp_path / "tool") == tmp_path


def config(tmp_path: Path, **values: object) -> AgentRunConfig:
    return AgentRunConfig.model_validate(
        {
            "agent": AgentSettings(model="m", base_url="http://127.0.0.1:9/v1"),
            "output_dir": tmp_path / "runs",
            "backend_options": {"isolation": "bubblewrap"},
            **values,
        }
    )


@pytest.mark.skipif(not bubblewrap_available(), reason="bubblewrap cannot run here")
def test_a_run_whose_program_its_sandboxes_cannot_see_is_refused(tmp_path: Path) -> None:
    # Outside /tmp, whose content sandboxes never see.
    with tempfile.TemporaryDirectory(dir=Path.home(), prefix=".polybench-test-") as folder:
        venv, base = make_venv(Path(folder))
        command = f"{venv / 'bin' / 'agent'} --task x"
        with pytest.raises(AgentInputError, match=f"add --agent-mount {base.resolve()}$"):
            run_agents(config(tmp_path, agent_command=command, agent_mounts=[venv]))
        # With both mounted the run starts (on no instance; no model to check).
        run = run_agents(config(tmp_path, agent_command=command, agent_mounts=[venv, base],
                                dataset=[], check_endpoint=False))  # fmt: skip
    assert run.records == {}


@pytest.mark.skipif(not bubblewrap_available(), reason="bubblewrap cannot run here")
def test_a_mount_in_the_sandboxes_private_tmp_is_refused(tmp_path: Path) -> None:
    venv, _ = make_venv(tmp_path)
    with pytest.raises(AgentInputError, match="their /tmp and /var/tmp are their own"):
        run_agents(config(tmp_path, agent_command="true", agent_mounts=[venv]))
    assert not (tmp_path / "runs").exists()


def test_a_mount_inside_the_harness_folders_is_refused(tmp_path: Path) -> None:
    inside = tmp_path / "runs" / "earlier-run"
    inside.mkdir(parents=True)
    with pytest.raises(AgentInputError, match="sandboxes must not see"):
        run_agents(config(tmp_path, agent_command="true", agent_mounts=[inside]))


@pytest.mark.skipif(not bubblewrap_available(), reason="bubblewrap cannot run here")
def test_a_mount_the_sandbox_user_cannot_read_is_refused(tmp_path: Path) -> None:
    boundary = current_boundary()
    if boundary is None or boundary.uid == os.geteuid():
        pytest.skip("the sandboxes run as this process's user")
    with tempfile.TemporaryDirectory(dir=Path.home(), prefix=".polybench-test-") as folder:
        venv, base = make_venv(Path(folder))
        command = f"{venv / 'bin' / 'agent'} --task x"
        Path(folder).chmod(0o755)
        venv.chmod(0o700)
        with pytest.raises(AgentInputError, match=f"chmod o\\+rx {venv.resolve()}"):
            run_agents(config(tmp_path, agent_command=command, agent_mounts=[venv, base]))
