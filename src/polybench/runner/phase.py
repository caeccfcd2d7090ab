"""One sandbox entry per step: a step's commands run as one bash script that writes a report.

Each step of the per-instance pipeline (inspect the checkout, apply the model patch,
restore and install the tests, prepare the run) runs its commands in one script instead
of one sandbox start per command. The script gets a folder of its own in the scratch
directory, named with a fresh random nonce, holding its inputs (NUL-separated path lists,
the patch); when it ends it writes each command's exit code and output, with their
sizes, to ``report`` there, and the harness reads that file after the script ended (the inputs
and the report travel with the script's own sandbox entry where a backend can do that,
see :func:`polybench.sandbox.base.exec_with_files`). Nothing of the report passes
through the script's standard output, so no file name, patch text or program output
can forge an entry.

Before it runs anything the script drops from ``PATH`` every entry that is not absolute
or lies inside the checkout, and every git command goes through the harness's safe
options (:mod:`polybench.runner.checkout`): a ``git`` or ``sh`` a patch plants in the
repository, its hooks or its settings are never what runs.
"""

from __future__ import annotations

import secrets
import shlex
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from polybench.patches.apply import ApplyResult, Strategy
from polybench.runner.checkout import GIT_ENV, GIT_OPTIONS
from polybench.sandbox.base import Sandbox, SandboxError, exec_with_files

PHASE_TIMEOUT = 1800.0
PHASE_PREFIX = "polybench-phase-"
"""The script's ``$0``: ``polybench-phase-<step>`` (what a trace of the sandbox shows)."""
_CHUNK = 200

_PRELUDE = r"""
set -u
pb_dir="$1"; pb_workdir="$2"; shift 2
pb_report="$pb_dir/report"
: > "$pb_report" || exit 90
pb_path=
IFS=: read -r -a pb_parts <<< "${PATH:-/usr/bin:/bin}"
for pb_p in ${pb_parts[@]+"${pb_parts[@]}"}; do
  case "$pb_p" in
    "$pb_workdir"|"$pb_workdir"/*|/testbed|/testbed/*) ;;
    /*) pb_path="$pb_path${pb_path:+:}$pb_p" ;;
  esac
done
PATH="${pb_path:-/usr/bin:/bin}"; export PATH; unset IFS CDPATH; hash -r
cd "$pb_workdir" || exit 91
g() { git __GIT_OPTIONS__ "$@"; }
pb_names=(); pb_codes=(); pb_files=()
pb_record() { pb_names+=("$1"); pb_codes+=("$2"); pb_files+=("$3"); }
pb_finish() {
  local n=${#pb_files[@]} i sizes=()
  # One size per file, in order (names play no part: a scratch path may hold any byte);
  # a file that is gone has none, and the count tells.
  if ((n)); then mapfile -t sizes < <(stat -c %s -- "${pb_files[@]}"); fi
  if ((${#sizes[@]} != n)); then printf 'unsized\n' > "$pb_report"; return; fi
  {
    for ((i = 0; i < n; i++)); do
      printf '%s %s %s\n' "${pb_names[i]}" "${pb_codes[i]}" "${sizes[i]}"
    done
    printf '\n'
    if ((n)); then cat -- "${pb_files[@]}"; fi
  } > "$pb_report"
}
trap pb_finish EXIT
run() {
  local name="$1"; shift
  "$@" > "$pb_dir/$name.out" 2>&1; local code=$?
  pb_record "$name" "$code" "$pb_dir/$name.out"; return $code
}
run_out() {
  local name="$1"; shift
  "$@" > "$pb_dir/$name.out" 2> "$pb_dir/$name.err"; local code=$?
  pb_record "$name" "$code" "$pb_dir/$name.out"; pb_record "$name.err" 0 "$pb_dir/$name.err"
  return $code
}
readlist() {
  L=(); local x
  while IFS= read -r -d '' x; do L+=("$x"); done < "$pb_dir/$1.list"
}
chunked() {
  local name="$1"; shift; local i code=0
  : > "$pb_dir/$name.out"; : > "$pb_dir/$name.err"
  for ((i = 0; i < ${#L[@]}; i += __CHUNK__)); do
    "$@" "${L[@]:i:__CHUNK__}" >> "$pb_dir/$name.out" 2>> "$pb_dir/$name.err" || { code=$?; break; }
  done
  pb_record "$name" "$code" "$pb_dir/$name.out"; pb_record "$name.err" 0 "$pb_dir/$name.err"
  return $code
}
present() {
  local p name="$1"; : > "$pb_dir/$name.out"
  for p in ${L[@]+"${L[@]}"}; do
    if [ -e "$p" ] || [ -L "$p" ]; then printf '%s\0' "$p" >> "$pb_dir/$name.out"; fi
  done
  pb_record "$name" 0 "$pb_dir/$name.out"
}
"""


def prelude() -> str:
    """The shell functions every step script starts with (see the module docstring)."""
    options = " ".join(shlex.quote(option) for option in GIT_OPTIONS)
    return _PRELUDE.replace("__GIT_OPTIONS__", options).replace("__CHUNK__", str(_CHUNK))


@dataclass(frozen=True)
class ScriptPart:
    """Shell for a step script and the inputs it reads: ``lists`` (``readlist <name>``)
    and ``files`` (in ``$pb_dir``), as :func:`run_phase` takes them."""

    body: str
    lists: Mapping[str, list[str]]
    files: Mapping[str, str]


@dataclass(frozen=True)
class Step:
    """One command of a step script: its exit code and output."""

    code: int
    output: bytes

    @property
    def text(self) -> str:
        """The output decoded (invalid bytes replaced)."""
        return self.output.decode("utf-8", "replace")

    @property
    def paths(self) -> list[str]:
        """The output read as NUL-separated paths."""
        return [entry for entry in self.text.split("\0") if entry]


class PhaseReport:
    """What a step script reported, command by command."""

    def __init__(self, phase: str, steps: dict[str, Step]) -> None:
        self.phase = phase
        self.steps = steps

    def has(self, name: str) -> bool:
        """True when the script ran the command ``name``."""
        return name in self.steps

    def step(self, name: str) -> Step:
        """The command ``name`` (:class:`SandboxError` when the script never ran it)."""
        found = self.steps.get(name)
        if found is None:
            raise SandboxError(f"the {self.phase} step did not report {name!r}")
        return found

    def ok(self, name: str) -> Step:
        """The command ``name``, which must have exited 0 (:class:`SandboxError` otherwise)."""
        found = self.step(name)
        if found.code != 0:
            said = self.steps.get(f"{name}.err", found).text or found.text
            raise SandboxError(
                f"{name} failed in the {self.phase} step (exit {found.code}): {said.strip()[:500]}"
            )
        return found

    def merged(self, other: PhaseReport) -> PhaseReport:
        """This report with ``other``'s commands added (a continuation of the step)."""
        return PhaseReport(self.phase, {**self.steps, **other.steps})


def parse_report(phase: str, data: bytes) -> PhaseReport:
    """Read a report file: ``name code size`` lines, an empty line, then every command's
    output in the order of the lines, each exactly ``size`` bytes."""
    if data.startswith(b"\n"):
        lines, bodies = [], data[1:]
    else:
        end = data.find(b"\n\n")
        if end < 0:
            raise SandboxError(f"the {phase} step wrote an unreadable report")
        lines, bodies = data[:end].split(b"\n"), data[end + 2 :]
    entries: list[tuple[str, int, int]] = []
    for line in lines:
        fields = line.split()
        if len(fields) != 3 or not fields[2].isdigit():
            raise SandboxError(f"the {phase} step wrote an unreadable report")
        try:
            code = int(fields[1])
        except ValueError as exc:
            raise SandboxError(f"the {phase} step wrote an unreadable report") from exc
        entries.append((fields[0].decode("utf-8", "replace"), code, int(fields[2])))
    if sum(size for _, _, size in entries) != len(bodies):
        raise SandboxError(f"the {phase} step wrote a truncated report")
    steps: dict[str, Step] = {}
    position = 0
    for name, code, size in entries:
        if name in steps:
            raise SandboxError(f"the {phase} step reported {name!r} twice")
        steps[name] = Step(code, bodies[position : position + size])
        position += size
    return PhaseReport(phase, steps)


def run_phase(
    sandbox: Sandbox,
    phase: str,
    body: str,
    args: Iterable[str] = (),
    lists: Mapping[str, Iterable[str]] | None = None,
    files: Mapping[str, str] | None = None,
    timeout: float = PHASE_TIMEOUT,
    env: dict[str, str] | None = None,
) -> PhaseReport:
    """Run ``body`` (after :func:`prelude`) in one sandbox entry and read its report.

    ``lists`` become ``<name>.list`` files (NUL-separated; ``readlist <name>`` loads one
    into ``L``) and ``files`` other files in the script's folder, whose path is
    ``$pb_dir``; ``args`` are the script's positional arguments. A script that does not
    finish (timed out, killed) is a :class:`SandboxError`.
    """
    folder = f"{sandbox.scratch_dir}/{PHASE_PREFIX}{secrets.token_hex(12)}"
    inputs: dict[str, bytes | str] = {
        f"{folder}/{name}.list": "".join(f"{p}\0" for p in paths)
        for name, paths in (lists or {}).items()
    }
    inputs.update({f"{folder}/{name}": text for name, text in (files or {}).items()})
    inputs[f"{folder}/report"] = ""
    argv = ["bash", "-c", prelude() + body, f"{PHASE_PREFIX}{phase}", folder, sandbox.workdir]
    done, data = exec_with_files(
        sandbox,
        [*argv, *args],
        inputs,
        read_back=f"{folder}/report",
        timeout=timeout,
        env={**GIT_ENV, **(env or {})},
    )
    if done.timed_out:
        raise SandboxError(f"the {phase} step timed out after {timeout:.0f}s")
    if data is None:
        raise SandboxError(f"the {phase} step left no report: {done.output.strip()[:500]}")
    if done.exit_code != 0:
        raise SandboxError(
            f"the {phase} step failed (exit {done.exit_code}): {done.output.strip()[:500]}"
        )
    return parse_report(phase, data)


def shell_argv(argv: Iterable[str]) -> str:
    """``argv`` as a shell command line; ``git`` becomes the safe ``g``."""
    words = list(argv)
    if words[:1] == ["git"]:
        words[0] = "g"
    return " ".join(shlex.quote(word) for word in words)


def chain_script(
    prefix: str,
    chain: list[Strategy],
    reset: tuple[tuple[str, ...], ...] | None,
    guarded: Callable[[str], bool] = lambda _name: False,
) -> str:
    """Shell for the apply chain: each strategy's dry run and command as named steps
    (``<prefix>check.<i>``, ``<prefix>apply.<i>``), the reset after a failed attempt, and
    ``$applied`` set to the index that worked. A strategy that ``guarded`` names stops the
    chain after its dry run: the harness decides, and continues with :func:`continue_script`.
    """
    lines = ["applied=", "pending="]
    resets = [shell_argv(command) for command in (reset or ())]
    for index, strategy in enumerate(chain):
        if strategy.dry_run is None and reset is None:
            continue
        apply = f"run {prefix}apply.{index} {shell_argv(strategy.apply)}"
        on_fail = "; ".join(
            f"run {prefix}reset.{index}.{n} {command}" for n, command in enumerate(resets)
        )
        tail = f"{on_fail}; " if on_fail else ""
        attempt = f"if {apply}; then applied={index}; else :; {tail}fi"
        if strategy.dry_run is not None:
            check = f"run {prefix}check.{index} {shell_argv(strategy.dry_run)}"
            then = f"pending={index}" if guarded(strategy.name) else attempt
            attempt = f"if {check}; then {then}; fi"
        lines.append(f'if [ -z "$applied$pending" ]; then {attempt}; fi')
    return "\n".join(lines) + "\n"


def continue_script(
    prefix: str, index: int, strategy: Strategy, reset: tuple[tuple[str, ...], ...] | None
) -> str:
    """Shell that runs the strategy a guarded chain stopped at (its dry run was allowed)."""
    resets = "; ".join(
        f"run {prefix}reset.{index}.{n} {shell_argv(command)}"
        for n, command in enumerate(reset or ())
    )
    apply = f"run {prefix}apply.{index} {shell_argv(strategy.apply)}"
    tail = f"{resets}; " if resets else ""
    return f"applied=\nif {apply}; then applied={index}; else :; {tail}fi\n"


Guard = Callable[[str, str, list[str]], bool]


def chain_result(
    report: PhaseReport,
    prefix: str,
    chain: list[Strategy],
    reset: tuple[tuple[str, ...], ...] | None,
    guard: Guard | None = None,
) -> tuple[ApplyResult, int | None]:
    """The :class:`ApplyResult` the reported attempts add up to, and the index of a
    strategy whose dry run the guard allowed but that has not run yet (else None)."""
    result = ApplyResult(applied=False)
    for index, strategy in enumerate(chain):
        if strategy.dry_run is None and reset is None:
            continue
        if strategy.dry_run is not None:
            name = f"{prefix}check.{index}"
            if not report.has(name):
                break
            check = report.step(name)
            if check.code != 0:
                result.attempts.append(f"[{strategy.name}: check failed]\n{check.text.strip()}")
                continue
            if guard is not None and not guard(strategy.name, check.text, list(result.attempts)):
                result.attempts.append(
                    f"[{strategy.name}: not used]\nit would write files the patch may not "
                    "change, or git refused the patch for a path reason"
                )
                continue
        name = f"{prefix}apply.{index}"
        if not report.has(name):
            return result, index
        done = report.step(name)
        result.attempts.append(f"[{strategy.name}: exit {done.code}]\n{done.text.strip()}")
        if done.code == 0:
            result.applied = True
            result.method = strategy.name
            return result, None
    return result, None


_INSPECT = r"""
run_out base g ls-tree -r -z --name-only "$1"
run_out untracked g ls-files -z --others --directory --no-empty-directory
"""


def inspect_checkout(sandbox: Sandbox, commit: str) -> tuple[set[str], set[str]]:
    """In one entry: every file path of ``commit``, and the checkout's untracked paths
    (ignored ones included, whole new directories as ``dir/``)."""
    report = run_phase(sandbox, "inspect", _INSPECT, [commit])
    return set(report.ok("base").paths), set(report.ok("untracked").paths)
