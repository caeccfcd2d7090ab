"""Evaluate one prediction on one instance: patch, restore tests, run, parse, grade."""

from __future__ import annotations

import hashlib
import time
import traceback
from dataclasses import dataclass, field

from polybench.dataset.models import Instance, Prediction
from polybench.environments.images.errors import ImageBuildError
from polybench.environments.manager import EnvironmentSetupError, EnvironmentUnavailable
from polybench.environments.provider import ReadySandbox, SandboxProvider
from polybench.environments.repos import RepositoryError
from polybench.grading.grade import grade
from polybench.grading.parsers import get_parser
from polybench.grading.parsers.base import LogParser
from polybench.grading.repo_map import parser_for
from polybench.grading.result import ErrorKind, InstanceResult, Status
from polybench.patches.apply import apply_patch
from polybench.patches.diff import PatchError, check_patch, header_paths, touched_files
from polybench.runner.artifacts import InstanceArtifacts
from polybench.sandbox.base import Sandbox, SandboxError
from polybench.sandbox.eval_script import eval_script, split_log

DEFAULT_TIMEOUT_SECONDS = 1800.0
_GIT_TIMEOUT = 300.0


@dataclass
class RunSettings:
    """Per-instance settings shared by a whole run."""

    timeout: float = DEFAULT_TIMEOUT_SECONDS
    keep_sandbox: bool = False


class _Infrastructure(Exception):
    """Internal: stop the instance with an infrastructure error."""

    def __init__(self, kind: ErrorKind, message: str) -> None:
        super().__init__(message)
        self.kind = kind


class _Unresolved(Exception):
    """Internal: stop the instance as unresolved (the prediction's fault)."""


@dataclass
class _Timer:
    timings: dict[str, float] = field(default_factory=dict)

    def measure(self, name: str, started: float) -> None:
        self.timings[name] = round(self.timings.get(name, 0.0) + time.monotonic() - started, 3)


def patch_digest(patch: str) -> str:
    """The SHA-256 of a patch, to tell on resume whether a prediction changed."""
    return hashlib.sha256(patch.encode("utf-8", "surrogatepass")).hexdigest()


def _run(sandbox: Sandbox, argv: list[str]) -> tuple[int | None, str]:
    result = sandbox.exec(argv, timeout=_GIT_TIMEOUT)
    return result.exit_code, result.output


def _restore_test_files(sandbox: Sandbox, instance: Instance, test_files: list[str]) -> None:
    """Put every file the test patch touches back to its base-commit state."""
    if not test_files:
        return
    code, listing = _run(
        sandbox, ["git", "ls-tree", "-r", "--name-only", instance.base_commit, "--", *test_files]
    )
    if code != 0:
        raise _Infrastructure(ErrorKind.SANDBOX_FAILED, f"git ls-tree failed: {listing.strip()}")
    at_base = set(listing.splitlines())
    existing = [path for path in test_files if path in at_base]
    created = [path for path in test_files if path not in at_base]
    # Whatever the model patch put there (a file, a folder in place of a file) goes first.
    _run(sandbox, ["rm", "-rf", "--", *test_files])
    if existing:
        code, output = _run(
            sandbox, ["git", "checkout", "-q", instance.base_commit, "--", *existing]
        )
        if code != 0:
            raise _Infrastructure(
                ErrorKind.SANDBOX_FAILED, f"restoring test files failed: {output.strip()}"
            )
    if created:
        _run(sandbox, ["rm", "-rf", "--", *created])


def _new_symlinks(sandbox: Sandbox, instance: Instance, paths: list[str]) -> list[str]:
    """Which of ``paths`` (those the patch names) are symbolic links not in the base commit.

    The patch checks reject diffs that declare a link; this catches any other way an
    apply strategy could leave one (a copied link, a header the checks read differently).
    """
    if not paths:
        return []
    listing_links = 'for p in "$@"; do [ -L "$p" ] && printf "%s\\0" "$p"; done; true'
    code, found = _run(sandbox, ["bash", "-c", listing_links, "links", *paths])
    if code != 0:
        raise _Infrastructure(ErrorKind.SANDBOX_FAILED, f"listing links failed: {found.strip()}")
    links = [entry for entry in found.split("\0") if entry]
    if not links:
        return []
    argv = ["git", "ls-tree", "-r", "-z", instance.base_commit, "--", *links]
    code, listing = _run(sandbox, argv)
    if code != 0:
        raise _Infrastructure(ErrorKind.SANDBOX_FAILED, f"git ls-tree failed: {listing.strip()}")
    at_base = {
        entry.split("\t", 1)[1]
        for entry in listing.split("\0")
        if entry.startswith("120000 ") and "\t" in entry
    }
    return [link for link in links if link not in at_base]


def _clear_bytecode(sandbox: Sandbox) -> None:
    sandbox.exec(
        "find . -path ./node_modules -prune -o -name __pycache__ -type d -prune "
        "-exec rm -rf {} + ; find . -path ./node_modules -prune -o -name '*.pyc' -delete",
        timeout=_GIT_TIMEOUT,
    )


class InstanceRunner:
    """Runs predictions on instances with one sandbox provider and writes their artifacts."""

    def __init__(self, provider: SandboxProvider, settings: RunSettings | None = None) -> None:
        self.provider = provider
        self.settings = settings or RunSettings()

    def run(
        self, instance: Instance, prediction: Prediction, artifacts: InstanceArtifacts
    ) -> InstanceResult:
        """Evaluate ``prediction``; never raises: failures become the result's status."""
        result = InstanceResult(
            instance_id=instance.instance_id,
            repo=instance.repo,
            language=instance.language.value,
            model_name_or_path=prediction.model_name_or_path,
            status=Status.ERROR,
            patch_sha256=patch_digest(prediction.model_patch),
            backend=self.provider.name,
        )
        timer = _Timer()
        artifacts.write_text("patch.diff", prediction.model_patch)
        started = time.monotonic()
        try:
            self._evaluate(instance, prediction, artifacts, result, timer)
        except _Unresolved as stop:
            result.status = Status.UNRESOLVED
            result.reason = str(stop)
        except _Infrastructure as stop:
            result.status = Status.ERROR
            result.error_kind = stop.kind
            result.reason = str(stop)
        except SandboxError as exc:
            result.status = Status.ERROR
            result.error_kind = ErrorKind.SANDBOX_FAILED
            result.reason = f"the sandbox failed: {exc}"
        except Exception as exc:
            result.status = Status.ERROR
            result.error_kind = ErrorKind.HARNESS_ERROR
            result.reason = f"{type(exc).__name__}: {exc}"
            artifacts.write_text("harness_error.txt", traceback.format_exc())
        timer.measure("total", started)
        result.timings = timer.timings
        return result

    def _evaluate(
        self,
        instance: Instance,
        prediction: Prediction,
        artifacts: InstanceArtifacts,
        result: InstanceResult,
        timer: _Timer,
    ) -> None:
        if prediction.is_empty:
            result.status = Status.EMPTY_PATCH
            result.reason = "the prediction has no patch"
            return
        try:
            changes = check_patch(prediction.model_patch)
        except PatchError as exc:
            raise _Unresolved(str(exc)) from exc
        result.patch_files = list(dict.fromkeys(p for c in changes for p in c.paths))
        try:
            parser_name = parser_for(instance.repo, instance.log_parser)
            parser = get_parser(parser_name)
        except (KeyError, ValueError) as exc:
            raise _Infrastructure(ErrorKind.UNKNOWN_PARSER, str(exc)) from exc
        result.parser = parser_name

        started = time.monotonic()
        ready = self._provide(instance, artifacts)
        timer.measure("setup", started)
        result.isolation = ready.sandbox.isolation
        result.environment = ready.environment.recipe
        result.environment_reused = ready.environment.reused
        try:
            self._apply_and_test(instance, prediction, ready, artifacts, result, timer)
            started = time.monotonic()
            self._grade(instance, artifacts, result, parser)
            timer.measure("grade", started)
        finally:
            if not self.settings.keep_sandbox:
                ready.sandbox.cleanup()

    def _provide(self, instance: Instance, artifacts: InstanceArtifacts) -> ReadySandbox:
        try:
            return self.provider.provide(instance)
        except EnvironmentUnavailable as exc:
            raise _Infrastructure(ErrorKind.ENVIRONMENT_UNAVAILABLE, str(exc)) from exc
        except ImageBuildError as exc:
            if exc.log_path is not None and exc.log_path.exists():
                artifacts.copy_file("build.log", exc.log_path)
            raise _Infrastructure(ErrorKind.IMAGE_BUILD_FAILED, str(exc)) from exc
        except EnvironmentSetupError as exc:
            if exc.log_path is not None and exc.log_path.exists():
                artifacts.copy_file("setup.log", exc.log_path)
            raise _Infrastructure(ErrorKind.ENVIRONMENT_SETUP_FAILED, str(exc)) from exc
        except RepositoryError as exc:
            raise _Infrastructure(ErrorKind.REPOSITORY_UNAVAILABLE, str(exc)) from exc
        except SandboxError as exc:
            raise _Infrastructure(ErrorKind.SANDBOX_FAILED, str(exc)) from exc

    def _apply_and_test(
        self,
        instance: Instance,
        prediction: Prediction,
        ready: ReadySandbox,
        artifacts: InstanceArtifacts,
        result: InstanceResult,
        timer: _Timer,
    ) -> None:
        sandbox = ready.sandbox
        started = time.monotonic()
        model_patch_file = f"{sandbox.scratch_dir}/model.patch"
        sandbox.write_file(model_patch_file, prediction.model_patch)
        applied = apply_patch(lambda argv: _run(sandbox, argv), model_patch_file)
        artifacts.write_text("apply.log", applied.log)
        if not applied.applied:
            timer.measure("apply", started)
            raise _Unresolved("the patch did not apply (git apply, git apply --3way, patch)")
        result.patch_applied = True
        result.apply_method = applied.method
        named = list(dict.fromkeys([*result.patch_files, *header_paths(prediction.model_patch)]))
        links = _new_symlinks(sandbox, instance, named)
        if links:
            timer.measure("apply", started)
            shown = ", ".join(links[:3]) + (f" and {len(links) - 3} more" if len(links) > 3 else "")
            raise _Unresolved(f"patch rejected: it creates symbolic links ({shown})")

        test_files = touched_files(instance.test_patch) if instance.test_patch.strip() else []
        _restore_test_files(sandbox, instance, test_files)
        if instance.test_patch.strip():
            test_patch_file = f"{sandbox.scratch_dir}/test.patch"
            sandbox.write_file(test_patch_file, instance.test_patch)
            test_applied = apply_patch(lambda argv: _run(sandbox, argv), test_patch_file, None)
            if not test_applied.applied:
                artifacts.write_text("test_patch_apply.log", test_applied.log)
                raise _Infrastructure(
                    ErrorKind.TEST_PATCH_FAILED, "the dataset's test patch did not apply"
                )
        ready.activate()
        _clear_bytecode(sandbox)
        timer.measure("apply", started)

        script = eval_script(sandbox.workdir, instance.test_command)
        artifacts.write_text("eval.sh", script)
        sandbox.write_file(f"{sandbox.scratch_dir}/eval.sh", script)
        started = time.monotonic()
        env = ready.environment.exec_env(sandbox.workdir)
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        executed = sandbox.exec(
            ["bash", f"{sandbox.scratch_dir}/eval.sh"], timeout=self.settings.timeout, env=env
        )
        timer.measure("tests", started)
        artifacts.write_text("test_output.txt", executed.output)
        if executed.timed_out:
            raise _Infrastructure(
                ErrorKind.TIMEOUT,
                f"the test command did not finish within {self.settings.timeout:.0f}s "
                "and was killed",
            )
        marked = split_log(executed.output)
        if not marked.ended:
            raise _Infrastructure(
                ErrorKind.NO_END_MARKER,
                f"the log has no end marker (exit {executed.exit_code}): the run was cut short",
            )
        if marked.exit_code != executed.exit_code:
            raise _Unresolved(
                f"the end marker reports exit {marked.exit_code} but the script exited "
                f"{executed.exit_code}: the code under test forged harness output"
            )
        result.test_exit_code = marked.exit_code

    def _grade(
        self,
        instance: Instance,
        artifacts: InstanceArtifacts,
        result: InstanceResult,
        parser: LogParser,
    ) -> None:
        log = split_log(artifacts.read_text("test_output.txt")).body
        parsed = parser(log)
        result.log_parsed = parsed.parsed_anything
        result.tests_in_log = len(parsed.statuses)
        verdict = grade(instance.F2P, instance.P2P, parsed)
        result.f2p = verdict.f2p
        result.p2p = verdict.p2p
        if not parsed.parsed_anything:
            if result.test_exit_code == 0:
                raise _Infrastructure(
                    ErrorKind.NO_TEST_RESULTS,
                    f"the test command exited 0 but the {result.parser} parser found no test "
                    "results in its output",
                )
            raise _Unresolved(
                f"the test command failed (exit {result.test_exit_code}) without reporting "
                "any test result: the patch probably breaks the build or test collection"
            )
        result.status = Status.RESOLVED if verdict.resolved else Status.UNRESOLVED
        result.reason = verdict.summary()
