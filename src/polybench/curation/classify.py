"""The paper's zero-shot LLM classifications (appendix C), read strictly from XML tags.

Two prompts, each a versioned template in ``polybench/curation/prompts/``
(``<name>.<version>.txt``, placeholders ``{{problem_statement}}`` and ``{{gold_patch}}``):

- ``task_category``: one of Bug Fix, Feature, Testing, Refactoring, Security, in
  ``<category>``;
- ``informativeness``: descriptiveness A-D in ``<label_description>``, solution A-E in
  ``<label_solution>``, location A-D in ``<label_location>`` (paper Table 7).

An answer counts when its tag occurs exactly once and holds exactly one of the labels
(surrounding whitespace aside; text outside the tags is ignored). Labels missing from an
answer are asked for again (up to ``max_attempts`` answers per prompt); a label never
given validly is recorded as ``unknown``.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field
from importlib import resources

from polybench.curation.llm import ChatClient
from polybench.dataset.models import Instance

UNKNOWN = "unknown"
TASK_CATEGORIES = ("Bug Fix", "Feature", "Testing", "Refactoring", "Security")
DEFAULT_PROMPT_VERSION = "v1"
DEFAULT_MAX_PATCH_CHARS = 60_000


@dataclass(frozen=True)
class LabelSpec:
    """One label an answer must give: its dataset column, its tag and the allowed values."""

    column: str
    tag: str
    labels: tuple[str, ...]


CATEGORY = LabelSpec("task_category", "category", TASK_CATEGORIES)
DESCRIPTIVENESS = LabelSpec("informativeness_descriptiveness", "label_description", tuple("ABCD"))
SOLUTION = LabelSpec("informativeness_solution", "label_solution", tuple("ABCDE"))
LOCATION = LabelSpec("informativeness_location", "label_location", tuple("ABCD"))

PROMPTS: dict[str, tuple[LabelSpec, ...]] = {
    "task_category": (CATEGORY,),
    "informativeness": (DESCRIPTIVENESS, SOLUTION, LOCATION),
}
COLUMNS = tuple(spec.column for specs in PROMPTS.values() for spec in specs)


def load_prompt(name: str, version: str = DEFAULT_PROMPT_VERSION) -> str:
    """The template ``<name>.<version>.txt`` shipped with polybench."""
    path = resources.files("polybench.curation") / "prompts" / f"{name}.{version}.txt"
    if not path.is_file():
        raise FileNotFoundError(f"no prompt template {name}.{version}.txt")
    return path.read_text(encoding="utf-8")


def render_prompt(template: str, problem_statement: str, patch: str, max_patch_chars: int) -> str:
    """Fill a template; a patch longer than ``max_patch_chars`` is cut with a note."""
    if len(patch) > max_patch_chars:
        dropped = len(patch) - max_patch_chars
        patch = patch[:max_patch_chars] + f"\n[... {dropped} more characters of the diff cut ...]"
    return template.replace("{{problem_statement}}", problem_statement.strip()).replace(
        "{{gold_patch}}", patch.rstrip("\n")
    )


def read_label(answer: str, spec: LabelSpec) -> str | None:
    """The label of ``spec`` in ``answer``, or None when it is absent, repeated or invalid."""
    tag = re.escape(spec.tag)
    found = re.findall(rf"<{tag}>(.*?)</{tag}>", answer, flags=re.S)
    if len(found) != 1:
        return None
    value = found[0].strip()
    return value if value in spec.labels else None


@dataclass
class ClassifierStats:
    """Counters over every instance classified (thread-safe updates)."""

    answers: int = 0
    invalid_answers: int = 0
    unknown: dict[str, int] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def record(self, answers: int, invalid: int, unknown: list[str]) -> None:
        """Add one prompt's outcome."""
        with self._lock:
            self.answers += answers
            self.invalid_answers += invalid
            for column in unknown:
                self.unknown[column] = self.unknown.get(column, 0) + 1


class Classifier:
    """Asks both prompts for an instance and returns the four label columns."""

    def __init__(
        self,
        chat: ChatClient,
        prompt_version: str = DEFAULT_PROMPT_VERSION,
        max_attempts: int = 3,
        max_patch_chars: int = DEFAULT_MAX_PATCH_CHARS,
    ) -> None:
        self.chat = chat
        self.prompt_version = prompt_version
        self.max_attempts = max(1, max_attempts)
        self.max_patch_chars = max_patch_chars
        self.templates = {name: load_prompt(name, prompt_version) for name in PROMPTS}
        self.stats = ClassifierStats()

    def classify(self, instance: Instance) -> dict[str, str]:
        """``{column: label or "unknown"}`` for every classification column.

        Raises :class:`polybench.curation.llm.LLMError` when the API fails.
        """
        labels: dict[str, str] = {}
        for name, specs in PROMPTS.items():
            prompt = render_prompt(
                self.templates[name],
                instance.problem_statement,
                instance.patch,
                self.max_patch_chars,
            )
            labels.update(self._ask(prompt, specs))
        return labels

    def _ask(self, prompt: str, specs: tuple[LabelSpec, ...]) -> dict[str, str]:
        found: dict[str, str] = {}
        answers = invalid = 0
        for attempt in range(1, self.max_attempts + 1):
            answer = self.chat.ask(prompt, attempt)
            answers += 1
            for spec in specs:
                if spec.column not in found:
                    value = read_label(answer, spec)
                    if value is not None:
                        found[spec.column] = value
            if len(found) == len(specs):
                break
            invalid += 1
        unknown = [spec.column for spec in specs if spec.column not in found]
        self.stats.record(answers, invalid, unknown)
        return {spec.column: found.get(spec.column, UNKNOWN) for spec in specs}
