"""Images in three cached levels: language base, repository environment, instance layer.

``ensure_instance`` returns an image with the instance's repository at its base commit in
``/testbed`` and its dependencies installed:

* **base**: ``polybench_<language>_base`` (see :mod:`.bases`), built once per machine;
* **env**: the instance's own Dockerfile, run as-is with the repository at the base
  commit as build context, then what the test command needs (see :mod:`.prepare`),
  shared by every instance with the same Dockerfile, needs and manifests (see
  :mod:`.envspec`);
* **instance**: a thin layer on the environment. When the environment was built from the
  instance's own commit, it only adds labels (no bytes). Otherwise it adds a git pack of
  the objects the environment's checkout lacks and checks the instance's commit out over
  it, which rewrites only the files that differ.

With ``image_source`` ``pull`` or ``auto`` the official prebuilt image
(``<registry>/swe-polybench.eval.x86_64.<instance_id>:<tag>``) is used instead, behind a
layer of polybench's that adds what the test command needs (label-only when it needs
nothing): the layer is listed, measured and cleaned like a built instance image, its
``org.polybench.source`` label naming the pulled image, while the pulled image itself is
never removed unless asked.
"""

from __future__ import annotations

import io
import json
import shutil
import tarfile
import tempfile
import threading
from pathlib import Path

from docker.errors import DockerException

from polybench.dataset.models import Instance
from polybench.environments.commandneeds import command_needs
from polybench.environments.images import bases
from polybench.environments.images.builder import Builder, BuiltImage, image_labels
from polybench.environments.images.context import (
    DOCKERFILE_NAME,
    commit_objects,
    has_commit,
    shallow_checkout,
    temporary_dir,
    write_context,
    write_pack,
)
from polybench.environments.images.envspec import EnvSpec, env_spec
from polybench.environments.images.errors import ImageBuildError
from polybench.environments.images.prepare import with_preparation
from polybench.environments.images.settings import (
    BASE_NAMES,
    ImageSettings,
    base_tag,
    digest,
    instance_tag,
    keyed_base_tag,
    official_image,
)
from polybench.environments.repos import RepoStore
from polybench.sandbox.docker import managed_labels
from polybench.sandbox.history import prune_script

INSTANCE_LAYER_VERSION = "2"
PRUNED_HISTORY = "base"
"""The history an instance image's repository holds (label ``org.polybench.history``): its
base commit alone, pruned when the image was built, so a container from it needs no
pruning of its own for ``--history base``."""


def prune_step(commit: str) -> str:
    """The Dockerfile line that prunes ``/testbed``'s repository to ``commit`` (exec form:
    the script has line breaks, which JSON keeps inside one instruction)."""
    argv = prune_script(commit, PRUNED_HISTORY)
    argv[2] = "cd /testbed\n" + argv[2]
    return f"RUN {json.dumps(argv)}"


_CONFLICT = "polybench: the environment's checkout conflicts with the instance's commit"


class _CheckoutConflict(ImageBuildError):
    """The shared environment's /testbed cannot be moved to the instance's commit."""


def _dockerfile_tar(dockerfile: str, files: dict[str, Path] | None = None) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        data = dockerfile.encode()
        info = tarfile.TarInfo("Dockerfile")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
        for name, path in (files or {}).items():
            tar.add(str(path), arcname=name)
    return buffer.getvalue()


def _move_script(commit: str) -> str:
    return (
        "cd /testbed"
        f" && {{ grep -qx {commit} .git/shallow 2>/dev/null || echo {commit} >> .git/shallow; }}"
        f" && {{ git checkout -q --detach {commit} || {{ echo '{_CONFLICT}'; exit 3; }}; }}"
        f" && rm -f {DOCKERFILE_NAME}"
    )


def _adopt_script(env_commit: str, commit: str) -> str:
    """Make /testbed (built without .git) a repository at ``env_commit``, then move it."""
    move = (
        ""
        if env_commit == commit
        else f" && {{ git checkout -q --detach {commit} || {{ echo '{_CONFLICT}'; exit 3; }}; }}"
    )
    return (
        "cd /testbed && git init -q"
        f" && printf '%s\\n' {env_commit} {commit} >> .git/shallow"
        f" && echo {env_commit} > .git/HEAD"
        f" && git read-tree {env_commit}"
        " && { git update-index -q --refresh >/dev/null || true; }"
        f"{move} && rm -f {DOCKERFILE_NAME}"
    )


class ImageManager:
    """Makes (and reuses) the images of instances; see the module docstring."""

    def __init__(
        self,
        repos: RepoStore,
        settings: ImageSettings | None = None,
        builder: Builder | None = None,
    ) -> None:
        self.repos = repos
        self.settings = settings or ImageSettings()
        self.builder = builder or Builder(self.settings)
        self._bases: dict[str, BuiltImage] = {}
        self._heads: dict[str, str] = {}
        self._guard = threading.Lock()

    # -- base images -----------------------------------------------------------------

    def _root(self) -> str:
        root = bases.root_image(self.settings)
        if self.builder.find(root) is not None:
            return root
        if self.settings.base_source == "rootfs":
            raise ImageBuildError(
                f"the root image {root} does not exist: make it from a Debian root file system "
                "(scripts/ci-docker-setup.sh does: debootstrap --variant=minbase bookworm DIR, "
                f"then tar -C DIR -c . | docker import - {root})"
            )
        if not self.builder.pull(root):
            raise ImageBuildError(
                f"cannot pull {root}: no registry reachable? (--base-source rootfs builds the "
                "base images from a local root file system)",
                self.builder.log_path(root),
            )
        return root

    def ensure_base(self, name: str) -> BuiltImage:
        """Base image ``name`` (and its parents), built when missing or out of date."""
        with self._guard:
            known = self._bases.get(name)
        if known is not None:
            return known
        parent_name = bases.PARENTS[name]
        parent = self._root() if parent_name is None else self.ensure_base(parent_name).tag
        parent_image = self.builder.find(parent)
        if parent_image is None:
            raise ImageBuildError(f"the parent image {parent} of {name} is missing")
        recipe, key, tag = self._base_target(name, parent, str(parent_image.id))
        labels = image_labels(
            "base",
            tag,
            key=key,
            language=bases.LANGUAGE_OF[name],
            base_source=self.settings.base_source,
        )

        def make() -> str:
            with tempfile.TemporaryFile() as context:
                context.write(bases.context_archive(recipe))
                context.seek(0)
                return self.builder.build(tag, context, "Dockerfile", labels, title=name)

        built = self.builder.once(tag, "base", make)
        image = self.builder.find(tag)
        if image is not None:
            repository, _, version = base_tag(name).partition(":")
            try:
                image.tag(repository, version)
            except DockerException as exc:
                raise ImageBuildError(f"could not tag {tag} as {name}: {exc}") from exc
        with self._guard:
            self._bases[name] = built
        return built

    def _base_target(
        self, name: str, parent: str, parent_id: str
    ) -> tuple[bases.BaseRecipe, str, str]:
        """The recipe, key and tag of base ``name`` built ``FROM parent`` (of id
        ``parent_id``): one rule for building and for planning."""
        recipe = bases.base_recipe(name, parent, self.settings)
        key = recipe.key(parent_id)
        return recipe, key, keyed_base_tag(name, key)

    def planned_base(self, name: str) -> tuple[str, str | None] | None:
        """The tag base ``name`` has when it is current, and its image id (None: it would
        be built now); None when its parents would be built first, so its tag is not
        known yet. Nothing is built or pulled."""
        parent_name = bases.PARENTS[name]
        if parent_name is None:
            parent = bases.root_image(self.settings)
            found = self.builder.find(parent)
            parent_id = str(found.id) if found is not None else None
        else:
            planned = self.planned_base(parent_name)
            if planned is None:
                return None
            parent, parent_id = planned
        if parent_id is None:
            return None
        _, _, tag = self._base_target(name, parent, parent_id)
        image = self.builder.find(tag)
        return tag, (str(image.id) if image is not None else None)

    def ensure_bases(self, names: list[str] | None = None) -> list[BuiltImage]:
        """Every base image (or those named), parents first."""
        wanted = names or list(BASE_NAMES)
        return [self.ensure_base(name) for name in BASE_NAMES if name in wanted]

    # -- environment images ----------------------------------------------------------------

    def _parent_ids(self, parents: tuple[str, ...], build: bool) -> dict[str, str]:
        ids: dict[str, str] = {}
        for parent in parents:
            name = parent.split(":", 1)[0]
            if name in BASE_NAMES and parent in (name, base_tag(name)):
                if build:
                    ids[parent] = self.ensure_base(name).image_id
                    continue
                # Planning: the base as building would find or make it, not whatever the
                # name tag points to now (an out-of-date base is rebuilt first).
                planned = self.planned_base(name)
                if planned is not None and planned[1] is not None:
                    ids[parent] = planned[1]
                continue
            image = self.builder.find(parent)
            if image is not None:
                ids[parent] = str(image.id)
        return ids

    def env_spec(self, instance: Instance, exact: bool = False, build: bool = True) -> EnvSpec:
        """The environment ``instance`` needs (``build=False``: without building bases)."""
        clone = self.repos.clone_for(instance.repo, instance.base_commit)
        first = env_spec(instance, clone)
        parent_ids = self._parent_ids(first.parents, build)
        return env_spec(instance, clone, parent_ids, exact=exact)

    def ensure_env(self, instance: Instance, exact: bool = False) -> BuiltImage:
        """The environment image of ``instance``, built from its Dockerfile when missing."""
        spec = self.env_spec(instance, exact=exact)
        clone = self.repos.clone_for(instance.repo, instance.base_commit)
        labels = image_labels(
            "env",
            spec.tag,
            key=spec.key,
            repo=spec.repo,
            commit=spec.commit,
            language=spec.language,
            dockerfile="generated" if spec.generated else "instance",
        )

        def make() -> str:
            work = temporary_dir(self.settings.cache_dir / "contexts", "env-")
            try:
                checkout = work / "repo"
                shallow_checkout(clone, spec.commit, checkout)
                with tempfile.TemporaryFile(dir=work) as context:
                    write_context(checkout, spec.dockerfile, context)
                    context.seek(0)
                    title = f"the environment of {spec.repo} ({instance.instance_id}'s Dockerfile)"
                    return self.builder.build(spec.tag, context, DOCKERFILE_NAME, labels, title)
            finally:
                shutil.rmtree(work, ignore_errors=True)

        return self.builder.once(spec.tag, "env", make)

    def env_head(self, env: BuiltImage) -> str:
        """The commit checked out in the environment's /testbed ('' when it is no repository)."""
        with self._guard:
            if env.image_id in self._heads:
                return self._heads[env.image_id]
        record = self.settings.cache_dir / "probes" / f"{env.image_id.replace(':', '-')}.json"
        try:
            head = str(json.loads(record.read_text(encoding="utf-8"))["head"])
        except (OSError, ValueError, KeyError):
            head = self._probe_head(env.tag)
            record.parent.mkdir(parents=True, exist_ok=True)
            record.write_text(json.dumps({"head": head}), encoding="utf-8")
        with self._guard:
            self._heads[env.image_id] = head
        return head

    def _probe_head(self, tag: str) -> str:
        script = "git -C /testbed rev-parse -q --verify HEAD 2>/dev/null || true"
        try:
            output = self.builder.client.containers.run(
                tag,
                entrypoint=["/bin/sh", "-c", script],
                command=[],
                remove=True,
                network_mode="none",
                user="0",
                labels=managed_labels("container", purpose="probe"),
            )
        except DockerException as exc:
            raise ImageBuildError(f"could not inspect /testbed of {tag}: {exc}") from exc
        text = output.decode("utf-8", "replace") if isinstance(output, bytes) else ""
        return text.strip()

    # -- instance images -------------------------------------------------------------------

    def ensure_instance(self, instance: Instance) -> BuiltImage:
        """An image holding ``instance``'s repository at its base commit, ready to test."""
        if self.settings.image_source in ("pull", "auto"):
            reference = self.official_reference(instance)
            problem = self._have_official(reference)
            if problem is None:
                return self._official_layer(instance, reference)
            if self.settings.image_source == "pull":
                reason = (problem.strip().splitlines() or ["unknown error"])[0]
                raise ImageBuildError(
                    f"cannot pull {reference}: {reason} "
                    "(--image-source auto builds the image when the pull fails)",
                    self.builder.log_path(reference),
                )
        env = self.ensure_env(instance)
        try:
            return self._instance_layer(instance, env)
        except _CheckoutConflict:
            return self._instance_layer(instance, self.ensure_env(instance, exact=True))

    def official_layer_tag(self, instance: Instance, pulled_id: str) -> str:
        """The tag of the label-only layer on a pulled official image of id ``pulled_id``."""
        reference = self.official_reference(instance)
        needs = command_needs(instance.test_command)
        parts = ["official", reference, pulled_id]
        if not needs.empty:
            parts.append(f"needs={needs.key()}")
        return instance_tag(instance.instance_id, digest(*parts))

    def official_reference(self, instance: Instance) -> str:
        """The prebuilt image of ``instance`` in the configured registry, with its tag."""
        return official_image(
            instance.instance_id, self.settings.image_registry, self.settings.image_tag
        )

    def _have_official(self, reference: str) -> str | None:
        """None when ``reference`` is here (pulled now if it was not), else why it is not."""
        with self.builder.lock(reference):
            if self.builder.find(reference) is not None:
                return None
            return self.builder.try_pull(reference)

    def _official_layer(self, instance: Instance, reference: str) -> BuiltImage:
        """A layer on the pulled image, so that it is tracked like a built one, holding
        what the instance's test command needs (prebuilt images are made for a test run
        with the network: their Maven repository lacks the plugins only the test command
        names); label-only when it needs nothing.

        The pulled image keeps only its own name and labels: cleaning polybench's instance
        images removes this layer, never the pulled image (``images clean --pulled`` does).
        The key holds the pulled image's id, so that pulling a newer image makes a new layer.
        """
        pulled = self.builder.find(reference)
        if pulled is None:
            raise ImageBuildError(f"{reference} is missing right after it was pulled")
        needs = command_needs(instance.test_command)
        tag = self.official_layer_tag(instance, str(pulled.id))
        labels = image_labels(
            "instance",
            tag,
            instance=instance.instance_id,
            repo=instance.repo,
            commit=instance.base_commit,
            source=reference,
            source_id=str(pulled.id),
            # Whatever the pulled image says of its history: each container prunes it.
            history="as-pulled",
        )

        def make() -> str:
            dockerfile = with_preparation(f"FROM {reference}\n", needs)
            context = io.BytesIO(_dockerfile_tar(dockerfile))
            return self.builder.build(tag, context, "Dockerfile", labels, reference)

        return self.builder.once(tag, "instance", make)

    def instance_key(self, instance: Instance, env: BuiltImage) -> str:
        """The key of ``instance``'s layer on ``env``."""
        return digest(INSTANCE_LAYER_VERSION, env.image_id, instance.base_commit)

    def _instance_layer(self, instance: Instance, env: BuiltImage) -> BuiltImage:
        commit = instance.base_commit
        head = self.env_head(env)
        tag = instance_tag(instance.instance_id, self.instance_key(instance, env))
        labels = image_labels(
            "instance",
            tag,
            instance=instance.instance_id,
            repo=instance.repo,
            commit=commit,
            env=env.tag,
            history=PRUNED_HISTORY,
        )

        def make() -> str:
            if head == commit:
                dockerfile = f"FROM {env.tag}\n{prune_step(commit)}\n"
                context = io.BytesIO(_dockerfile_tar(dockerfile))
                return self.builder.build(tag, context, "Dockerfile", labels, instance.instance_id)
            return self._build_moved(instance, env, head, tag, labels)

        return self.builder.once(tag, "instance", make)

    def _build_moved(
        self, instance: Instance, env: BuiltImage, head: str, tag: str, labels: dict[str, str]
    ) -> str:
        commit = instance.base_commit
        clone = self.repos.clone_for(instance.repo, commit)
        wanted = commit_objects(clone, commit)
        if head:
            known = set(commit_objects(clone, head)) if has_commit(clone, head) else set()
            objects = [oid for oid in wanted if oid not in known]
            script = _move_script(commit)
        else:
            env_commit = env.label("commit") or commit
            extra = commit_objects(clone, env_commit) if env_commit != commit else []
            objects = list(dict.fromkeys([*extra, *wanted]))
            script = _adopt_script(env_commit, commit)
        work = temporary_dir(self.settings.cache_dir / "contexts", "instance-")
        try:
            packs = write_pack(clone, objects, work / "pack")
            lines = [f"FROM {env.tag}"]
            if packs:
                lines.append("COPY pack/ /testbed/.git/objects/pack/")
            lines.append(f"RUN {script}")
            lines.append(prune_step(commit))
            files = {f"pack/{p.name}": p for p in packs}
            context = io.BytesIO(_dockerfile_tar("\n".join(lines) + "\n", files))
            try:
                return self.builder.build(tag, context, "Dockerfile", labels, instance.instance_id)
            except ImageBuildError as exc:
                if _CONFLICT in str(exc) or (
                    exc.log_path is not None
                    and _CONFLICT in exc.log_path.read_text(encoding="utf-8", errors="replace")
                ):
                    raise _CheckoutConflict(str(exc), exc.log_path) from exc
                raise
        finally:
            shutil.rmtree(work, ignore_errors=True)
