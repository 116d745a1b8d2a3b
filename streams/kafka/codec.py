"""Avro single-object encoding for every topic value, with an in-process schema registry.

Each value carries its writer schema's CRC-64-AVRO fingerprint (``C3 01`` + 8 bytes, little
endian), so a reader finds the exact writer schema and resolves it against its own: old
messages stay readable after a schema evolves. fastavro has no single-object helper, hence
this module. Failures are categorical (``DecodeError.reason``) so a worker can turn them into
compensation events instead of crashing.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any, Literal, get_args

from fastavro import schemaless_reader, schemaless_writer
from fastavro.read import SchemaResolutionError
from fastavro.schema import fingerprint, parse_schema, to_parsing_canonical_form
from fastavro.types import Schema

from article_runtime.errors import ContractError
from article_runtime.resources import AVRO_DIR
from streams.kafka.topics import TOPICS

MAGIC = b"\xc3\x01"
HEADER_SIZE = len(MAGIC) + 8

DecodeReason = Literal[
    "not_single_object_encoded",
    "unknown_schema_fingerprint",
    "malformed_payload",
    "incompatible_schema",
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


class AvroCodec:
    """Loads ``*.avsc`` (current) and ``history/*.avsc`` (older writers, decode only)."""

    def __init__(self, schema_dir: Path = AVRO_DIR) -> None:
        self._current: dict[str, tuple[Schema, bytes]] = {}
        self._writers: dict[bytes, Schema] = {}
        for path in sorted(schema_dir.glob("*.avsc")):
            schema, fp = self._register(path)
            name = str(json.loads(path.read_text("utf-8"))["name"])
            self._current[name] = (schema, fp)
        for path in sorted((schema_dir / "history").glob("*.avsc")):
            self._register(path)
        missing = {topic.schema for topic in TOPICS} - set(self._current)
        if missing:  # an install without its package data would otherwise decode nothing
            raise ContractError(f"no Avro schema for {sorted(missing)} in {schema_dir}")

    def _register(self, path: Path) -> tuple[Schema, bytes]:
        schema = parse_schema(json.loads(path.read_text("utf-8")), named_schemas={})
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
        body.write(MAGIC + fp)
        try:
            schemaless_writer(body, schema, record, strict_allow_default=True)
        except _INVALID as error:
            raise EncodeError("invalid_record", f"{schema_name}: {error}") from error
        return body.getvalue()

    def unknown_writer(self, data: bytes) -> bytes | None:
        """The writer fingerprint of a single-object-encoded value when this codec has no
        schema for it (a newer release's), else None (known, or not single-object encoded)."""
        if len(data) < HEADER_SIZE or data[: len(MAGIC)] != MAGIC:
            return None
        fp = bytes(data[len(MAGIC) : HEADER_SIZE])
        return None if fp in self._writers else fp

    def decode(self, data: bytes, reader_schema_name: str) -> dict[str, Any]:
        """The record in ``data``, resolved from its writer schema to ``reader_schema_name``.

        Raises:
            DecodeError: with a ``DecodeReason``.
            KeyError: ``reader_schema_name`` is not a current schema (a programming error).
        """
        reader, reader_fp = self._current[reader_schema_name]
        if len(data) < HEADER_SIZE or data[: len(MAGIC)] != MAGIC:
            raise DecodeError("not_single_object_encoded", f"{len(data)} bytes, no C3 01 header")
        fp = bytes(data[len(MAGIC) : HEADER_SIZE])
        writer = self._writers.get(fp)
        if writer is None:
            raise DecodeError("unknown_schema_fingerprint", fp.hex())
        body = io.BytesIO(data[HEADER_SIZE:])
        try:
            value = schemaless_reader(body, writer, None if fp == reader_fp else reader)
        except SchemaResolutionError as error:
            raise DecodeError("incompatible_schema", f"{reader_schema_name}: {error}") from error
        except _MALFORMED as error:
            raise DecodeError("malformed_payload", f"{type(error).__name__}: {error}") from error
        left = len(data) - HEADER_SIZE - body.tell()
        if left:
            raise DecodeError("malformed_payload", f"{left} bytes after the record")
        if not isinstance(value, dict):
            raise DecodeError("incompatible_schema", f"{reader_schema_name} is not a record")
        return value
