"""The compact schema the prompt carries says what the JSON Schema file says (spec 5.3)."""

from __future__ import annotations

import pytest

from article_runtime.errors import ContractError
from article_runtime.llm.schema_text import schema_text


def test_types_bounds_enums_and_optional_keys() -> None:
    schema = {
        "type": "object",
        "additionalProperties": False,
        "required": ["a", "b"],
        "properties": {
            "a": {"type": ["string", "null"], "minLength": 1, "maxLength": 16},
            "b": {
                "type": "array",
                "minItems": 3,
                "maxItems": 8,
                "items": {"$ref": "#/definitions/t"},
            },
            "c": {"type": "string", "enum": ["x", "y"]},
        },
        "definitions": {"t": {"type": "string", "maxLength": 60}},
    }
    assert schema_text(schema) == (
        'ID = string(1-16)\n{a: ID|null, b: [string(≤60)](3-8), c?: "x"|"y"}'
    )


def test_an_open_object_says_so_and_unused_aliases_are_not_defined() -> None:
    assert schema_text({"type": "object", "properties": {"n": {"type": "integer"}}}) == (
        "{n?: integer, ...}"
    )


def test_a_keyword_without_a_compact_form_is_refused_not_dropped() -> None:
    with pytest.raises(ContractError) as caught:
        schema_text({"type": "string", "pattern": "^a"})
    assert caught.value.reason == "malformed_schema"
