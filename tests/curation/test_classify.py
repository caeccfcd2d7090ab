"""LLM classifications through the openai client against a local fake endpoint."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from polybench.curation.annotate import annotate_instances
from polybench.curation.classify import (
    CATEGORY,
    COLUMNS,
    LOCATION,
    TASK_CATEGORIES,
    Classifier,
    load_prompt,
    read_label,
    render_prompt,
)
from polybench.curation.dataset_io import write_dataset
from polybench.curation.llm import ChatClient, LLMError, LLMSettings
from polybench.dataset.loaders import load_instances_from_file
from polybench.dataset.models import Instance
from tests.curation.conftest import curation_app
from tests.curation.fake_openai import FakeOpenAI

runner = CliRunner()


def _instance(number: int, statement: str) -> Instance:
    return Instance(
        instance_id=f"acme__lib-{number}",
        repo="acme/lib",
        base_commit="a" * 40,
        language="Python",
        problem_statement=statement,
        patch="diff --git a/x.py b/x.py\n--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n",
        F2P=["t:None:test_x"],
    )


INSTANCES = [
    _instance(1, "parse() crashes on empty input: this is a bug"),
    _instance(2, "Please add a --json option"),
    _instance(3, "The result is wrong for negative numbers"),
]


def test_prompts_are_versioned_package_data() -> None:
    for name in ("task_category", "informativeness"):
        template = load_prompt(name, "v1")
        assert "{{problem_statement}}" in template and "{{gold_patch}}" in template
    assert all(label in load_prompt("task_category") for label in TASK_CATEGORIES)
    for tag in ("label_description", "label_solution", "label_location"):
        assert f"<{tag}>" in load_prompt("informativeness")
    with pytest.raises(FileNotFoundError):
        load_prompt("task_category", "v999")
    filled = render_prompt("{{problem_statement}}|{{gold_patch}}", " issue ", "x" * 50, 10)
    assert filled == "issue|xxxxxxxxxx\n[... 40 more characters of the diff cut ...]"


def test_labels_are_read_strictly() -> None:
    assert read_label("<category>Bug Fix</category>", CATEGORY) == "Bug Fix"
    assert read_label("Sure!\n<category>\n Feature \n</category>\n", CATEGORY) == "Feature"
    assert read_label("<category>bug fix</category>", CATEGORY) is None
    assert read_label("<category>Bugfix</category>", CATEGORY) is None
    assert read_label("Bug Fix", CATEGORY) is None
    assert read_label("<category>Feature</category><category>Feature</category>", CATEGORY) is None
    assert read_label("<label_location>B</label_location>", LOCATION) == "B"
    assert read_label("<label_location>E</label_location>", LOCATION) is None


def _classifier(fake: FakeOpenAI, cache: Path | None, **kwargs: object) -> Classifier:
    settings = LLMSettings(model="fake-model", base_url=fake.base_url, api_key="k3y")
    chat = ChatClient(settings, cache)
    return Classifier(chat, **kwargs)  # type: ignore[arg-type]


def test_answers_are_classified_and_cached(fake_llm: FakeOpenAI, tmp_path: Path) -> None:
    classifier = _classifier(fake_llm, tmp_path)
    labels = classifier.classify(INSTANCES[0])
    assert labels == {
        "task_category": "Bug Fix",
        "informativeness_descriptiveness": "A",
        "informativeness_solution": "A",
        "informativeness_location": "C",
    }
    assert len(fake_llm.requests) == 2
    request = fake_llm.requests[0]
    assert request["model"] == "fake-model" and request["temperature"] == 0.0
    assert "parse() crashes on empty input" in request["messages"][0]["content"]
    assert "+b" in request["messages"][0]["content"]
    assert fake_llm.authorizations[0] == "Bearer k3y"

    again = _classifier(fake_llm, tmp_path)
    assert again.classify(INSTANCES[0]) == labels
    assert len(fake_llm.requests) == 2 and again.chat.calls == 0 and again.chat.cache_hits == 2


def test_malformed_answers_are_asked_again_and_replayed_from_cache(
    fake_llm: FakeOpenAI, tmp_path: Path
) -> None:
    fake_llm.mode = "malformed_first"
    classifier = _classifier(fake_llm, tmp_path)
    labels = classifier.classify(INSTANCES[1])
    assert labels["task_category"] == "Feature"
    assert labels["informativeness_location"] == "C"
    assert len(fake_llm.requests) == 4
    assert classifier.stats.invalid_answers == 2 and classifier.stats.unknown == {}

    rerun = _classifier(fake_llm, tmp_path)
    assert rerun.classify(INSTANCES[1]) == labels
    assert len(fake_llm.requests) == 4 and rerun.chat.cache_hits == 4


def test_never_valid_answers_become_unknown(fake_llm: FakeOpenAI, tmp_path: Path) -> None:
    fake_llm.mode = "always_malformed"
    classifier = _classifier(fake_llm, tmp_path, max_attempts=2)
    labels = classifier.classify(INSTANCES[2])
    assert labels == {
        "task_category": "unknown",
        "informativeness_descriptiveness": "A",  # valid in the malformed answer: kept
        "informativeness_solution": "unknown",
        "informativeness_location": "unknown",
    }
    assert len(fake_llm.requests) == 4
    assert classifier.stats.unknown == {
        "task_category": 1,
        "informativeness_solution": 1,
        "informativeness_location": 1,
    }


def test_server_errors_are_retried_with_backoff(fake_llm: FakeOpenAI) -> None:
    fake_llm.mode = "error_first"
    classifier = _classifier(fake_llm, None)
    assert classifier.classify(INSTANCES[0])["task_category"] == "Bug Fix"
    assert len(fake_llm.requests) == 3  # the 500, its retry, the second prompt


def test_unreachable_api_raises_and_annotate_records_the_failure() -> None:
    chat = ChatClient(
        LLMSettings(model="m", base_url="http://127.0.0.1:9/v1", max_retries=0, timeout=5), None
    )
    with pytest.raises(LLMError, match="APIConnectionError"):
        chat.ask("hello")
    outcome = annotate_instances(INSTANCES[:1], Classifier(chat), None, workers=1)
    assert list(outcome.llm_failures) == ["acme__lib-1"]
    assert {getattr(outcome.instances[0], c) for c in COLUMNS} == {"unknown"}


def test_missing_model_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("POLYBENCH_LLM_MODEL", raising=False)
    with pytest.raises(LLMError, match="--llm-model"):
        ChatClient(LLMSettings(base_url="http://127.0.0.1:9/v1"), None)


def test_annotate_runs_concurrently(fake_llm: FakeOpenAI, tmp_path: Path) -> None:
    fake_llm.hold_until_in_flight = 3
    classifier = _classifier(fake_llm, tmp_path)
    many = [_instance(n, "This is broken" if n % 2 else "Add a flag") for n in range(8)]
    outcome = annotate_instances(many, classifier, None, workers=4)
    assert fake_llm.max_in_flight >= 3
    assert outcome.label_counts["task_category"] == {"Bug Fix": 4, "Feature": 4}
    assert [i.instance_id for i in outcome.instances] == [i.instance_id for i in many]


def test_annotate_cli(fake_llm: FakeOpenAI, tmp_path: Path) -> None:
    base = fake_llm.base_url
    dataset = tmp_path / "in.jsonl"
    write_dataset(INSTANCES, dataset)
    out = tmp_path / "out.csv"
    args = [
        "annotate",
        str(dataset),
        "-o",
        str(out),
        "--no-complexity",
        "--llm-model",
        "fake",
        "--llm-base-url",
        base,
        "--cache-dir",
        str(tmp_path / "llm"),
    ]
    result = runner.invoke(curation_app(), args, env={"OPENAI_API_KEY": "k", "COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "task_category: Bug Fix 2, Feature 1" in result.output
    assert "LLM: 6 requests, 0 answers from cache" in result.output
    annotated = {i.instance_id: i for i in load_instances_from_file(out)}
    assert annotated["acme__lib-2"].task_category == "Feature"
    assert annotated["acme__lib-2"].model_extra == {
        "informativeness_descriptiveness": "A",
        "informativeness_solution": "A",
        "informativeness_location": "C",
    }
    assert annotated["acme__lib-1"].F2P == ["t:None:test_x"]
    rerun = runner.invoke(curation_app(), args, env={"OPENAI_API_KEY": "k", "COLUMNS": "200"})
    assert "LLM: 0 requests, 6 answers from cache" in rerun.output
    no_model = runner.invoke(
        curation_app(),
        ["annotate", str(dataset), "--no-complexity"],
        env={"POLYBENCH_LLM_MODEL": ""},
    )
    assert no_model.exit_code == 2 and "no model configured" in no_model.output
