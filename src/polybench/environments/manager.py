"""Prepare (once, cached) and activate (per sandbox) a repository's environment.

Preparing resolves the recipe's toolchains (Node and yarn fetched from the npm registry
when a version is asked for, a JDK and a Python of this machine), then runs the install
steps in a setup checkout of the base commit with those toolchains first on ``PATH``,
and keeps what they made in ``<cache>/envs/<recipe>-<key>``: the venv and the Maven
repository in place, ``node_modules`` folders and other untracked outputs moved there
(see :mod:`polybench.environments.layout`). ``setup.log`` in that folder records every
command, every Dockerfile step that was not run and every toolchain substitution.
"""

from __future__ import annotations

import os
import shlex
import shutil
import stat
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from filelock import FileLock

from polybench.dataset.models import Instance
from polybench.environments.commandneeds import with_nvm_script
from polybench.environments.dockerfile import CHECKOUT, ENV_DIR, WORKDIR
from polybench.environments.errors import ProvisionError
from polybench.environments.integrity import manifest_digest, record, verify
from polybench.environments.layout import Layout, activation_script, capture
from polybench.environments.recipes import PYTHON, Recipe, Step, recipe_for
from polybench.environments.toolchains import (
    Toolchain,
    ToolchainUnavailable,
    java_toolchain,
    maven_toolchain,
    node_toolchain,
    nvm_node_toolchain,
    python_toolchain,
    write_nvm_script,
    write_shims,
    yarn_toolchain,
)
from polybench.paths import cache_root
from polybench.sandbox.base import Sandbox

SETUP_TIMEOUT_SECONDS = 45 * 60
_checked: dict[Path, str | None] = {}
"""Environments found unchanged (or made) by this process, checked once per process, and
the digest of each one's manifest then (its fingerprint)."""
_COMPLETE_MARKER = ".polybench-complete"
_SUMMARY_FILE = "toolchain.txt"
NVM_SCRIPT = "nvm/nvm.sh"


class EnvironmentUnavailable(ProvisionError):
    """The toolchain an instance needs is not installed on this machine."""

    kind = "environment_unavailable"


class EnvironmentSetupError(ProvisionError):
    """Installing dependencies failed; ``log_path`` holds the output."""

    kind = "environment_setup_failed"


@dataclass
class PreparedEnvironment:
    """A ready environment and how to use it in a sandbox.

    ``recipe`` names it for ``result.json``, with any toolchain substitution spelled
    out. ``read_only_paths`` are the folders a sandbox must see (the environment and the
    toolchains it runs with).
    """

    recipe: str
    env_dir: Path | None
    env: dict[str, str] = field(default_factory=dict)
    path_prepend: list[str] = field(default_factory=list)
    links: dict[str, Path] = field(default_factory=dict)
    reused: bool = True
    setup_seconds: float = 0.0
    layout: Layout = field(default_factory=Layout)
    read_only_paths: list[Path] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    rebuilt: str | None = None
    """Why it was rebuilt before this use (it had changed since it was prepared)."""
    nvm_script: Path | None = None
    """The environment's ``nvm.sh``: what the test command's ``. /usr/local/nvm/nvm.sh``
    sources here (it selects the Node versions the environment prepared)."""
    fingerprint: str | None = None
    """What identifies the environment's content (its manifest's digest, an image id):
    answers about it may be kept across runs under this; None: never kept."""

    def test_command(self, command: str) -> str:
        """``command`` as it runs with this environment: an ``nvm.sh`` it sources is the
        environment's own."""
        if self.nvm_script is None:
            return command
        return with_nvm_script(command, str(self.nvm_script))

    def exec_env(self, workdir: str, base_path: str | None = None) -> dict[str, str]:
        """Environment variables for commands in a sandbox whose repository is at ``workdir``."""
        env = {k: v.replace("{workdir}", workdir) for k, v in self.env.items()}
        prepend = [p for p in self.path_prepend if "{workdir}" not in p]
        path = base_path if base_path is not None else os.environ.get("PATH", "")
        env["PATH"] = os.pathsep.join([*prepend, path]) if prepend else path
        return env


def _fill(template: str, env_dir: Path) -> str:
    return template.replace(ENV_DIR, str(env_dir))


def resolve_toolchain(recipe: Recipe, tools_dir: Path) -> Toolchain:
    """The toolchains ``recipe`` needs, fetched or found (raises ToolchainUnavailable)."""
    chain = Toolchain()
    needs = recipe.needs
    if needs.python:
        python_toolchain(needs.python_version, chain)
    if needs.node:
        node_toolchain(needs.node_version, tools_dir, chain)
    for version in needs.nvm_node_versions:
        nvm_node_toolchain(version, tools_dir, chain)
    if needs.yarn:
        yarn_toolchain(tools_dir, chain)
    if needs.java:
        java_toolchain(needs.java_version, chain)
    if needs.maven:
        maven_toolchain(chain)
    return chain


def describe(recipe: Recipe, key: str, chain: Toolchain) -> str:
    """What ``result.json`` calls the environment: recipe, key, where the steps came from
    and every substitution."""
    details = [recipe.source, *(f"substituted: {s}" for s in chain.substitutions)]
    return f"{recipe.name}-{key} ({'; '.join(details)})"


class EnvironmentManager:
    """Installs each distinct dependency set once into ``<cache>/envs/<recipe>-<key>``.

    Toolchains fetched from registries go to ``tools_dir`` (``<cache>/toolchains`` by
    default, next to ``envs``).
    """

    def __init__(self, cache_dir: Path | None = None, tools_dir: Path | None = None) -> None:
        self.cache_dir = cache_dir or cache_root() / "envs"
        self.tools_dir = tools_dir or self.cache_dir.parent / "toolchains"

    def prepare(self, instance: Instance, clone: Path) -> PreparedEnvironment:
        """Make sure ``instance``'s environment exists; install it when it does not."""
        recipe = recipe_for(instance, clone)
        if recipe is None:
            return PreparedEnvironment(recipe="none", env_dir=None)
        started = time.monotonic()
        try:
            chain = resolve_toolchain(recipe, self.tools_dir)
        except ToolchainUnavailable as exc:
            raise EnvironmentUnavailable(
                f"environment unavailable: {instance.language.value}: {exc}"
            ) from exc
        key = recipe.key("\0".join(chain.identity))
        env_dir = self.cache_dir / f"{recipe.name}-{key}"
        self.cache_dir.mkdir(parents=True, exist_ok=True)
        reused = True
        rebuilt: str | None = None
        with FileLock(str(env_dir) + ".lock"):
            if (env_dir / _COMPLETE_MARKER).exists():
                rebuilt = self._changes(env_dir)
            if rebuilt is not None or not (env_dir / _COMPLETE_MARKER).exists():
                reused = False
                self._install(recipe, chain, clone, instance.base_commit, env_dir)
                record(env_dir)
                _checked[env_dir] = manifest_digest(env_dir)
        layout = Layout.load(env_dir)
        nvm_script = env_dir / NVM_SCRIPT
        return PreparedEnvironment(
            recipe=describe(recipe, key, chain),
            env_dir=env_dir,
            env=self._activation_env(recipe, chain, env_dir),
            path_prepend=self._activation_path(recipe, chain, env_dir),
            links={source: env_dir / target for source, target in layout.links.items()},
            reused=reused,
            setup_seconds=time.monotonic() - started,
            layout=layout,
            read_only_paths=[env_dir, *chain.read_only],
            notes=list(chain.notes),
            rebuilt=rebuilt,
            nvm_script=nvm_script if nvm_script.is_file() else None,
            fingerprint=_checked.get(env_dir),
        )

    @staticmethod
    def _changes(env_dir: Path) -> str | None:
        """Why ``env_dir`` must be rebuilt (it changed since it was prepared), or None.

        Checked before its first use in this process; sandboxes see it read-only, so only
        something outside them (an unisolated run, another program) can change it later.
        """
        if env_dir in _checked:
            return None
        found = verify(env_dir)
        if found.ok:
            _checked[env_dir] = manifest_digest(env_dir)
            return None
        return f"environment {env_dir.name} was rebuilt: {found.describe()}"

    @staticmethod
    def _activation_env(recipe: Recipe, chain: Toolchain, env_dir: Path) -> dict[str, str]:
        env = {k: v for k, v in chain.env.items() if k != "npm_config_nodedir"}
        env.update({k: _fill(v, env_dir) for k, v in recipe.activation.env.items()})
        if chain.jdk is not None:
            # The test command may name an official JDK path; the mvn shim maps it.
            env["JAVA_HOME"] = str(chain.jdk.home)
        return env

    @staticmethod
    def _activation_path(recipe: Recipe, chain: Toolchain, env_dir: Path) -> list[str]:
        entries = [_fill(p, env_dir) for p in recipe.activation.path_prepend]
        entries += [str(env_dir / "shims"), *chain.path]
        kept: list[str] = []
        for entry in entries:
            # Never a path of the checkout: the tools come from the environment.
            if WORKDIR in entry or CHECKOUT in entry or entry in kept:
                continue
            kept.append(entry)
        return kept

    def _install(
        self, recipe: Recipe, chain: Toolchain, clone: Path, commit: str, env_dir: Path
    ) -> None:
        if env_dir.exists():
            shutil.rmtree(env_dir)
        env_dir.mkdir(parents=True)
        log_path = env_dir / "setup.log"
        workspace = Path(tempfile.mkdtemp(prefix="polybench-setup-", dir=self.cache_dir))
        checkout = workspace / "repo"
        try:
            with log_path.open("w", encoding="utf-8") as log:
                log.write(f"# environment {env_dir.name}: steps from the {recipe.source}\n")
                for note in [*chain.notes, *recipe.notes]:
                    log.write(f"# {note}\n")
                log.flush()
                self._run(
                    ["git", "clone", "--shared", "-q", "--no-checkout", str(clone), str(checkout)],
                    workspace,
                    log,
                    env_dir,
                )
                self._run(
                    ["git", "-C", str(checkout), "checkout", "-q", "--detach", commit],
                    workspace,
                    log,
                    env_dir,
                )
                write_shims(
                    env_dir / "shims", chain, env_dir / "m2" if recipe.needs.maven else None
                )
                if chain.nodes:
                    write_nvm_script(env_dir / NVM_SCRIPT, chain.nodes)
                env = self._setup_env(recipe, chain, env_dir)
                for step in recipe.install:
                    self._run_step(step, checkout, env, chain, log, env_dir)
                if recipe.needs.python:
                    _relocate_editables(env_dir / "venv", checkout)
                layout = capture(checkout, env_dir)
                for note in layout.notes:
                    log.write(f"# {note}\n")
                layout.save(env_dir)
            (env_dir / _SUMMARY_FILE).write_text("\n".join(chain.notes) + "\n", encoding="utf-8")
            _readable_by_all(env_dir)
            (env_dir / _COMPLETE_MARKER).write_text(recipe.name, encoding="utf-8")
        finally:
            shutil.rmtree(workspace, ignore_errors=True)

    @staticmethod
    def _setup_env(recipe: Recipe, chain: Toolchain, env_dir: Path) -> dict[str, str]:
        env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", CI="true", NO_COLOR="1")
        env.update(chain.env)
        # Global installs (npm install -g) land in the environment, never in a toolchain.
        env["npm_config_prefix"] = str(env_dir / "global")
        path = [_fill(p, env_dir) for p in recipe.activation.path_prepend]
        path = [p for p in path if WORKDIR not in p]
        path += [str(env_dir / "shims"), *chain.path, str(env_dir / "global" / "bin")]
        if recipe.needs.python:
            env["VIRTUAL_ENV"] = str(env_dir / "venv")
            path.insert(0, str(env_dir / "venv" / "bin"))
        if recipe.needs.maven:
            env["MAVEN_OPTS"] = f"-Dmaven.repo.local={env_dir / 'm2'}"
        env["PATH"] = os.pathsep.join([*path, os.environ.get("PATH", "")])
        return env

    def _run_step(
        self,
        step: Step,
        checkout: Path,
        env: dict[str, str],
        chain: Toolchain,
        log: TextIO,
        env_dir: Path,
    ) -> None:
        def fill(text: str) -> str:
            text = text.replace(CHECKOUT, str(checkout)).replace(PYTHON, chain.python or "python3")
            return _fill(text, env_dir)

        nvm_script = env_dir / NVM_SCRIPT
        command = step.command
        if nvm_script.is_file():
            command = with_nvm_script(command, str(nvm_script))

        step_env = dict(env)
        step_env.update({key: fill(value) for key, value in step.env if key != "PATH"})
        cwd = checkout / step.workdir if step.workdir else checkout
        cwd.mkdir(parents=True, exist_ok=True)
        self._run(["bash", "-c", fill(command)], cwd, log, env_dir, step_env)

    @staticmethod
    def _run(
        argv: list[str],
        cwd: Path,
        log: TextIO,
        env_dir: Path,
        env: dict[str, str] | None = None,
    ) -> None:
        log.write(f"$ {shlex.join(argv)}\n")
        log.flush()
        if env is None:
            env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", CI="true", NO_COLOR="1")
        try:
            completed = subprocess.run(
                argv,
                cwd=cwd,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                timeout=SETUP_TIMEOUT_SECONDS,
                check=False,
            )
        except subprocess.TimeoutExpired as exc:
            raise EnvironmentSetupError(
                f"environment setup timed out: {' '.join(argv)}", env_dir / "setup.log"
            ) from exc
        if completed.returncode != 0:
            raise EnvironmentSetupError(
                f"environment setup failed (exit {completed.returncode}): {' '.join(argv)}",
                env_dir / "setup.log",
            )


def forget_checks() -> None:
    """Check every environment again at its next use in this process (as a new process
    would): after something may have changed one outside the sandboxes."""
    _checked.clear()


def _readable_by_all(folder: Path) -> None:
    """Let every user read ``folder`` (a sandbox's user may not be this process's): an
    environment holds no secret, and sandboxes see it read-only."""
    for root, dirs, files in os.walk(folder):
        for name in (*dirs, *files, ""):
            path = os.path.join(root, name) if name else root
            if os.path.islink(path):
                continue
            mode = os.lstat(path).st_mode
            wanted = mode | 0o044 | (0o011 if mode & 0o100 or name in dirs or not name else 0)
            if wanted != mode:
                os.chmod(path, stat.S_IMODE(wanted))


def _relocate_editables(venv: Path, checkout: Path) -> None:
    """Point editable installs made in the setup checkout at ``/testbed``, where every
    bubblewrap sandbox has its repository (the checkout's code is what runs)."""
    old = str(checkout)
    for site in venv.glob("lib/python*/site-packages"):
        candidates = [*site.glob("*.pth"), *site.glob("__editable__*.py"), *site.glob("*.egg-link")]
        candidates += list(site.glob("*.dist-info/direct_url.json"))
        for path in candidates:
            try:
                text = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            if old in text:
                path.write_text(text.replace(old, "/testbed"), encoding="utf-8")


def activation_text(sandbox: Sandbox, prepared: PreparedEnvironment) -> str | None:
    """The script that puts the environment's files into the sandbox's checkout (see
    :func:`activate`), or None when the environment has nothing to put there."""
    if prepared.env_dir is None:
        return None
    layout = prepared.layout
    if not layout.links and not layout.overlay:
        return None
    return activation_script(prepared.env_dir, layout, sandbox.workdir)


def activate(sandbox: Sandbox, prepared: PreparedEnvironment) -> None:
    """Put the environment's files into the sandbox's checkout: links to its
    ``node_modules`` folders (whatever stands at a link's place is removed first, so
    nothing in the checkout can take its place) and the install's other outputs."""
    script = activation_text(sandbox, prepared)
    if script is None:
        return
    path = f"{sandbox.scratch_dir}/activate-environment.sh"
    sandbox.write_file(path, script)
    result = sandbox.exec(["bash", path], timeout=300)
    sandbox.exec(["rm", "-f", path], timeout=60)
    if not result.ok:
        raise EnvironmentSetupError(f"could not activate the environment: {result.output.strip()}")
