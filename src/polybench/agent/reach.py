"""Whether an agent command's program can start inside its sandbox, checked before a run.

A sandbox sees only some of this machine's folders (the system folders and what is
mounted into it). A program installed elsewhere is simply absent there, and so is the
interpreter a script names or a link points to: a venv's ``bin/python`` is a link to the
Python it was made with, which must be visible too. :func:`unreachable_program` follows
the command's program the way the kernel does (each link, then a script's ``#!`` line),
asks at every step whether the sandbox shows that path, and names the folder to mount
when it does not.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Callable
from pathlib import Path

from polybench.sandbox.mounts import is_within, system_folders

Shows = Callable[[Path], "bool | None"]
"""Whether sandboxes see a host path: True, False, or None when only the sandbox can tell
(a path of a container image)."""

_MAX_STEPS = 40
# fmt: off
_KEYWORDS = frozenset((
    "if", "then", "else", "elif", "fi", "case", "esac", "for", "select", "while", "until",
    "do", "done", "in", "function", "time", "{", "}", "!", "[[", "]]", "(", ")",
))
_BUILTINS = frozenset((
    ".", ":", "[", "alias", "bg", "bind", "break", "builtin", "caller", "cd", "compgen",
    "complete", "continue", "declare", "dirs", "disown", "echo", "enable", "eval", "exit",
    "export", "false", "fc", "fg", "getopts", "hash", "help", "history", "jobs", "kill", "let",
    "local", "logout", "mapfile", "popd", "printf", "pushd", "pwd", "read", "readarray",
    "readonly", "return", "set", "shift", "shopt", "source", "suspend", "test", "times", "trap",
    "true", "type", "typeset", "ulimit", "umask", "unalias", "unset", "wait",
))
# fmt: on


def program_word(command: str) -> str | None:
    """The program the shell command starts first (after ``NAME=value`` assignments and a
    leading ``exec``/``command``), or None when that is a shell builtin or keyword, or the
    command cannot be read without running a shell."""
    try:
        lexer = shlex.shlex(command, posix=True, punctuation_chars=";&|()<>")
        lexer.whitespace_split = True
        words = list(lexer)
    except ValueError:
        return None
    for word in words:
        if "=" in word and word.split("=", 1)[0].isidentifier():
            continue
        if word in ("exec", "command", "env", "nohup"):
            continue
        if word in _KEYWORDS or word in _BUILTINS or word[0] in ";&|()<>$`":
            return None
        return word
    return None


def suggested_mount(path: Path) -> Path:
    """The folder to mount for ``path``: its installation (the folder above ``bin/``, or
    a venv's folder), else its own folder."""
    for folder in path.parents:
        if (folder / "pyvenv.cfg").is_file():
            return folder
    parent = path.parent
    return parent.parent if parent.name in ("bin", "sbin") else parent


def _step_location(path: Path) -> Path:
    """``path`` with its folders' links resolved (the path itself may be a link)."""
    return Path(os.path.realpath(path.parent)) / path.name


def _interpreter(path: Path) -> str | None:
    try:
        with path.open("rb") as handle:
            first = handle.readline(512)
    except OSError:
        return None
    if not first.startswith(b"#!"):
        return None
    parts = first[2:].decode("utf-8", errors="replace").split()
    if not parts:
        return None
    if Path(parts[0]).name == "env" and len(parts) > 1:
        return next((p for p in parts[1:] if not p.startswith("-")), None)
    return parts[0]


def _on_path(word: str, search_path: str, shows: Shows) -> Path | None:
    """The first ``word`` on ``search_path`` that the sandbox shows, else the first one
    this machine has (which the caller then reports), else None."""
    first: Path | None = None
    for folder in search_path.split(os.pathsep):
        if not folder:
            continue
        candidate = Path(folder) / word
        if not (candidate.is_file() and os.access(candidate, os.X_OK)):
            continue
        if shows(_step_location(candidate)) is not False:
            return candidate
        first = first or candidate
    return first


def unreachable_program(
    command: str, shows: Shows, search_path: str, image: bool = False
) -> str | None:
    """Why ``command``'s program cannot start in the sandbox, in one line, or None when it
    can (or when it cannot be told before the sandbox runs it: a shell builtin first, a
    program only a container image has). With ``image`` the sandbox has files of its own,
    so a program this machine lacks may still be there."""
    word = program_word(command)
    if word is None or ("/" in word and not word.startswith("/")):
        return None  # a builtin, or a path in the repository
    if "/" in word:
        path = Path(word)
    else:
        found = _on_path(word, search_path, shows)
        if found is None:
            return None if image else f"the agent command's program {word!r} is not on PATH"
        path = found
    return _follow(word, path, shows)


def _only_here(location: Path) -> bool:
    """True for a path this machine has outside its system folders (an image has its own
    system folders, but not this machine's other installations)."""
    return location.exists() and not any(is_within(location, f) for f in system_folders())


def _follow(word: str, start: Path, shows: Shows) -> str | None:
    path = start
    via = ""
    mounted = False
    for _ in range(_MAX_STEPS):
        location = _step_location(path)
        seen = shows(location)
        if seen is None and not (mounted and _only_here(location)):
            return None  # the sandbox's own file (a container image's): only it can tell
        mounted = bool(seen)
        if not seen:
            mount = suggested_mount(location)
            return (
                f"the agent command's program {word!r} needs {location}{via}, which its "
                f"sandboxes do not see: add --agent-mount {mount}"
            )
        if location.is_symlink():
            target = Path(os.readlink(location))
            path = target if target.is_absolute() else location.parent / target
            via = f" (through {location})"
            continue
        if not location.exists():
            return f"the agent command's program {word!r} does not exist: {location}"
        interpreter = _interpreter(location)
        if interpreter is None:
            return None
        if "/" not in interpreter:
            found = _on_path(interpreter, os.environ.get("PATH", ""), shows)
            if found is None:
                return f"the agent command's program {word!r} needs {interpreter!r}, not on PATH"
            interpreter = str(found)
        path = Path(interpreter)
        via = f" (the interpreter of {location})"
    return f"the agent command's program {word!r} goes through too many links and interpreters"
