"""What an instance's test command needs of its environment, read from the command itself.

An environment is built from the instance's install steps (its ``Dockerfile`` column, or
an inferred recipe), but the test command can ask for more, and it runs without network:

* every ``mvn`` call resolves the plugins its goals name (``surefire-report:report``) and
  the Surefire provider of the repository's tests. Each call becomes a step run once
  while the environment is prepared, online, with the same goals and options and with
  test failures ignored; the commands that set up its shell before it (``export
  JAVA_HOME=...``, ``update-alternatives``, ``cd``) come along;
* ``nvm use X`` (after ``. /usr/local/nvm/nvm.sh``) selects a Node version that must be
  installed already.

This module is the one description of those needs. The local backend adds the steps to
its recipe and fetches the Node versions (:mod:`polybench.environments.recipes`); the
Docker backend adds the same steps and Node installs to the environment image, and to a
layer on a pulled prebuilt image (:mod:`polybench.environments.images.prepare`).
"""

from __future__ import annotations

import hashlib
import re
import shlex
from dataclasses import dataclass
from pathlib import PurePosixPath

from polybench.environments.dockerfile import node_spec
from polybench.environments.shellwords import Segment, command_words, split_commands

NEEDS_VERSION = "1"
DEFAULT_NVM_SCRIPT = "/usr/local/nvm/nvm.sh"
MAVEN_RESOLVE_FLAGS = (
    "-Dmaven.test.failure.ignore=true",
    "-DfailIfNoTests=false",
    "-Dsurefire.failIfNoSpecifiedTests=false",
)
"""Added to each Maven step: the base commit's failing tests must not stop it."""
_TEST_SELECTION = ("-Dtest=", "-Dit.test=")
_OFFLINE = ("-o", "--offline")
_SHELL_SETUP = frozenset({"export", "cd", "pushd", "update-alternatives", "set", "unset"})
"""Commands whose effect lasts for the rest of the command line (kept before a step)."""


@dataclass(frozen=True)
class PrepareStep:
    """One command to run once, online, in the repository's root while preparing.

    ``command`` uses the container's paths (``/testbed``); ``key`` is what a cache key
    records instead (the test selection, which changes from instance to instance while
    the needs do not, left out).
    """

    command: str
    key: str


@dataclass(frozen=True)
class CommandNeeds:
    """Everything a test command needs prepared; empty when it needs nothing."""

    steps: tuple[PrepareStep, ...] = ()
    node_versions: tuple[str, ...] = ()
    """Node versions (npm ranges: ``12``, ``16.20``) the command selects with nvm."""
    nvm_script: str = DEFAULT_NVM_SCRIPT
    """The ``nvm.sh`` the command sources (container path, variables unexpanded)."""

    @property
    def empty(self) -> bool:
        """True when there is nothing to prepare."""
        return not self.steps and not self.node_versions

    def key(self) -> str:
        """A digest of the needs (not of the test selection)."""
        digest = hashlib.sha256(f"needs {NEEDS_VERSION}\0".encode())
        for step in self.steps:
            digest.update(f"step\0{step.key}\0".encode())
        for version in self.node_versions:
            digest.update(f"node\0{version}\0".encode())
        return digest.hexdigest()[:24]


def _program(argv: list[str]) -> str:
    return PurePosixPath(argv[0]).name if argv else ""


def _is_nvm_source(argv: list[str]) -> bool:
    return _program(argv) in (".", "source") and len(argv) > 1 and argv[1].endswith("nvm.sh")


def _is_setup(argv: list[str]) -> bool:
    return _program(argv) in _SHELL_SETUP or _is_nvm_source(argv) or _program(argv) == "nvm"


def _maven_step(setup: list[Segment], argv: list[str]) -> PrepareStep:
    args = [
        a
        for a in argv[1:]
        if a not in _OFFLINE
        and not any(a.startswith(flag.split("=")[0] + "=") for flag in MAVEN_RESOLVE_FLAGS)
    ]
    key_args = [a for a in args if not a.startswith(_TEST_SELECTION)]
    prefix = "".join(f"{segment.text} && " for segment in setup)
    command = " ".join([argv[0], *map(shlex.quote, args), *MAVEN_RESOLVE_FLAGS])
    key = " ".join([argv[0], *map(shlex.quote, key_args), *MAVEN_RESOLVE_FLAGS])
    return PrepareStep(prefix + command, prefix + key)


def _nvm_version(argv: list[str]) -> str | None:
    positional = [a for a in argv[1:] if not a.startswith("-")]
    if positional[:1] in (["install"], ["i"], ["use"]) and len(positional) > 1:
        return node_spec(positional[1])
    return None


def command_needs(test_command: str) -> CommandNeeds:
    """What ``test_command`` needs prepared (see the module docstring)."""
    steps: list[PrepareStep] = []
    versions: list[str] = []
    nvm_script = DEFAULT_NVM_SCRIPT
    setup: list[Segment] = []
    previous = ""
    for segment in split_commands(test_command):
        argv = command_words(segment.text)
        piped = previous == "|" or segment.operator == "|"
        previous = segment.operator
        if not argv:
            continue
        if _is_nvm_source(argv):
            nvm_script = argv[1]
        if _program(argv) == "nvm":
            version = _nvm_version(argv)
            if version is not None and version not in versions:
                versions.append(version)
        if _program(argv) in ("mvn", "mvnw"):
            step = _maven_step(setup, argv)
            if all(s.key != step.key for s in steps):
                steps.append(step)
        elif _is_setup(argv) and not piped:
            # A command in a pipeline runs in a subshell: its setup does not last.
            setup.append(Segment(segment.text, "&&"))
    return CommandNeeds(tuple(steps), tuple(versions), nvm_script)


_SOURCED_NVM = re.compile(
    r"(?P<lead>(?:^|[;&|(\n])\s*(?:\.|source)\s+)(?P<quote>[\"']?)(?P<path>[^\s;&|()\"']*nvm\.sh)"
    r"(?P=quote)(?=$|[\s;&|)])"
)


def with_nvm_script(test_command: str, script: str) -> str:
    """``test_command`` sourcing ``script`` wherever it sources an ``nvm.sh``
    (``. /usr/local/nvm/nvm.sh``, ``source "$NVM_DIR/nvm.sh"``); the rest is unchanged."""
    quoted = shlex.quote(script)
    return _SOURCED_NVM.sub(lambda match: f"{match['lead']}{quoted}", test_command)
