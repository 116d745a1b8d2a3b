"""Hypothesis strategies for any datum of an Avro schema, read from the schema's JSON as the
Avro specification describes it (written apart from ``article_runtime.streams.kafka.codec``)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from hypothesis import strategies as st

_MIN_TS = datetime(1970, 1, 1)  # hypothesis wants naive bounds
_MAX_TS = datetime(2100, 1, 1)


def named_types(
    schema: Any, namespace: str = "", into: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Every named type of ``schema`` (record, enum, fixed) by short and full name."""
    found: dict[str, Any] = {} if into is None else into
    if isinstance(schema, list):
        for branch in schema:
            named_types(branch, namespace, found)
    elif isinstance(schema, dict):
        kind = schema.get("type")
        if kind in ("record", "enum", "fixed"):
            space = schema.get("namespace", namespace)
            name = schema["name"]
            full = name if "." in name or not space else f"{space}.{name}"
            found[full] = found[full.rpartition(".")[2]] = schema
            for f in schema.get("fields", []):
                named_types(f["type"], full.rpartition(".")[0], found)
        elif kind == "array":
            named_types(schema["items"], namespace, found)
        elif kind == "map":
            named_types(schema["values"], namespace, found)
        elif isinstance(kind, dict | list):
            named_types(kind, namespace, found)
    return found


def _timestamp(unit: int) -> st.SearchStrategy[datetime]:
    def cut(moment: datetime) -> datetime:
        micros = moment.microsecond - moment.microsecond % unit
        return moment.replace(microsecond=micros, tzinfo=UTC)

    return st.datetimes(min_value=_MIN_TS, max_value=_MAX_TS).map(cut)


def datum(schema: Any, names: dict[str, Any]) -> st.SearchStrategy[Any]:
    """Any value ``schema`` can hold, as fastavro reads it back (aware UTC timestamps)."""
    if isinstance(schema, list):
        return st.one_of(*(datum(branch, names) for branch in schema))
    if isinstance(schema, str):
        if schema in names:
            return datum(names[schema], names)
        schema = {"type": schema}
    kind = schema["type"]
    logical = schema.get("logicalType")
    if isinstance(kind, dict | list) or (isinstance(kind, str) and kind in names):
        return datum(kind, names)
    if logical == "timestamp-millis" and kind == "long":
        return _timestamp(1000)
    if logical == "timestamp-micros" and kind == "long":
        return _timestamp(1)
    simple: dict[str, st.SearchStrategy[Any]] = {
        "null": st.none(),
        "boolean": st.booleans(),
        "int": st.integers(-(2**31), 2**31 - 1),
        "long": st.integers(-(2**63), 2**63 - 1),
        "float": st.floats(width=32, allow_nan=False),
        "double": st.floats(allow_nan=False),
        "bytes": st.binary(max_size=64),
        "string": st.text(max_size=40),
    }
    if kind in simple:
        return simple[kind]
    if kind == "enum":
        return st.sampled_from(schema["symbols"])
    if kind == "fixed":
        return st.binary(min_size=schema["size"], max_size=schema["size"])
    if kind == "array":
        return st.lists(datum(schema["items"], names), max_size=3)
    if kind == "map":
        return st.dictionaries(st.text(max_size=10), datum(schema["values"], names), max_size=3)
    if kind == "record":
        return st.fixed_dictionaries({f["name"]: datum(f["type"], names) for f in schema["fields"]})
    raise ValueError(f"no strategy for {kind}")
