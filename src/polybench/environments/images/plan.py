"""Planning image builds for a dataset: what exists, what is missing, how much disk it takes."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field

from polybench.dataset.models import Instance
from polybench.environments.errors import one_line
from polybench.environments.images.bases import LANGUAGE_OF, PARENTS, root_image
from polybench.environments.images.builder import BuiltImage
from polybench.environments.images.errors import ImageBuildError
from polybench.environments.images.inventory import DiskReport
from polybench.environments.images.manager import ImageManager
from polybench.environments.images.settings import BASE_NAMES, instance_tag
from polybench.environments.repos import RepositoryError

MB = 1024 * 1024
# Measured on Debian bookworm (bytes each layer adds on top of its parent).
BASE_ESTIMATE = {
    "polybench_os_base": 115 * MB,
    "polybench_python_base": 65 * MB,
    "polybench_java_base": 310 * MB,
    "polybench_javascript_base": 205 * MB,
    "polybench_typescript_base": 25 * MB,
}
ROOT_ESTIMATE = {"rootfs": 200 * MB, "registry": 75 * MB}
# Dependencies of a real repository; replaced by the average of this machine's
# environments of the language once there are some.
ENV_ESTIMATE = {
    "Python": 400 * MB,
    "Java": 300 * MB,
    "JavaScript": 450 * MB,
    "TypeScript": 550 * MB,
}
INSTANCE_ESTIMATE = 2 * MB
OFFICIAL_ESTIMATE = 2400 * MB  # ~5 TB for the 2110 official instance images


@dataclass
class BuildPlan:
    """The images a set of instances needs and which of them are missing."""

    instances: list[Instance]
    bases: list[str] = field(default_factory=list)
    missing_bases: list[str] = field(default_factory=list)
    groups: dict[str, list[Instance]] = field(default_factory=dict)
    group_language: dict[str, str] = field(default_factory=dict)
    missing_envs: list[str] = field(default_factory=list)
    missing_instances: list[str] = field(default_factory=list)
    """Instance images to make: a layer on an environment, or on a pulled image."""
    missing_pulls: list[str] = field(default_factory=list)
    """Official images to pull first (``pull`` and ``auto``)."""
    unplanned: dict[str, str] = field(default_factory=dict)
    root_missing: bool = False


@dataclass(frozen=True)
class Estimate:
    """Bytes a build would add, per level."""

    root: int
    bases: int
    envs: int
    instances: int

    @property
    def total(self) -> int:
        """All levels."""
        return self.root + self.bases + self.envs + self.instances


def _with_parents(names: set[str]) -> list[str]:
    wanted = set(names)
    for name in list(names):
        parent = PARENTS.get(name)
        while parent is not None:
            wanted.add(parent)
            parent = PARENTS.get(parent)
    return [name for name in BASE_NAMES if name in wanted]


def plan_build(manager: ImageManager, instances: list[Instance]) -> BuildPlan:
    """Which images ``instances`` need and which are missing (nothing is built)."""
    plan = BuildPlan(instances=instances)
    builder = manager.builder
    if manager.settings.image_source != "build":
        for instance in instances:
            pulled = builder.find(manager.official_reference(instance))
            if pulled is None:
                plan.missing_pulls.append(instance.instance_id)
                plan.missing_instances.append(instance.instance_id)
            elif builder.find(manager.official_layer_tag(instance, str(pulled.id))) is None:
                plan.missing_instances.append(instance.instance_id)
        return plan
    plan.root_missing = builder.find(root_image(manager.settings)) is None
    needed: set[str] = set()
    for instance in instances:
        try:
            spec = manager.env_spec(instance, build=False)
        except (ImageBuildError, RepositoryError) as exc:
            plan.unplanned[instance.instance_id] = str(exc)
            continue
        needed.update(p.split(":", 1)[0] for p in spec.parents if p.split(":", 1)[0] in PARENTS)
        plan.groups.setdefault(spec.tag, []).append(instance)
        plan.group_language[spec.tag] = spec.language
        env = builder.find(spec.tag)
        if env is None:
            if spec.tag not in plan.missing_envs:
                plan.missing_envs.append(spec.tag)
            plan.missing_instances.append(instance.instance_id)
            continue
        as_built = BuiltImage(tag=spec.tag, image_id=str(env.id), level="env", reused=True)
        key = manager.instance_key(instance, as_built)
        if builder.find(instance_tag(instance.instance_id, key)) is None:
            plan.missing_instances.append(instance.instance_id)
    plan.bases = _with_parents(needed)
    plan.missing_bases = [n for n in plan.bases if _base_missing(manager, n)]
    return plan


def _base_missing(manager: ImageManager, name: str) -> bool:
    """Whether building would make base ``name`` (missing, or out of date)."""
    planned = manager.planned_base(name)
    return planned is None or planned[1] is None


def estimate(plan: BuildPlan, manager: ImageManager, usage: DiskReport | None) -> Estimate:
    """Bytes the missing images of ``plan`` will take (measured sizes where known)."""
    if manager.settings.image_source != "build":
        return Estimate(0, 0, 0, OFFICIAL_ESTIMATE * len(plan.missing_pulls))
    observed: dict[str, list[int]] = {}
    for item in usage.images if usage else []:
        if item.image.level == "env":
            language = item.image.labels.get("org.polybench.language", "")
            observed.setdefault(language, []).append(item.own_bytes)
    env_bytes = 0
    for tag in plan.missing_envs:
        language = plan.group_language.get(tag, "")
        sizes = observed.get(language)
        env_bytes += sum(sizes) // len(sizes) if sizes else ENV_ESTIMATE.get(language, 400 * MB)
    return Estimate(
        root=ROOT_ESTIMATE[manager.settings.base_source] if plan.root_missing else 0,
        bases=sum(BASE_ESTIMATE.get(name, 100 * MB) for name in plan.missing_bases),
        envs=env_bytes,
        instances=INSTANCE_ESTIMATE * len(plan.missing_instances),
    )


@dataclass(frozen=True)
class BuildEvent:
    """Progress of a build: one image done (or failed)."""

    level: str
    name: str
    ok: bool
    reused: bool = False
    seconds: float = 0.0
    message: str = ""


def execute(
    manager: ImageManager,
    plan: BuildPlan,
    workers: int,
    on_event: Callable[[BuildEvent], None],
    levels: tuple[str, ...] = ("base", "env", "instance"),
) -> list[BuildEvent]:
    """Build what ``plan`` needs: bases first, then environments in parallel, each followed
    by its instances' layers. Failures are reported and the rest goes on."""
    events: list[BuildEvent] = []

    def emit(event: BuildEvent) -> None:
        events.append(event)
        on_event(event)

    if manager.settings.image_source == "build":
        for name in plan.bases:
            try:
                built = manager.ensure_base(name)
                emit(BuildEvent("base", name, True, built.reused, built.seconds))
            except ImageBuildError as exc:
                emit(BuildEvent("base", name, False, message=exc.summary()))
                return events
    groups = list(plan.groups.values()) or [[i] for i in plan.instances]
    if manager.settings.image_source != "build":
        groups = [[i] for i in plan.instances]

    def build_group(members: list[Instance]) -> None:
        if "env" in levels and manager.settings.image_source == "build":
            try:
                env = manager.ensure_env(members[0])
                emit(BuildEvent("env", env.tag, True, env.reused, env.seconds))
            except (ImageBuildError, RepositoryError) as exc:
                emit(BuildEvent("env", members[0].repo, False, message=_one_line(exc)))
                return
        if "instance" not in levels:
            return
        for instance in members:
            try:
                built = manager.ensure_instance(instance)
                emit(BuildEvent("instance", built.tag, True, built.reused, built.seconds))
            except (ImageBuildError, RepositoryError) as exc:
                message = _one_line(exc)
                emit(BuildEvent("instance", instance.instance_id, False, message=message))

    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        for future in as_completed([pool.submit(build_group, g) for g in groups]):
            future.result()
    return events


def _one_line(exc: ImageBuildError | RepositoryError) -> str:
    return exc.summary() if isinstance(exc, ImageBuildError) else one_line(str(exc))


def language_of_base(name: str) -> str:
    """The language a base image serves (``os`` for the shared layer)."""
    return LANGUAGE_OF.get(name, "?")
