"""The harness's probe in every Python process of a test run (loaded as ``sitecustomize``
from a folder the harness puts first on ``PYTHONPATH``; the environment's own
``sitecustomize``, if any, is then loaded as usual).

Just before the first module of the repository is imported (when no code under test has
run yet), it notes every function and method of the test frameworks already loaded
(pytest's runner, reports, terminal reporter and pluggy's hook calling; unittest's case,
result, runner and suite) and the pytest hook implementations registered so far. Its exit
handler, registered before anything else and so run last, compares them with what is
there at the end, and writes what was replaced, by code from which file, and hook
implementations added from which file, as JSON into ``$POLYBENCH_PROBE_OUT``. It prints
nothing, never raises, and leaves everything as it found it.
"""

from __future__ import annotations

import atexit
import contextlib
import gc
import importlib.machinery
import importlib.util
import json
import os
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import Any

_WATCHED = (
    "_pytest.runner", "_pytest.reports", "_pytest.python", "_pytest.terminal", "_pytest.main",
    "_pytest.skipping", "_pytest.outcomes", "_pytest.unittest", "_pytest.fixtures",
    "pluggy._hooks", "pluggy._callers", "pluggy._manager",
    "unittest.case", "unittest.result", "unittest.runner", "unittest.suite", "unittest.main",
)  # fmt: skip
_ROOT = os.environ.get("POLYBENCH_PROBE_ROOT", "/testbed").rstrip("/") + "/"
_OUT = os.environ.get("POLYBENCH_PROBE_OUT", "")
_snapshot: dict[tuple[str, str], Any] = {}
_hooks_before: set[int] = set()
_state = {"taken": False}


def _members(module: ModuleType) -> dict[str, Any]:
    """The module's own functions and the methods of its own classes, by qualified name."""
    found: dict[str, Any] = {}
    for name, value in list(vars(module).items()):
        if getattr(value, "__module__", None) != module.__name__:
            continue
        if callable(value) and not isinstance(value, type):
            found[name] = value
        elif isinstance(value, type):
            for key, member in list(vars(value).items()):
                if callable(member) or isinstance(member, (classmethod, staticmethod)):
                    found[f"{name}.{key}"] = member
    return found


def _plugin_managers() -> list[Any]:
    kinds = tuple(
        cls
        for name in ("pluggy._manager",)
        if name in sys.modules
        for cls in [getattr(sys.modules[name], "PluginManager", None)]
        if isinstance(cls, type)
    )
    return [o for o in gc.get_objects() if kinds and isinstance(o, kinds)] if kinds else []


def _hookimpls() -> dict[int, Any]:
    found: dict[int, Any] = {}
    for manager in _plugin_managers():
        for caller in vars(manager.hook).values():
            for impl in getattr(caller, "get_hookimpls", lambda: [])():
                found[id(impl)] = impl
    return found


def _take() -> None:
    _state["taken"] = True
    for module_name in _WATCHED:
        module = sys.modules.get(module_name)
        if module is not None:
            for name, value in _members(module).items():
                _snapshot[(module_name, name)] = value
    _hooks_before.update(_hookimpls())


def _origin(value: Any) -> str | None:
    """The file that defines ``value`` (a function, method, wrapper), when one does."""
    for _ in range(4):
        code = getattr(value, "__code__", None)
        if code is not None:
            return str(code.co_filename)
        value = (
            getattr(value, "__func__", None)
            or getattr(value, "func", None)
            or getattr(value, "__wrapped__", None)
            or (type(value).__call__ if callable(value) else None)
        )
        if value is None:
            return None
    return None


def _report() -> None:
    if not _OUT:
        return
    replaced = []
    for (module_name, name), before in _snapshot.items():
        module = sys.modules.get(module_name)
        owner: Any = module
        for part in name.split(".")[:-1]:
            owner = getattr(owner, part, None)
        now = vars(owner).get(name.split(".")[-1]) if owner is not None else None
        if now is not before:
            replaced.append({"name": f"{module_name}.{name}", "by": _origin(now)})
    hooks = [
        {"name": impl.function.__name__, "by": _origin(impl.function)}
        for key, impl in _hookimpls().items()
        if key not in _hooks_before and _origin(impl.function) is not None
    ]
    record = {
        "pid": os.getpid(),
        "language": "python",
        "snapshot": _state["taken"],
        "watched": len(_snapshot),
        "replaced": replaced,
        "hooks": hooks,
    }
    path = os.path.join(_OUT, f"python-{os.getpid()}.json")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(json.dumps(record) + "\n")


def _safely_report() -> None:
    # The probe must never change how a run ends.
    with contextlib.suppress(BaseException):
        _report()


class _FirstRepositoryImport:
    """A finder that finds nothing: it notices the first module found in the repository,
    takes the snapshot, and steps aside."""

    @staticmethod
    def find_spec(
        name: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> None:
        if _state["taken"]:
            return None
        try:
            spec = importlib.machinery.PathFinder.find_spec(name, path)
            origin = spec.origin if spec is not None else None
            if origin and origin.startswith(_ROOT) and "/node_modules/" not in origin:
                _take()
                sys.meta_path[:] = [f for f in sys.meta_path if f is not _FirstRepositoryImport]
        except BaseException:
            pass
        return None


def _chain() -> None:
    """Load the ``sitecustomize`` this one hides, if the environment has one."""
    here = os.path.dirname(os.path.abspath(__file__))
    rest = [p for p in sys.path if os.path.abspath(p or ".") != here]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", rest)
    if spec is not None and spec.loader is not None:
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)


try:
    atexit.register(_safely_report)
    sys.meta_path.insert(0, _FirstRepositoryImport)
except BaseException:
    pass
# The environment's own file failing is its own business.
with contextlib.suppress(Exception):
    _chain()
