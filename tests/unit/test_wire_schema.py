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
