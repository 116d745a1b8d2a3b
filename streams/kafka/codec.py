"""Avro single-object encoding for every topic value, with an in-process schema registry, or
the schema registry's wire format when a deployment has one.

Each value carries its writer schema's CRC-64-AVRO fingerprint (``C3 01`` + 8 bytes, little
endian), so a reader finds the exact writer schema and resolves it against its own: old
messages stay readable after a schema evolves. fastavro has no single-object helper, hence
this module. Failures are categorical (``DecodeError.reason``) so a worker can turn them into
compensation events instead of crashing.

With a registry (``article_runtime.streams.kafka.registry``) a value may instead be framed as the
registry tools read it: a zero byte, the writer schema's registry ID (4 bytes, big endian), then the
Avro binary body. Such a codec reads both framings (a topic moved from one to the other holds
both) and writes the one its settings name (``article_runtime.streams.kafka.registry_codec``).
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal, get_args

from fastavro import schemaless_reader, schemaless_writer
from fastavro.read import SchemaResolutionError
from fastavro.schema import fingerprint, parse_schema, to_parsing_canonical_form
from fastavro.types import Schema

from article_runtime.errors import ContractError
from article_runtime.resources import AVRO_DIR
from article_runtime.streams.kafka.registry_schemas import RegistrySchemas
from article_runtime.streams.kafka.topics import TOPICS

MAGIC = b"\xc3\x01"
HEADER_SIZE = len(MAGIC) + 8
REGISTRY_MAGIC = b"\x00"  # the registry's wire format: 00, the schema ID (4 bytes, big endian)
REGISTRY_HEADER_SIZE = len(REGISTRY_MAGIC) + 4

DecodeReason = Literal[
    "not_single_object_encoded",
    "unknown_schema_fingerprint",
    "malformed_payload",
    "incompatible_schema",
    # With a registry: neither framing, or a registry header cut short.
    "not_registry_framed",
    # A registry ID the registry cannot serve (the partition waited for it first).
    "unknown_schema_id",
]
DECODE_REASONS: frozenset[str] = frozenset(get_args(DecodeReason))

# What fastavro raises on bytes that do not follow the writer schema: short reads, bad union or
# enum indexes, invalid UTF-8, negative lengths, absurd sizes.
_MALFORMED = (EOFError, StopIteration, IndexError, ValueError, OverflowError, MemoryError)
_INVALID = (ValueError, TypeError, OverflowError, AttributeError, KeyError)


class CodecError(ValueError):
    """A value the codec refuses; ``reason`` is categorical, ``detail`` is for people."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail


class DecodeError(CodecError):
    """Bytes that cannot become a record of the asked schema (reason in ``DecodeReason``)."""


class EncodeError(CodecError):
    """A record that does not match its schema (reason ``invalid_record``): a producer bug."""


def frame(schema_id: int, body: bytes) -> bytes:
    """A value in the registry's wire format: 00, ``schema_id`` (4 bytes, big endian), body."""
    return REGISTRY_MAGIC + schema_id.to_bytes(4, "big") + body


def schema_id_of(data: bytes) -> int | None:
    """The registry schema ID a value's header names, or None when it has no registry header."""
    if len(data) < REGISTRY_HEADER_SIZE or data[:1] != REGISTRY_MAGIC:
        return None
    return int.from_bytes(data[1:REGISTRY_HEADER_SIZE], "big")


class AvroCodec:
    """Loads ``*.avsc`` (current) and ``history/*.avsc`` (older writers, decode only).

    ``registry``: read registry-framed values too, their writer schemas by ID from it;
    ``write_id``: write registry-framed values, with the ID it gives a current schema's name.
    """

    def __init__(
        self,
        schema_dir: Path = AVRO_DIR,
        *,
        registry: RegistrySchemas | None = None,
        write_id: Callable[[str], int] | None = None,
    ) -> None:
        self._current: dict[str, tuple[Schema, bytes]] = {}
        self._writers: dict[bytes, Schema] = {}
        # Per record name, its schemas' JSON texts, oldest first, the current one last: what a
        # registry subject is given, in order.
        self.versions: dict[str, list[str]] = {}
        self.registry, self.write_id = registry, write_id
        self._id_fingerprints: dict[int, bytes] = {}
        for path in sorted((schema_dir / "history").glob("*.avsc"), key=_history_order):
            self._register(path)
        for path in sorted(schema_dir.glob("*.avsc")):
            schema, fp = self._register(path)
            name = str(json.loads(path.read_text("utf-8"))["name"])
            self._current[name] = (schema, fp)
        missing = {topic.schema for topic in TOPICS} - set(self._current)
        if missing:  # an install without its package data would otherwise decode nothing
            raise ContractError(f"no Avro schema for {sorted(missing)} in {schema_dir}")

    def _register(self, path: Path) -> tuple[Schema, bytes]:
        source = json.loads(path.read_text("utf-8"))
        self.versions.setdefault(str(source["name"]), []).append(json.dumps(source))
        schema = parse_schema(source, named_schemas={})
        fp = bytes.fromhex(fingerprint(to_parsing_canonical_form(schema), "CRC-64-AVRO"))
        known = self._writers.get(fp)
        if known is not None and to_parsing_canonical_form(known) != to_parsing_canonical_form(
            schema
        ):
            raise ValueError(f"fingerprint collision: {path}")
        self._writers[fp] = schema
        return schema, fp

    @property
    def schema_names(self) -> list[str]:
        return sorted(self._current)

    def schema(self, name: str) -> Schema:
        return self._current[name][0]

    def fingerprint(self, name: str) -> bytes:
        """The 8-byte little-endian CRC-64-AVRO fingerprint of the current ``name`` schema."""
        return self._current[name][1]

    def encode(self, schema_name: str, record: dict[str, Any]) -> bytes:
        """Single-object encoding of ``record`` with the current ``schema_name`` schema.

        Missing fields with a default take it; unknown fields and wrong types are refused.
        """
        schema, fp = self._current[schema_name]
        body = io.BytesIO()
        if self.write_id is None:
            body.write(MAGIC + fp)
        else:
            body.write(frame(self.write_id(schema_name), b""))
        try:
            schemaless_writer(body, schema, record, strict_allow_default=True)
        except _INVALID as error:
            raise EncodeError("invalid_record", f"{schema_name}: {error}") from error
        return body.getvalue()

    def unknown_writer(self, data: bytes) -> bytes | None:
        """The writer fingerprint of a single-object-encoded value when this codec has no
        schema for it (a newer release's), else None (known, or not single-object encoded).

        A registry-framed value's header (00 + ID) when its schema is not cached yet: it is
        then fetched in a thread, and ``writer_known`` says when it is here. Never waits."""
        schema_id = schema_id_of(data) if self.registry is not None else None
        if self.registry is not None and schema_id is not None:
            if self.registry.cached(schema_id) is not None:
                return None
            self.registry.request(schema_id)
            return bytes(data[:REGISTRY_HEADER_SIZE])
        if len(data) < HEADER_SIZE or data[: len(MAGIC)] != MAGIC:
            return None
        fp = bytes(data[len(MAGIC) : HEADER_SIZE])
        return None if fp in self._writers else fp

    def writer_known(self, writer: bytes) -> bool:
        """Whether a writer ``unknown_writer`` returned can be read now (a registry schema
        fetched meanwhile; asked again if not). Never waits."""
        schema_id = schema_id_of(writer)
        if self.registry is None or schema_id is None or len(writer) != REGISTRY_HEADER_SIZE:
            return writer in self._writers
        if self.registry.cached(schema_id) is not None:
            return True
        self.registry.request(schema_id)
        return False

    def decode(self, data: bytes, reader_schema_name: str) -> dict[str, Any]:
        """The record in ``data``, resolved from its writer schema to ``reader_schema_name``.

        Raises:
            DecodeError: with a ``DecodeReason``.
            KeyError: ``reader_schema_name`` is not a current schema (a programming error).
        """
        reader, reader_fp = self._current[reader_schema_name]
        if data[: len(MAGIC)] == MAGIC and len(data) >= HEADER_SIZE:
            fp, header = bytes(data[len(MAGIC) : HEADER_SIZE]), HEADER_SIZE
            writer = self._writers.get(fp)
            if writer is None:
                raise DecodeError("unknown_schema_fingerprint", fp.hex())
        elif self.registry is None:
            if schema_id_of(data) is not None:
                raise DecodeError(
                    "not_single_object_encoded",
                    f"{len(data)} bytes in the schema registry's wire format (schema ID "
                    f"{schema_id_of(data)}); this reader has no registry to read it with",
                )
            raise DecodeError("not_single_object_encoded", f"{len(data)} bytes, no C3 01 header")
        else:
            writer, fp = self._registry_writer(data)
            header = REGISTRY_HEADER_SIZE
        body = io.BytesIO(data[header:])
        try:
            value = schemaless_reader(body, writer, None if fp == reader_fp else reader)
        except SchemaResolutionError as error:
            raise DecodeError("incompatible_schema", f"{reader_schema_name}: {error}") from error
        except _MALFORMED as error:
            raise DecodeError("malformed_payload", f"{type(error).__name__}: {error}") from error
        left = len(data) - header - body.tell()
        if left:
            raise DecodeError("malformed_payload", f"{left} bytes after the record")
        if not isinstance(value, dict):
            raise DecodeError("incompatible_schema", f"{reader_schema_name} is not a record")
        return value

    def _registry_writer(self, data: bytes) -> tuple[Schema, bytes]:
        """The writer schema a registry-framed value names, with its fingerprint."""
        assert self.registry is not None
        schema_id = schema_id_of(data)
        if schema_id is None:
            raise DecodeError(
                "not_registry_framed",
                f"{len(data)} bytes: neither 00 + a 4-byte schema ID nor C3 01 + a fingerprint",
            )
        writer = self.registry.get(schema_id)
        if writer is None:
            raise DecodeError("unknown_schema_id", f"the registry has no schema {schema_id} for us")
        fp = self._id_fingerprints.get(schema_id)
        if fp is None:
            canonical = to_parsing_canonical_form(writer)
            fp = bytes.fromhex(fingerprint(canonical, "CRC-64-AVRO"))
            self._id_fingerprints[schema_id] = fp
        return writer, fp


def _history_order(path: Path) -> tuple[str, int]:
    """``Name.v10.avsc`` after ``Name.v9.avsc``: a subject gets its versions in order."""
    name, _, version = path.stem.rpartition(".v")
    return (name, int(version)) if version.isdigit() else (path.stem, -1)
