"""The script that runs an instance's test command between markers."""

from __future__ import annotations

import re
from dataclasses import dataclass

START_MARKER = ">>>>> polybench: test command start"
END_MARKER = ">>>>> polybench: test command end"
_END_LINE = re.compile(re.escape(END_MARKER) + r" \(exit (-?\d+)\)")


def eval_script(workdir: str, test_command: str) -> str:
    """A bash script that runs ``test_command`` in ``workdir`` and reports its exit code.

    The script itself exits with the test command's exit code, so a log whose end
    marker disagrees with the process exit code was forged by the code under test.
    """
    return "\n".join(
        [
            "#!/bin/bash",
            f"cd {workdir} || exit 97",
            f"echo '{START_MARKER}'",
            "set +e",
            "(",
            test_command,
            ")",
            "polybench_exit=$?",
            f'echo "{END_MARKER} (exit $polybench_exit)"',
            "exit $polybench_exit",
            "",
        ]
    )


@dataclass(frozen=True)
class MarkedLog:
    """The part of a log between the markers, and the exit code the end marker reports."""

    body: str
    started: bool
    ended: bool
    exit_code: int | None


def split_log(log: str) -> MarkedLog:
    """Cut the test section out of a full log (first start marker, last end marker)."""
    start = log.find(START_MARKER)
    if start < 0:
        return MarkedLog(body=log, started=False, ended=False, exit_code=None)
    body_start = log.find("\n", start)
    body_start = len(log) if body_start < 0 else body_start + 1
    end_match = None
    for match in _END_LINE.finditer(log, body_start):
        end_match = match
    if end_match is None:
        return MarkedLog(body=log[body_start:], started=True, ended=False, exit_code=None)
    return MarkedLog(
        body=log[body_start : end_match.start()],
        started=True,
        ended=True,
        exit_code=int(end_match.group(1)),
    )
