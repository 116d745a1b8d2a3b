"""A JSON object holding one key twice is ``invalid_json`` in both prompts' answers (issue 35).

Documents are written here by an independent JSON writer over objects given as lists of
pairs, so a key can repeat at any depth, spelled the same or through escapes (``"a"`` and
``"\\u0061"`` are one key once decoded).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from article_runtime.bounded_json import DuplicateKeyError, loads
from article_runtime.enrichment.harness import validate_enrichment
from article_runtime.enrichment.model import EnrichmentInput, Entity, EvidenceBlock
from article_runtime.harness.pipeline import validate
from article_runtime.harness.runner import StepFailure, parse_json
from tests.factories import candidate_set, proposal


class Pairs(list[tuple[str, Any]]):
    """An object as written: its pairs in order, repeats allowed."""


def write(value: Any, spell: st.DataObject | None = None) -> str:
    """JSON text of ``value``; with ``spell``, each key is drawn as itself or \\u-escaped."""
    if isinstance(value, Pairs):
        parts = [f"{key_text(k, spell)}: {write(v, spell)}" for k, v in value]
        return "{" + ", ".join(parts) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(write(item, spell) for item in value) + "]"
    return json.dumps(value)


def key_text(key: str, spell: st.DataObject | None) -> str:
    if spell is None or not spell.draw(st.booleans()):
        return json.dumps(key)
    units = key.encode("utf-16-be")
    return '"' + "".join(f"\\u{units[i : i + 2].hex()}" for i in range(0, len(units), 2)) + '"'


def repeats(value: Any) -> bool:
    """Whether some object, at any depth, holds a key twice."""
    if isinstance(value, Pairs):
        keys = [k for k, _ in value]
        return len(set(keys)) < len(keys) or any(repeats(v) for _, v in value)
    if isinstance(value, list):
        return any(repeats(item) for item in value)
    return False


KEYS = st.sampled_from(["a", "b", "tags", "repairs", "é", "😀"]) | st.text(max_size=4)
SCALARS = st.none() | st.booleans() | st.integers() | st.text(max_size=8)
DOCUMENTS = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.lists(st.tuples(KEYS, inner), max_size=5).map(Pairs)
    ),
    max_leaves=25,
)


@settings(max_examples=500, deadline=None)
@given(document=DOCUMENTS, spell=st.data())
def test_a_repeated_key_at_any_depth_is_refused_and_nothing_else_is(
    document: Any, spell: st.DataObject
) -> None:
    text = write(document, spell)
    if repeats(document):
        with pytest.raises(DuplicateKeyError):
            loads(text, unique_keys=True)
        with pytest.raises(StepFailure) as failure:
            parse_json(text)
        assert failure.value.reason == "invalid_json"
    else:
        assert loads(text, unique_keys=True) == json.loads(text)


def test_without_the_rule_the_last_value_wins_silently() -> None:
    """Why the rule exists: json.loads keeps one of the two values without a word."""
    assert loads('{"a": 1, "\\u0061": 2}') == {"a": 2}


def pairs_of(value: Any) -> Any:
    if isinstance(value, dict):
        return Pairs((k, pairs_of(v)) for k, v in value.items())
    if isinstance(value, list):
        return [pairs_of(item) for item in value]
    return value


def objects_in(value: Any) -> list[Pairs]:
    """Every object of a document, the outermost first."""
    if isinstance(value, Pairs):
        return [value, *(o for _, v in value for o in objects_in(v))]
    if isinstance(value, list):
        return [o for item in value for o in objects_in(item)]
    return []


def with_a_repeat(answer: dict[str, Any], data: st.DataObject) -> str:
    """``answer`` written with one of its objects, at any depth, holding one of its keys
    twice: the second value the same or another, at any place among the pairs."""
    document = pairs_of(answer)
    target = data.draw(st.sampled_from(objects_in(document)))
    key, value = data.draw(st.sampled_from(list(target)))
    again = data.draw(st.sampled_from([value, None, "x", [], Pairs()]))
    target.insert(data.draw(st.integers(0, len(target))), (key, again))
    return write(document, data)


HYGIENE_ANSWER = proposal(
    repairs=[
        {
            "target_id": "b2",
            "original": "Rio",
            "replacement": "Rio",
            "category": "spacing",
            "justification": "x",
        }
    ],
    removed_block_reasons=[{"block_id": "b6", "reason": "newsletter"}],
)


@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_a_hygiene_answer_with_a_repeated_key_is_invalid_json(data: st.DataObject) -> None:
    _, report = validate(candidate_set(), with_a_repeat(HYGIENE_ANSWER, data))
    assert (report.reason, report.steps[0].outcome) == ("invalid_json", "failed")


ARTICLE = EnrichmentInput(
    title="Rio anuncia plano contra enchentes",
    subtitle=None,
    language="pt",
    entity=Entity(qid="Q1", name="Rio"),
    blocks=[EvidenceBlock(id="p1", text="A prefeitura do Rio anunciou um plano contra enchentes.")],
)
ENRICHMENT_ANSWER = {
    "sentiment": "positive",
    "tags": [
        {"tag": "enchentes", "evidence_block_ids": ["p1"]},
        {"tag": "prefeitura", "evidence_block_ids": ["p1"]},
        {"tag": "Rio", "evidence_block_ids": ["p1"]},
    ],
}


@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_an_enrichment_answer_with_a_repeated_key_is_invalid_json(data: st.DataObject) -> None:
    report = validate_enrichment(with_a_repeat(ENRICHMENT_ANSWER, data), ARTICLE).report
    assert (report.reason, report.steps[0].outcome) == ("invalid_json", "failed")


def test_the_answers_without_a_repeat_pass_the_parse_step() -> None:
    """The control: the same answers, each key once, are parsed."""
    _, report = validate(candidate_set(), json.dumps(HYGIENE_ANSWER))
    assert report.steps[0].outcome == "passed"
    report = validate_enrichment(json.dumps(ENRICHMENT_ANSWER), ARTICLE).report
    assert report.steps[0].outcome == "passed"


def test_the_detail_names_a_field_name_but_never_other_text() -> None:
    with pytest.raises(StepFailure) as named:
        parse_json('{"kept_block_ids": [], "kept_block_ids": []}')
    assert "'kept_block_ids'" in named.value.detail
    secret = "Ministro renuncia"
    with pytest.raises(StepFailure) as hidden:
        parse_json(json.dumps({secret: 1})[:-1] + f', "{secret}": 2}}')
    assert secret not in hidden.value.detail
