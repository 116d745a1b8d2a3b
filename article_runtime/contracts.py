"""Loads the JSON Schemas in ``schemas/json``: one copy serves the runtime, tests and evals."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from typing import Any

import jsonschema_rs

from article_runtime.bounded_json import shown_key
from article_runtime.errors import ContractError
from article_runtime.resources import JSON_SCHEMA_DIR

HYGIENE_INPUT = "article_content_hygiene.input"
HYGIENE_OUTPUT = "article_content_hygiene.output"
ENRICHMENT_INPUT = "article_sentiment_tags.input"
ENRICHMENT_OUTPUT = "article_sentiment_tags.output"


@dataclass(frozen=True, slots=True)
class Violation:
    """One way an instance breaks its schema: where, which keyword, and the rule's bound.

    ``str`` is ``path: rule`` (``kept_block_ids: required``, ``repairs/3/original: maxLength
    200``, ``(root): additionalProperties 'summary'``): names from the schema, indices and
    bounds, never a value of the answer, so it can travel into attempt records and traces.
    """

    where: str  # instance path joined with "/", "(root)" for the top level
    keyword: str  # the schema keyword that failed: "enum", "minItems", "additionalProperties"...
    bound: str = ""  # the rule's own value: a limit, the expected types, unexpected field names

    def __str__(self) -> str:
        rule = f"{self.keyword} {self.bound}" if self.bound else self.keyword
        return f"{self.where}: {rule}"[:300]


@cache
def load_schema(name: str) -> dict[str, Any]:
    path = JSON_SCHEMA_DIR / f"{name}.schema.json"
    try:
        schema: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        jsonschema_rs.meta.validate(schema)
    except (OSError, ValueError, jsonschema_rs.ValidationError) as exc:
        raise ContractError("malformed_schema", f"{path.name}: {exc}") from exc
    return schema


# Keywords that only annotate a schema (JSON Schema draft 7, "annotations"): they constrain
# nothing, and what the descriptions say the prompt already says.
_ANNOTATIONS = frozenset({"$schema", "$id", "$comment", "title", "description", "version"})
_SUBSCHEMA_MAPS = ("properties", "definitions", "$defs", "patternProperties")
_SUBSCHEMA_LISTS = ("anyOf", "allOf", "oneOf", "items")
_SUBSCHEMAS = ("items", "additionalProperties", "additionalItems", "not", "contains")


def _without_annotations(node: Any) -> Any:
    """A schema with its annotation keywords left out at every level; property names are
    kept as they are, even one called ``title`` or ``description``."""
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in _ANNOTATIONS:
            continue
        if key in _SUBSCHEMA_MAPS and isinstance(value, dict):
            value = {name: _without_annotations(sub) for name, sub in value.items()}
        elif key in _SUBSCHEMA_LISTS and isinstance(value, list):
            value = [_without_annotations(sub) for sub in value]
        elif key in _SUBSCHEMAS:
            value = _without_annotations(value)
        out[key] = value
    return out


@cache
def wire_schema(name: str) -> dict[str, Any]:
    """The schema as providers receive it in ``response_format``: every constraint of the
    file (the harness still validates against the file itself), no annotations. The
    provider bills it as context on every call: 683 tokens with annotations on the hygiene
    schema, 414 without (o200k_base, compact JSON)."""
    stripped: dict[str, Any] = _without_annotations(load_schema(name))
    return stripped


# OpenAI's structured outputs with strict: true enforce a subset of JSON Schema and refuse a
# schema holding these keywords (its supported list has no string lengths and no uniqueness);
# the harness still checks them against the file.
NOT_IN_STRICT = frozenset({"minLength", "maxLength", "uniqueItems"})


def _strict(node: Any, optional_nullable: bool = False) -> Any:
    """One node of the strict adaptation (see ``strict_wire_schema``)."""
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in NOT_IN_STRICT:
            continue
        if key == "$ref" and isinstance(value, str):
            value = value.replace("#/definitions/", "#/$defs/")
        elif key == "definitions":
            key, value = "$defs", {n: _strict(sub) for n, sub in value.items()}
        elif key == "properties":
            required = set(node.get("required") or ())
            value = {n: _strict(sub, n not in required) for n, sub in value.items()}
        elif key in ("items", "additionalProperties"):
            value = _strict(value)
        out[key] = value
    if optional_nullable:
        types = out.get("type")
        if not (isinstance(types, list) and "null" in types):
            raise ContractError("malformed_schema", "an optional property must be nullable")
    if out.get("type") == "object" or "properties" in out:
        out["required"] = list(out.get("properties") or {})
        out["additionalProperties"] = False
    return out


@cache
def strict_wire_schema(name: str) -> dict[str, Any]:
    """``wire_schema`` adapted to OpenAI's strict subset (``strict: true``): every property
    required and every object closed; a property the file leaves optional must already be
    nullable there, so an answer naming it null means what one leaving it out means, and
    the harness reads strict answers as they come; ``definitions`` become ``$defs``; the
    keywords of ``NOT_IN_STRICT`` are left to the harness.

    Raises:
        ContractError: ``malformed_schema`` for an optional property that is not nullable.
    """
    adapted: dict[str, Any] = _strict(wire_schema(name))
    return adapted


@cache
def _validator(name: str) -> jsonschema_rs.Draft7Validator:
    return jsonschema_rs.Draft7Validator(load_schema(name))


def _violation(error: jsonschema_rs.ValidationError) -> Violation:
    """The error by its place and rule: a missing property joins the path (``kept_block_ids:
    required``), a limit or type follows the rule; unexpected fields are named only when
    they read as field names (``bounded_json.shown_key``)."""
    path = [str(p) for p in error.instance_path]
    keyword = str(error.schema_path[-1]) if error.schema_path else ""
    kind = error.kind
    bound = ""
    if isinstance(kind, jsonschema_rs.ValidationErrorKind.Required):
        path.append(str(kind.property))
    elif isinstance(kind, jsonschema_rs.ValidationErrorKind.Type):
        bound = "|".join(str(t) for t in kind.types)
    elif isinstance(kind, jsonschema_rs.ValidationErrorKind.AdditionalProperties):
        bound = ", ".join(shown_key(str(key)) for key in kind.unexpected)
    elif hasattr(kind, "limit"):
        bound = str(kind.limit)
    return Violation(where="/".join(path) or "(root)", keyword=keyword, bound=bound)


def violations(name: str, instance: object) -> Iterator[Violation]:
    """Every violation of schema ``name``, in the validator's order, made as they are read
    (jsonschema-rs: ~500x faster than pure Python on a 300-block proposal, which mattered
    for the per-article CPU budget)."""
    return (_violation(error) for error in _validator(name).iter_errors(instance))


def first_violation(name: str, instance: object) -> str | None:
    """The first schema violation as ``path: rule``, or None when valid."""
    if _validator(name).is_valid(instance):
        return None
    return str(next(violations(name, instance)))
