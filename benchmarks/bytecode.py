"""Compile polybench's modules to bytecode before a benchmark times the command line.

A regular ``pip install`` compiles every module; an editable install (or a shell with
``PYTHONDONTWRITEBYTECODE`` set) may have none, and then every start of the command
line compiles the modules it imports again. The benchmarks time what an installed
``polybench`` costs, so they compile first (into the usual ``__pycache__`` folders).
"""

from __future__ import annotations

import compileall
import re
import sys
from pathlib import Path

import polybench


def compile_polybench() -> Path:
    """Compile the imported ``polybench`` package's modules; returns the package folder."""
    package = Path(polybench.__file__).resolve().parent
    # The built-in dataset's repositories are data, not modules of polybench: they ship
    # without bytecode.
    data = re.compile(r"/mini_data/")
    if not compileall.compile_dir(str(package), quiet=1, workers=1, rx=data):
        print(f"warning: some modules of {package} did not compile", file=sys.stderr)
    return package
