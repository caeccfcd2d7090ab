"""What a fresh interpreter has imported after running some code, for the start-up tests."""

from __future__ import annotations

import json
import subprocess
import sys


def modules_after(code: str) -> set[str]:
    """Every module imported once ``code`` has run in a fresh interpreter."""
    script = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=600, check=True
    )
    return set(json.loads(done.stdout.splitlines()[-1]))


def calling_the_cli(args: str) -> str:
    """Code that runs ``polybench`` with the argument list ``args`` (a Python literal)."""
    call = f"app({args}, prog_name='polybench')"
    return f"from polybench.cli.main import app\ntry:\n    {call}\nexcept SystemExit:\n    pass"
