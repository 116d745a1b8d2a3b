"""The schema providers receive in response_format: every constraint, no annotations."""

from __future__ import annotations

import json
from typing import Any

import jsonschema_rs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from article_runtime import contracts
from tests.factories import proposal

OUTPUTS = (contracts.HYGIENE_OUTPUT, contracts.ENRICHMENT_OUTPUT)


def _keys(node: Any) -> set[str]:
    """Every key of every object in a JSON document, property names included."""
    if isinstance(node, dict):
        return set(node) | {k for value in node.values() for k in _keys(value)}
    if isinstance(node, list):
        return {k for value in node for k in _keys(value)}
    return set()


def _schema_keywords(node: Any) -> set[str]:
    """Keys used as keywords (not as property names) anywhere in a schema."""
    if not isinstance(node, dict):
        return set()
    found = set(node)
    for key, value in node.items():
        if key in ("properties", "definitions") and isinstance(value, dict):
            found |= {k for sub in value.values() for k in _schema_keywords(sub)}
        elif isinstance(value, dict):
            found |= _schema_keywords(value)
        elif isinstance(value, list):
            found |= {k for sub in value for k in _schema_keywords(sub)}
    return found


@pytest.mark.parametrize("name", OUTPUTS)
def test_no_annotation_is_sent(name: str) -> None:
    wire = contracts.wire_schema(name)
    assert not _schema_keywords(wire) & {"description", "title", "$schema", "$id", "version"}
    assert len(json.dumps(wire)) < len(json.dumps(contracts.load_schema(name)))


def test_a_property_named_like_an_annotation_is_kept() -> None:
    schema = {
        "type": "object",
        "description": "dropped",
        "properties": {"title": {"type": "string", "description": "dropped"}},
        "required": ["title"],
    }
    stripped = contracts._without_annotations(schema)
    assert stripped == {
        "type": "object",
        "properties": {"title": {"type": "string"}},
        "required": ["title"],
    }


def _instances(name: str) -> st.SearchStrategy[Any]:
    """JSON shaped like answers: objects whose keys come from the schema, with values of
    every JSON type, so that most instances break some constraint and some pass."""
    keys = sorted(_keys(contracts.load_schema(name)) | {"other"})
    enums = [
        value
        for value in json.dumps(contracts.load_schema(name)).split('"')
        if value.isidentifier()
    ]
    scalars = (
        st.none()
        | st.booleans()
        | st.integers(-3, 3)
        | st.sampled_from(enums)
        | st.text(max_size=20)
        | st.text(min_size=190, max_size=210)
    )
    return st.recursive(
        scalars,
        lambda inner: (
            st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(keys), inner, max_size=8)
        ),
        max_leaves=30,
    )


@pytest.mark.parametrize("name", OUTPUTS)
@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_the_wire_schema_accepts_exactly_what_the_file_accepts(name: str, data: Any) -> None:
    instance = data.draw(_instances(name))
    wire = jsonschema_rs.Draft7Validator(contracts.wire_schema(name))
    assert wire.is_valid(instance) == (contracts.first_violation(name, instance) is None)


@settings(max_examples=200, deadline=None)
@given(
    key=st.sampled_from(sorted(proposal())),
    value=st.none() | st.integers() | st.text(max_size=30) | st.lists(st.text(max_size=20)),
)
def test_a_valid_answer_with_one_field_changed_gets_the_same_verdict(key: str, value: Any) -> None:
    """Near-valid answers: the constraints that matter are tested at their edges too."""
    name = contracts.HYGIENE_OUTPUT
    wire = jsonschema_rs.Draft7Validator(contracts.wire_schema(name))
    assert wire.is_valid(proposal()) and contracts.first_violation(name, proposal()) is None
    changed = {**proposal(), key: value}
    assert wire.is_valid(changed) == (contracts.first_violation(name, changed) is None)


# The strict adaptation (OpenAI structured outputs, strict: true), checked against the file by
# rules written here: what the strict subset has no keyword for, and how a field the file
# leaves optional reads there (required, null when the answer has nothing to say).
NO_STRICT_KEYWORD = {"minLength", "maxLength", "uniqueItems"}
REPAIR = {"target_id": "b2", "original": "Rio", "replacement": "Rio", "category": "spacing",
          "justification": "x"}  # fmt: skip
TAG = {"tag": "enchentes", "evidence_block_ids": ["p1"]}


def _without(node: Any, keywords: set[str]) -> Any:
    """A schema with ``keywords`` taken out wherever they constrain (not as property names)."""
    if isinstance(node, dict):
        return {
            key: (
                {name: _without(sub, keywords) for name, sub in value.items()}
                if key in ("properties", "definitions")
                else _without(value, keywords)
            )
            for key, value in node.items()
            if key not in keywords
        }
    if isinstance(node, list):
        return [_without(item, keywords) for item in node]
    return node


def _resolve(root: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    ref = node.get("$ref")
    if ref is None:
        return node
    resolved: dict[str, Any] = root["definitions"][ref.rsplit("/", 1)[-1]]
    return resolved


def _as_strict(root: dict[str, Any], node: dict[str, Any], value: Any) -> Any:
    """``value`` as a strict answer says it: an optional field it leaves out is null."""
    node = _resolve(root, node)
    if isinstance(value, dict) and "properties" in node:
        out = dict(value)
        for name, sub in node["properties"].items():
            if name in out:
                out[name] = _as_strict(root, sub, out[name])
            elif name not in node.get("required", []):
                out[name] = None
        return out
    if isinstance(value, list) and isinstance(node.get("items"), dict):
        return [_as_strict(root, node["items"], item) for item in value]
    return value


def _verdicts(name: str, instance: Any) -> tuple[bool, bool, bool]:
    """(file, file without what strict cannot say, strict adaptation) on one answer."""
    full = contracts.load_schema(name)
    relaxed = jsonschema_rs.Draft7Validator(_without(full, NO_STRICT_KEYWORD))
    strict = jsonschema_rs.Draft7Validator(contracts.strict_wire_schema(name))
    file_ok = contracts.first_violation(name, instance) is None
    return file_ok, relaxed.is_valid(instance), strict.is_valid(_as_strict(full, full, instance))


@pytest.mark.parametrize("name", OUTPUTS)
@settings(max_examples=400, deadline=None)
@given(data=st.data())
def test_the_strict_schema_accepts_exactly_what_the_file_accepts_but_lengths_and_repeats(
    name: str, data: Any
) -> None:
    """Same verdict as the file on every answer, once the rules strict mode has no keyword
    for are set aside (the harness keeps checking those): so strict decoding never rules out
    a valid answer, and lets through only what the harness refuses by those rules."""
    instance = data.draw(_instances(name))
    file_ok, relaxed_ok, strict_ok = _verdicts(name, instance)
    assert strict_ok == relaxed_ok
    assert strict_ok or not file_ok


@settings(max_examples=300, deadline=None)
@given(
    key=st.sampled_from([*sorted(proposal()), "removed_block_reasons"]),
    value=st.none()
    | st.integers()
    | st.text(max_size=30)
    | st.lists(st.text(max_size=20), max_size=3)
    | st.lists(
        st.fixed_dictionaries(
            {"block_id": st.text(max_size=20), "reason": st.sampled_from(["advertising", "x"])}
        ),
        max_size=3,
    )
    | st.lists(st.just(REPAIR), min_size=60, max_size=70),  # about maxItems 64
    drop=st.booleans(),
)
def test_near_valid_answers_get_the_same_strict_verdict(key: str, value: Any, drop: bool) -> None:
    """Answers one field away from valid, the optional field present, null or left out."""
    name = contracts.HYGIENE_OUTPUT
    answer = {k: v for k, v in proposal().items() if not (drop and k == key)}
    if not drop:
        answer[key] = value
    file_ok, relaxed_ok, strict_ok = _verdicts(name, answer)
    assert strict_ok == relaxed_ok
    assert strict_ok or not file_ok


@pytest.mark.parametrize("name", OUTPUTS)
def test_the_strict_schema_keeps_to_the_strict_subset(name: str) -> None:
    """Every object closed with every property required; no keyword strict mode refuses."""
    strict = contracts.strict_wire_schema(name)
    assert not _schema_keywords(strict) & (NO_STRICT_KEYWORD | {"definitions"})

    def objects(node: Any) -> list[dict[str, Any]]:
        if isinstance(node, dict):
            own = [node] if "properties" in node else []
            return own + [o for value in node.values() for o in objects(value)]
        if isinstance(node, list):
            return [o for value in node for o in objects(value)]
        return []

    for node in objects(strict):
        assert node["additionalProperties"] is False
        assert node["required"] == list(node["properties"])


@pytest.mark.parametrize(
    ("name", "answer"),
    [
        (contracts.HYGIENE_OUTPUT, proposal(repairs=[REPAIR] * 65)),
        (contracts.HYGIENE_OUTPUT, proposal(repairs=[{**REPAIR, "category": "style"}])),
        (contracts.HYGIENE_OUTPUT, proposal(subtitle_candidate_id=7)),
        (contracts.ENRICHMENT_OUTPUT, {"sentiment": "positive", "tags": [TAG] * 9}),
        (contracts.ENRICHMENT_OUTPUT, {"sentiment": "positive", "tags": [TAG] * 2}),
        (contracts.ENRICHMENT_OUTPUT, {"sentiment": "good", "tags": [TAG] * 3}),
        (
            contracts.ENRICHMENT_OUTPUT,
            {"sentiment": "neutral", "tags": [{**TAG, "evidence_block_ids": ["p1"] * 6}] * 3},
        ),
    ],
)
def test_strict_decoding_rules_out_what_breaks_counts_enums_and_types(
    name: str, answer: Any
) -> None:
    assert _verdicts(name, answer) == (False, False, False)
