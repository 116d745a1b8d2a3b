"""Loads the JSON Schemas in ``schemas/json``: one copy serves the runtime, tests and evals."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema

from article_runtime.errors import ContractError

SCHEMA_DIR = Path(__file__).resolve().parents[1] / "schemas" / "json"

HYGIENE_INPUT = "article_content_hygiene.input"
HYGIENE_OUTPUT = "article_content_hygiene.output"
ENRICHMENT_INPUT = "article_sentiment_tags.input"
ENRICHMENT_OUTPUT = "article_sentiment_tags.output"


@cache
def load_schema(name: str) -> dict[str, Any]:
    path = SCHEMA_DIR / f"{name}.schema.json"
    try:
        schema: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        jsonschema.Draft7Validator.check_schema(schema)
    except (OSError, ValueError, jsonschema.SchemaError) as exc:
        raise ContractError("malformed_schema", f"{path.name}: {exc}") from exc
    return schema


@cache
def validator(name: str) -> jsonschema.Draft7Validator:
    return jsonschema.Draft7Validator(load_schema(name))


def first_violation(name: str, instance: object) -> str | None:
    """A one-line description of the first schema violation, or None when valid."""
    error = jsonschema.exceptions.best_match(validator(name).iter_errors(instance))
    if error is None:
        return None
    where = "/".join(str(p) for p in error.absolute_path) or "(root)"
    return f"{where}: {error.message}"[:300]
