"""The test registry's compatibility rules (the Avro specification's schema resolution), which
the registry tests rely on to refuse what a real registry refuses."""

from __future__ import annotations

import json
from typing import Any

import pytest

from article_runtime.streams.kafka.registry import RegistrySettings
from article_runtime.streams.kafka.registry_codec import registry_codec
from article_runtime.streams.kafka.topics import TOPICS
from tests.support.registry_server import readable, running_registry


def record(*fields: dict[str, Any], name: str = "R") -> dict[str, Any]:
    return {"type": "record", "name": name, "fields": list(fields)}


@pytest.mark.parametrize(
    ("writer", "reader", "ok"),
    [
        ("int", "long", True),
        ("long", "int", False),
        ("string", "bytes", True),
        ("null", ["null", "string"], True),
        (["null", "string"], "string", False),
        (["null", "string"], ["string", "null"], True),
        (record({"name": "a", "type": "int"}), record({"name": "a", "type": "int"}), True),
        (
            record({"name": "a", "type": "int"}),
            record({"name": "a", "type": "int"}, {"name": "b", "type": "string"}),
            False,
        ),
        (
            record({"name": "a", "type": "int"}),
            record(
                {"name": "a", "type": "int"},
                {"name": "b", "type": ["null", "string"], "default": None},
            ),
            True,
        ),
        (
            record({"name": "a", "type": "int"}),
            record({"name": "a", "type": "int"}, name="S"),
            False,
        ),
        (
            {"type": "enum", "name": "E", "symbols": ["A", "B"]},
            {"type": "enum", "name": "E", "symbols": ["A"]},
            False,
        ),
        (
            {"type": "enum", "name": "E", "symbols": ["A"]},
            {"type": "enum", "name": "E", "symbols": ["A", "B"]},
            True,
        ),
        ({"type": "array", "items": "int"}, {"type": "array", "items": "double"}, True),
        ({"type": "map", "values": "string"}, {"type": "map", "values": "int"}, False),
    ],
)
def test_resolution_rules(writer: Any, reader: Any, ok: bool) -> None:
    assert (readable(writer, reader) == []) is ok


def test_our_history_is_backward_compatible_transitively() -> None:
    """Registries set to BACKWARD_TRANSITIVE take every subject as released."""
    with running_registry() as fresh:
        fresh.registry.level = "BACKWARD_TRANSITIVE"
        url = {"ARTICLE_RUNTIME_SCHEMA_REGISTRY_URL": fresh.url}
        settings = RegistrySettings.from_env(
            url | {"ARTICLE_RUNTIME_VALUE_FORMAT": "schema-registry"}
        )
        assert settings is not None
        _, subjects = registry_codec(settings, blocking=True)
        subjects.register_all()
        # every topic has its subject, repartition topics included
        assert sorted(fresh.registry.subjects) == sorted(f"{t.name}-value" for t in TOPICS)


def test_a_schema_registered_again_keeps_its_id_and_another_gets_a_new_one() -> None:
    with running_registry() as fresh:
        plain = record({"name": "a", "type": "int"})
        documented = record({"name": "a", "type": "int", "doc": "the a"})
        first = fresh.registry.register("s-value", json.dumps(plain))
        assert fresh.registry.register("s-value", json.dumps(plain, indent=2)) == first
        assert fresh.registry.register("s-value", json.dumps(documented)) == first + 1
        assert fresh.registry.subjects["s-value"] == [first, first + 1]
