"""Letting a model patch into a checkout: only what the tamper policy allows stays.

1. The patch's paths are checked as git reads them (C-unquoted); a path that leaves the
   repository or enters ``.git`` rejects the whole patch.
2. Sections for paths the policy refuses (``node_modules``, build output, binaries,
   test-library packages, shadowing modules, paths inside folders that were already
   untracked, such as an image's installed dependencies) are dropped before applying.
3. The rest goes through the fallback chain; ``patch --fuzz`` is only tried when its dry
   run names no file outside the allowed ones, and never after git refused the patch for
   a path reason.
4. Every path that now differs from the base commit (tracked changes and new untracked
   files alike, whatever wrote them) is decided again: test roots are reset, tool
   configuration reverted, refused paths removed. Symbolic links must resolve inside the
   repository and outside ``.git``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from polybench.grading.policy import Action, PolicyInputs, TamperPolicy, python_package_dirs
from polybench.grading.tampering import PathRecord
from polybench.patches.apply import RESET_TO_HEAD, ApplyResult, strategies
from polybench.patches.diff import PatchError, check_patch, creates_symlink
from polybench.patches.sections import Section, keep_sections, split_sections
from polybench.runner.checkout import GIT_ENV, exclude_pattern, git, git_argv, restore
from polybench.runner.phase import (
    Guard,
    PhaseReport,
    ScriptPart,
    chain_result,
    chain_script,
    continue_script,
    run_phase,
)
from polybench.sandbox.base import Sandbox

_GIT_PATH_REFUSALS = re.compile(
    r"beyond a symbolic link|has type|invalid path|outside (?:the )?repository|unsafe|"
    r"is in index|symlink",
    re.IGNORECASE,
)
_PATCH_FILE_LINE = re.compile(r"^(?:checking|patching) file (?P<path>.+)$")


class PatchRejected(Exception):
    """The patch cannot be let in at all (unsafe path, nothing left to apply); ``refused``
    lists the paths the policy kept out on the way."""

    def __init__(self, message: str, refused: list[PathRecord] | None = None) -> None:
        super().__init__(message)
        self.refused = refused or []


@dataclass
class Admission:
    """What happened to a model patch on its way into the checkout."""

    applied: bool = False
    method: str | None = None
    log: str = ""
    reverted: list[PathRecord] = field(default_factory=list)
    refused: list[PathRecord] = field(default_factory=list)
    kept: set[str] = field(default_factory=set)
    """Paths outside the test roots the patch changed and that stayed."""
    restored: set[str] = field(default_factory=set)
    """Paths put back to the base commit (to be verified once the tests are in)."""
    then_report: PhaseReport | None = None
    """The report of the sandbox entry that applied the patch, when the step the caller
    asked to run next (``then`` of :func:`admit`) ran in it and stands: nothing is to be
    put back."""


def _run(sandbox: Sandbox, argv: list[str]) -> tuple[int | None, str]:
    done = sandbox.exec(git_argv(*argv[1:]) if argv[:1] == ["git"] else argv, env=dict(GIT_ENV))
    return done.exit_code, done.output


def _unquote_patch_name(raw: str) -> str:
    raw = raw.strip()
    if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "'\"":
        return raw[1:-1]
    return raw


def _dry_run_paths(output: str) -> list[str] | None:
    """Files a ``patch --dry-run`` says it would write, or None when it is not readable."""
    paths = []
    for line in output.splitlines():
        match = _PATCH_FILE_LINE.match(line.strip())
        if match is not None:
            paths.append(_unquote_patch_name(match.group("path")))
    return paths or None


def _within(path: str, directories: list[str]) -> bool:
    return any(path == d.rstrip("/") or path.startswith(d) for d in directories)


def _guard(allowed: set[str], links: bool) -> Guard:
    """Whether a strategy may run after its dry run: ``patch --fuzz`` never for a patch
    that makes symbolic links (``patch`` could then write through one), never after git
    refused the patch for a path reason, and only when it names allowed files alone."""

    def guard(strategy_name: str, dry_run_output: str, previous: list[str]) -> bool:
        if not strategy_name.startswith("patch"):
            return True
        if links:
            return False
        if any(_GIT_PATH_REFUSALS.search(attempt) for attempt in previous):
            return False
        named = _dry_run_paths(dry_run_output)
        return named is not None and all(path in allowed for path in named)

    return guard


_PATCH_PLACEHOLDER = "__POLYBENCH_PATCH__"
_LIST_CHANGES = r"""
if [ -n "$applied" ]; then
  run_out changed g diff --no-ext-diff --no-textconv --no-renames --name-only -z "$1"
  readlist excludes
  run_out untracked g ls-files -z --others ${L[@]+"${L[@]}"}
  L=()
  while IFS= read -r -d '' x; do L+=("$x"); done < "$pb_dir/changed.out"
  while IFS= read -r -d '' x; do L+=("$x"); done < "$pb_dir/untracked.out"
  P=(); links=(); targets=(); pb_links=0
  for p in ${L[@]+"${L[@]}"}; do
    if [ -L "$p" ]; then P+=("$p"); links+=(1); pb_links=1
    elif [ -e "$p" ]; then P+=("$p"); links+=(0); fi
  done
  if ((${#P[@]})); then mapfile -d '' -t targets < <(realpath -m -z -- "${P[@]}"); fi
  if ((${#targets[@]} != ${#P[@]})); then  # one it could not resolve: ask path by path
    targets=(); for p in "${P[@]}"; do targets+=("$(realpath -m -- "$p")"); done
  fi
  : > "$pb_dir/resolved.out"
  for ((i = 0; i < ${#P[@]}; i++)); do
    printf '%s\0%s\0%s\0' "${P[i]}" "${links[i]}" "${targets[i]-}" >> "$pb_dir/resolved.out"
  done
  pb_record resolved 0 "$pb_dir/resolved.out"
fi
if [ -z "$pending" ]; then rm -f -- "$pb_dir/model.patch"; fi
"""
_THEN_RAN = "then"
"""The name the apply entry reports when it went on to run ``then``."""
_THEN = r"""
if [ -n "$applied" ] && [ -z "$pending" ] && [ "$pb_links" = 0 ]; then
  : > "$pb_dir/then.out"; pb_record then 0 "$pb_dir/then.out"
__THEN__
fi
"""


def _patch_in_folder(script: str) -> str:
    return script.replace(_PATCH_PLACEHOLDER, '"$pb_dir/model.patch"')


def _resolved(report: PhaseReport) -> dict[str, tuple[bool, str]]:
    fields = report.step("resolved").text.split("\0")
    return {
        fields[index]: (fields[index + 1] == "1", fields[index + 2])
        for index in range(0, len(fields) - 2, 3)
    }


def _apply(
    sandbox: Sandbox,
    patch: str,
    allowed: set[str],
    untracked_before: set[str],
    base_commit: str,
    then: ScriptPart | None = None,
) -> tuple[ApplyResult, PhaseReport]:
    """The fallback chain, with ``patch --fuzz`` guarded (see :func:`_guard`), the listing
    of what changed, and ``then`` when the patch applied without ``patch`` and made no
    symbolic link, in one sandbox entry (two when ``patch`` is tried)."""
    chain = strategies(_PATCH_PLACEHOLDER)
    guard = _guard(allowed, creates_symlink(patch))
    excludes = [exclude_pattern(entry) for entry in sorted(untracked_before) if entry.endswith("/")]
    lists: dict[str, Iterable[str]] = {"excludes": excludes}
    files = {"model.patch": patch}
    guarded = chain_script("m.", chain, RESET_TO_HEAD, lambda name: name.startswith("patch"))
    body = _patch_in_folder(guarded + _LIST_CHANGES)
    # ``then``'s inputs go to this entry only: a ``patch --fuzz`` continuation does not run it.
    entry_lists, entry_files = lists, files
    if then is not None:
        body += _THEN.replace("__THEN__", then.body)
        entry_lists, entry_files = {**lists, **then.lists}, {**files, **then.files}
    report = run_phase(sandbox, "apply", body, [base_commit], entry_lists, entry_files)
    applied, pending = chain_result(report, "m.", chain, RESET_TO_HEAD, guard)
    if pending is not None:
        more = continue_script("m.", pending, chain[pending], RESET_TO_HEAD) + _LIST_CHANGES
        report = report.merged(
            run_phase(sandbox, "apply", _patch_in_folder(more), [base_commit], lists, files)
        )
        applied, _ = chain_result(report, "m.", chain, RESET_TO_HEAD, guard)
    return applied, report


def admit(
    sandbox: Sandbox,
    patch: str,
    inputs: PolicyInputs,
    untracked_before: set[str],
    base_commit: str,
    defer_restore: bool = False,
    then: ScriptPart | None = None,
) -> Admission:
    """Apply ``patch`` to the checkout under the tamper policy (see the module docstring).

    With ``defer_restore`` the paths to put back (``Admission.restored``) are left for
    :func:`polybench.runner.steps.install_tests`, which restores them with the test files
    in the same sandbox entry; the caller must call it next. ``then`` (with
    ``defer_restore``: the shell of that next step for the case that nothing is to be put
    back) runs in the patch's own sandbox entry when the patch applied at its first
    attempts without ``patch`` and made no symbolic link. When nothing is to be put back,
    ``Admission.then_report`` then holds its report; otherwise the caller runs its step
    anew, which does whatever ``then`` did again over what the harness put back.

    Raises :class:`PatchRejected` when nothing of the patch may be applied.
    """
    try:
        check_patch(patch)
        sections = split_sections(patch)
    except PatchError as exc:
        raise PatchRejected(str(exc)) from exc
    new_paths = {p for section in sections for p in section.paths}
    inputs = PolicyInputs(
        **{
            **inputs.__dict__,
            "python_packages": inputs.python_packages | python_package_dirs(new_paths),
        }
    )
    policy = TamperPolicy(inputs)
    untracked_dirs = sorted(entry for entry in untracked_before if entry.endswith("/"))
    admission = Admission()

    def keep(section: Section) -> bool:
        for path in section.paths:
            if _within(path, untracked_dirs) or path in untracked_before:
                admission.refused.append(
                    PathRecord(path=path, reason="inside files the environment installed")
                )
                return False
            decision = policy.decide(path, section.added_text)
            if decision.action is Action.REFUSE:
                admission.refused.append(PathRecord(path=path, reason=decision.reason))
                return False
        return True

    filtered, _ = keep_sections(patch, keep)
    if not filtered.strip():
        shown = ", ".join(record.path for record in admission.refused[:3])
        raise PatchRejected(
            f"patch rejected: every file it changes is refused ({shown})", admission.refused
        )
    allowed = {p for section in split_sections(filtered) for p in section.paths}
    then = then if defer_restore else None
    applied, report = _apply(sandbox, filtered, allowed, untracked_before, base_commit, then)
    admission.log = applied.log
    if not applied.applied:
        return admission
    admission.applied = True
    admission.method = applied.method
    _sweep(policy, admission, untracked_before, report, sandbox.workdir)
    if not defer_restore:
        restore(sandbox, base_commit, admission.restored, set(inputs.base_paths))
    elif then is not None and not admission.restored and report.has(_THEN_RAN):
        admission.then_report = report
    return admission


def _sweep(
    policy: TamperPolicy,
    admission: Admission,
    untracked_before: set[str],
    report: PhaseReport,
    workdir: str,
) -> None:
    """Decide every path that now differs from the base commit; what is not kept goes to
    ``admission.restored``."""
    changed = set(report.ok("changed").paths)
    changed |= {path for path in report.ok("untracked").paths if path not in untracked_before}
    to_restore: set[str] = set()
    kept: set[str] = set()
    for path in sorted(changed):
        decision = policy.decide(path)
        if decision.action is Action.KEEP:
            kept.add(path)
            continue
        to_restore.add(path)
        if decision.action is Action.REFUSE:
            admission.refused.append(PathRecord(path=path, reason=decision.reason))
        else:
            admission.reverted.append(PathRecord(path=path, reason=decision.reason))
    roots = {workdir.rstrip("/"), "/testbed"}
    resolved = _resolved(report)
    for path in sorted(kept):
        if path not in resolved:
            continue
        is_link, target = resolved[path]
        inside = any(target.startswith(root + "/") for root in roots)
        into_git = any(
            target == f"{root}/.git" or target.startswith(f"{root}/.git/") for root in roots
        )
        if not inside or into_git:
            what = "a symbolic link" if is_link else "a path through a symbolic link"
            where = "into .git" if into_git else "outside the repository"
            admission.refused.append(PathRecord(path=path, reason=f"{what} that leads {where}"))
            to_restore.add(path)
            kept.discard(path)
    admission.kept = kept
    admission.restored = to_restore


def git_named_paths(sandbox: Sandbox, patch_file: str) -> list[str] | None:
    """The paths git itself reads in a patch file (``git apply --numstat``), or None when
    git cannot read the patch."""
    done = git(sandbox, "apply", "--numstat", "-z", patch_file)
    if not done.ok:
        return None
    paths = []
    for record in done.output.split("\0"):
        parts = record.split("\t", 2)
        if len(parts) == 3 and parts[2]:
            paths.append(parts[2])
    return paths
