"""The Avro contracts and the single-object codec, without a broker."""

from __future__ import annotations

import copy
import io
import json
import random
import zlib
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from fastavro import parse_schema, schemaless_writer

from article_runtime.resources import AVRO_DIR
from article_runtime.streams.kafka.codec import MAGIC, AvroCodec, DecodeError, EncodeError
from article_runtime.streams.kafka.topics import PUBLIC, SOURCE_OF, TOPICS
from article_runtime.streams.service.compensation import compensation_event, undecodable

AT = datetime(2026, 3, 14, 9, 26, 53, 589000, tzinfo=UTC)
HASH = "9f2c" * 16
USAGE = {"prompt_tokens": 1830, "completion_tokens": 142, "cost_usd": 0.00041}
ATTEMPTS = [
    {
        "call": "article_content_hygiene",
        "role": "runtime_primary",
        "provider": "primary",
        "model": "gpt-4.1-mini",
        "attempt": 1,
        "outcome": "timeout",
        "reason": "timeout",
        "step": None,
        "detail": "no complete answer within 30 s",
        "http_status": None,
        "retry_after_s": None,
        "latency_ms": 30000.0,
        "prompt_tokens": 0,
        "completion_tokens": 0,
        "cost_usd": 0.0,
    },
    {
        "call": "article_content_hygiene",
        "role": "runtime_primary",
        "provider": "primary",
        "model": "gpt-4.1-mini",
        "attempt": 2,
        "outcome": "ok",
        "reason": None,
        "step": None,
        "detail": None,
        "http_status": 200,
        "retry_after_s": 1.5,
        "latency_ms": 2210.4,
        "prompt_tokens": 1830,
        "completion_tokens": 142,
        "cost_usd": 0.00041,
    },
]
ENTITY = {"qid": "Q1860", "name": "Banco Central", "identity": "central bank of Brazil"}
CANDIDATES = json.dumps({"schema_version": "1", "blocks": [{"id": "b1", "text": "Olá, mundo"}]})
VERSION = {"ingested_offset": 1207, "declared": None}


def _repair(decision: str) -> dict[str, Any]:
    return {
        "target_id": "b3",
        "original": "SÃ£o Paulo",
        "replacement": "São Paulo",
        "category": "encoding",
        "decision": decision,
        "reason": "ok" if decision == "applied" else "not_grounded",
        "justification": "mojibake: UTF-8 read as cp1252",
    }


RECORDS: dict[str, dict[str, Any]] = {
    "ArticleIngested": {
        "article_id": "folha-2026-03-14-0001",
        "url": "https://example.com.br/economia/2026/03/juros.shtml",
        "html": "<html><meta charset=iso-8859-1><p>Açúcar e café</p></html>".encode("latin-1"),
        "received_at": AT,
        "content_type": "text/html; charset=ISO-8859-1",
        "feed": {
            "title": "Juros caem pela terceira vez",
            "subtitle": None,
            "author": "Ana Souza",
            "published_at": "Sat, 14 Mar 2026 08:00:00 -0300",
            "url": "https://example.com.br/rss/item/1",
        },
        "version": 3,
    },
    "ArticleAssembled": {
        "article_id": "folha-2026-03-14-0001",
        "title": "Juros caem pela terceira vez",
        "subtitle": "Decisão foi unânime",
        "author": None,
        "published_at": "2026-03-14T08:00:00-03:00",
        "source_url": "https://example.com.br/economia/2026/03/juros.shtml",
        "language": "pt",
        "markdown": "# Juros caem pela terceira vez\n\nO comitê decidiu em São Paulo.\n",
        "path": "fallback",
        "repairs": {"applied": [_repair("applied")], "rejected": [_repair("rejected")]},
        "hashes": {"markdown": HASH, "source_html": HASH[::-1], "candidate_set": HASH.upper()},
        "harness": {
            "valid": True,
            "reason": None,
            "steps": [
                {"step": 1, "name": "schema", "outcome": "passed", "reason": None, "detail": None},
                {
                    "step": 6,
                    "name": "repairs",
                    "outcome": "failed",
                    "reason": "not_grounded",
                    "detail": "b3",
                },
            ],
            "removed_blocks": [{"block_id": "b7", "reason": "advertising"}],
        },
        "attempts": ATTEMPTS,
        "usage": USAGE,
        "assembled_at": AT,
        "version": VERSION,
        "prompt": {"name": "article_content_hygiene", "version": "3.0.0", "sha256": HASH},
    },
    "EcpVerdict": {
        "article_id": "folha-2026-03-14-0001",
        "approved": True,
        "entity": ENTITY,
        "article_hash": HASH,
        "classifier_version": "ecp-classifier 3.2.1",
        "decided_at": AT,
    },
    "ArticleEnriched": {
        "article_id": "folha-2026-03-14-0001",
        "article_hash": HASH,
        "content_hash": HASH,
        "entity": {"qid": "Q1860", "name": "Banco Central", "identity": None},
        "language": "pt",
        "sentiment": "neutral",
        "tags": [
            {"tag": "taxa Selic", "evidence_block_ids": ["b1", "b4"]},
            {"tag": "política monetária", "evidence_block_ids": ["b2"]},
            {"tag": "inflação", "evidence_block_ids": ["b5"]},
        ],
        "path": "primary",
        "prompt": {"name": "article_sentiment_tags", "version": "1.2.0", "sha256": HASH},
        "attempts": [],
        "usage": {"prompt_tokens": 0, "completion_tokens": 0, "cost_usd": 0.0},
        "enriched_at": AT,
        "version": VERSION,
        "evidence": [
            {"id": "b1", "text": "O Copom manteve a taxa Selic."},
            {"id": "b2", "text": "A política monetária segue restritiva."},
            {"id": "b4", "text": "Juros altos por mais tempo."},
            {"id": "b5", "text": "A inflação desacelerou."},
        ],
        "article": {
            "title": "Copom mantém a Selic",
            "subtitle": None,
            "author": "Redação",
            "published_at": "2026-03-14",
            "source_url": "https://www1.folha.uol.com.br/mercado/2026/03/selic.shtml",
            "language": "pt-BR",
            "markdown": "# Copom mantém a Selic\n\nO Copom manteve a taxa Selic.\n",
        },
    },
    "CompensationEvent": compensation_event(
        "folha-2026-03-14-0001",
        stage="hygiene",
        kind="fallback",
        reason="invented_block_id",
        detail="b404",
        next_attempt="runtime_fallback",
        attempts_so_far=1,
        attempts=ATTEMPTS,
        origin=("article.ingested", 2, 41),
        occurred_at=AT,
        retry={
            "url": "https://folha.example/2026/03/14/obras.html",
            "candidate_set_json": '{"blocks": []}',
            "candidate_set_hash": HASH,
            "html_hash": HASH,
            "candidate_set_zlib": None,
            "redrive": None,
        },
        version=VERSION,
    ),
    "ArticleProposal": {
        "article_id": "folha-2026-03-14-0001",
        "version": VERSION,
        "rung": "runtime_fallback",
        "attempt": 2,
        "answer": '{"title_candidate_id": "t1", "kept_block_ids": ["b2", "b4"]}',
        "prompt": {"name": "article_content_hygiene", "version": "1.4.0", "sha256": HASH},
        "attempts": ATTEMPTS,
        "candidate_set_hash": HASH,
        "candidate_set_zlib": zlib.compress(b'{"blocks": []}'),
        "html_hash": HASH,
        "origin": {"topic": "article.ingested", "partition": 2, "offset": 41},
        "redrive": None,
        "proposed_at": AT,
    },
}


@pytest.fixture(scope="module")
def codec() -> AvroCodec:
    return AvroCodec()


def _crc64_avro(data: bytes) -> bytes:
    """The Avro spec's reference CRC-64-AVRO, written out here to check fastavro's byte order."""
    empty = 0xC15D213AA4D7A795
    table = []
    for i in range(256):
        fp = i
        for _ in range(8):
            fp = (fp >> 1) ^ (empty & -(fp & 1))
        table.append(fp)
    fp = empty
    for byte in data:
        fp = (fp >> 8) ^ table[(fp ^ byte) & 0xFF]
    return fp.to_bytes(8, "little")  # single-object encoding: little endian


def test_every_schema_has_a_realistic_record(codec: AvroCodec) -> None:
    assert sorted(RECORDS) == codec.schema_names
    assert len(codec.schema_names) == 6


@pytest.mark.parametrize("name", sorted(RECORDS))
def test_round_trip(codec: AvroCodec, name: str) -> None:
    data = codec.encode(name, RECORDS[name])
    assert data[:2] == MAGIC == b"\xc3\x01"
    assert data[2:10] == codec.fingerprint(name)
    assert codec.decode(data, name) == RECORDS[name]


def test_fingerprint_is_the_specs_crc64_little_endian(codec: AvroCodec) -> None:
    from fastavro.schema import to_parsing_canonical_form

    for name in codec.schema_names:
        canonical = to_parsing_canonical_form(codec.schema(name)).encode("utf-8")
        assert codec.fingerprint(name) == _crc64_avro(canonical)
    # The spec's published vector: the canonical form "null".
    assert _crc64_avro(b'"null"') == (7195948357588979594).to_bytes(8, "little")


def _undocumented(node: Any, where: str) -> list[str]:
    if isinstance(node, list):
        return [m for i, branch in enumerate(node) for m in _undocumented(branch, where)]
    if not isinstance(node, dict):
        return []
    missing = []
    if node.get("type") in ("record", "enum") and not node.get("doc"):
        missing.append(f"{where}:{node.get('name')}")
    for field in node.get("fields", []):
        if not field.get("doc"):
            missing.append(f"{where}.{field['name']}")
        missing += _undocumented(field["type"], f"{where}.{field['name']}")
    for key in ("items", "values"):
        missing += _undocumented(node.get(key), where)
    return missing


@pytest.mark.parametrize(
    "path", sorted(AVRO_DIR.glob("*.avsc")) + sorted(AVRO_DIR.glob("history/*.avsc"))
)
def test_every_field_is_documented(path: Path) -> None:
    schema = json.loads(path.read_text("utf-8"))
    assert schema["namespace"] == "article_runtime.v1"
    assert _undocumented(schema, schema["name"]) == []


def test_old_writer_read_by_new_reader(codec: AvroCodec) -> None:
    old = parse_schema(json.loads((AVRO_DIR / "history" / "ArticleIngested.v0.avsc").read_text()))
    from fastavro.schema import fingerprint, to_parsing_canonical_form

    old_fp = bytes.fromhex(fingerprint(to_parsing_canonical_form(old), "CRC-64-AVRO"))
    assert old_fp != codec.fingerprint("ArticleIngested")
    record = {
        k: RECORDS["ArticleIngested"][k] for k in ("article_id", "url", "html", "received_at")
    }
    body = io.BytesIO()
    schemaless_writer(body, old, record)
    decoded = codec.decode(MAGIC + old_fp + body.getvalue(), "ArticleIngested")
    assert decoded == {**record, "content_type": None, "feed": None, "version": None}


# CRC-64-AVRO fingerprints of every writer schema a release has produced with. Messages
# carry them, so each must stay known to the codec (a schema change keeps the old file in
# schemas/avro/history/), or messages in flight during an upgrade become undecodable.
RELEASED_WRITERS = {
    "ArticleIngested": ["b0f6d9387ff4af44", "a22509388dc8aa7f"],
    "ArticleAssembled": [
        "292aa5e28c7ef1da",
        "4df196fb3cb8394b",
        "b0667886d6962bce",
        "1f0d01f5f3a75e18",
    ],
    "EcpVerdict": ["67f21e3f5a99e98b"],
    "ArticleEnriched": [
        "603cfdf6fb793f38",
        "bb6f6a887faa00e4",
        "8101f4fd4cdf8203",
        "a74777117c0186d7",
        "73b52e0fc52127b0",
    ],
    "CompensationEvent": ["6d6869eb856562be", "28740d96fc411c0f"],
    "ArticleProposal": ["4d7a8dd474606ab6"],
}


@pytest.mark.parametrize("name", ["ArticleAssembled", "ArticleEnriched", "CompensationEvent"])
def test_an_attempt_cut_at_the_output_cap_or_refused_at_a_step_travels(
    codec: AvroCodec, name: str
) -> None:
    cut = {
        **ATTEMPTS[1],
        "outcome": "output_truncated",
        "reason": "output_truncated",
        "detail": "answer cut at 1190 output tokens (cap 1190)",
    }
    refused = {
        **ATTEMPTS[1],
        "outcome": "invalid",
        "reason": "schema_violation",
        "step": "schema_valid",
        "detail": "kept_block_ids: required",
    }
    record = {**RECORDS[name], "attempts": [cut, refused]}
    assert codec.decode(codec.encode(name, record), name) == record


@pytest.mark.parametrize("name", sorted(RELEASED_WRITERS))
def test_every_released_writer_schema_is_still_known(codec: AvroCodec, name: str) -> None:
    for released in RELEASED_WRITERS[name]:
        data = MAGIC + bytes.fromhex(released) + b"\x00"  # a header only: the body is not read
        try:
            codec.decode(data, name)
        except DecodeError as error:
            assert error.reason != "unknown_schema_fingerprint", (name, released)


@pytest.mark.parametrize("path", sorted(AVRO_DIR.glob("history/*.avsc")), ids=lambda p: p.name)
def test_every_older_writer_is_still_read(codec: AvroCodec, path: Path) -> None:
    """Messages an earlier release wrote stay readable: the fields it did not have take their
    defaults, the others come through unchanged."""
    from fastavro.schema import fingerprint, to_parsing_canonical_form

    written: dict[str, Any] = json.loads(path.read_text("utf-8"))
    old = parse_schema(written, named_schemas={})
    name = written["name"]
    fields = {f["name"] for f in written["fields"]}
    record = {k: v for k, v in RECORDS[name].items() if k in fields}
    body = io.BytesIO()
    schemaless_writer(body, old, record)
    old_fp = bytes.fromhex(fingerprint(to_parsing_canonical_form(old), "CRC-64-AVRO"))
    assert old_fp != codec.fingerprint(name)  # a real older writer, not the current one
    decoded = codec.decode(MAGIC + old_fp + body.getvalue(), name)
    again = io.BytesIO()
    schemaless_writer(again, old, decoded)
    assert again.getvalue() == body.getvalue()  # all the older writer wrote came through
    current = json.loads((AVRO_DIR / f"{name}.avsc").read_text("utf-8"))
    added = {f["name"]: f["default"] for f in current["fields"] if f["name"] not in fields}
    assert {k: decoded[k] for k in added} == added


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"hello world",
        b'{"article_id": "x"}',
        b"\xc3",
        b"\xc3\x01\x00",
        b"\x00\x01" + b"\0" * 40,
    ],
)
def test_garbage_is_not_single_object_encoded(codec: AvroCodec, data: bytes) -> None:
    with pytest.raises(DecodeError) as caught:
        codec.decode(data, "ArticleIngested")
    assert caught.value.reason == "not_single_object_encoded"


def test_truncated_payload_is_malformed(codec: AvroCodec) -> None:
    data = codec.encode("ArticleAssembled", RECORDS["ArticleAssembled"])
    for cut in (11, len(data) // 2, len(data) - 1):
        with pytest.raises(DecodeError) as caught:
            codec.decode(data[:cut], "ArticleAssembled")
        assert caught.value.reason == "malformed_payload", cut


def test_trailing_bytes_are_malformed(codec: AvroCodec) -> None:
    data = codec.encode("EcpVerdict", RECORDS["EcpVerdict"])
    with pytest.raises(DecodeError) as caught:
        codec.decode(data + b"\x00", "EcpVerdict")
    assert caught.value.reason == "malformed_payload"


def test_unknown_fingerprint(codec: AvroCodec) -> None:
    data = codec.encode("EcpVerdict", RECORDS["EcpVerdict"])
    with pytest.raises(DecodeError) as caught:
        codec.decode(MAGIC + bytes(8) + data[10:], "EcpVerdict")
    assert caught.value.reason == "unknown_schema_fingerprint"
    assert caught.value.detail == "00" * 8


def test_another_topics_record_is_incompatible(codec: AvroCodec) -> None:
    data = codec.encode("CompensationEvent", RECORDS["CompensationEvent"])
    with pytest.raises(DecodeError) as caught:
        codec.decode(data, "ArticleIngested")
    assert caught.value.reason == "incompatible_schema"


def test_corrupted_bytes_only_ever_raise_decode_error(codec: AvroCodec) -> None:
    rng = random.Random(20260314)
    seen = set()
    for name, record in RECORDS.items():
        data = bytearray(codec.encode(name, record))
        for _ in range(300):
            damaged = bytearray(data)
            for _ in range(rng.randint(1, 4)):
                damaged[rng.randrange(10, len(damaged))] = rng.randrange(256)
            try:
                codec.decode(bytes(damaged), name)
            except DecodeError as error:
                seen.add(error.reason)
    assert seen == {"malformed_payload"}


def _broken(**changes: Any) -> dict[str, Any]:
    record = copy.deepcopy(RECORDS["ArticleIngested"])
    record.update(changes)
    return {k: v for k, v in record.items() if v is not _MISSING}


_MISSING = object()


@pytest.mark.parametrize(
    "record",
    [
        _broken(html="<p>text instead of bytes</p>"),
        _broken(url=_MISSING),
        _broken(received_at="yesterday"),
        _broken(feed={"title": 42}),
        _broken(surprise="field"),
    ],
    ids=["wrong_type", "missing_required", "bad_timestamp", "nested_wrong_type", "unknown_field"],
)
def test_invalid_record_is_refused_at_encode(codec: AvroCodec, record: dict[str, Any]) -> None:
    with pytest.raises(EncodeError) as caught:
        codec.encode("ArticleIngested", record)
    assert caught.value.reason == "invalid_record"


def test_bad_enum_symbol_is_refused(codec: AvroCodec) -> None:
    record = {**RECORDS["CompensationEvent"], "next_attempt": "runtime_tertiary"}
    with pytest.raises(EncodeError):
        codec.encode("CompensationEvent", record)


def test_missing_fields_with_defaults_take_them(codec: AvroCodec) -> None:
    record = {
        k: v for k, v in RECORDS["ArticleIngested"].items() if k not in ("feed", "content_type")
    }
    decoded = codec.decode(codec.encode("ArticleIngested", record), "ArticleIngested")
    assert decoded["feed"] is None and decoded["content_type"] is None


def test_undecodable_message_becomes_a_terminal_compensation_event(codec: AvroCodec) -> None:
    with pytest.raises(DecodeError) as caught:
        codec.decode(b"not avro", "ArticleIngested")
    event = undecodable(
        caught.value, key=b"art-7", topic="article.ingested", partition=1, offset=99, occurred_at=AT
    )
    back = codec.decode(codec.encode("CompensationEvent", event), "CompensationEvent")
    assert back["article_id"] == "art-7"
    assert (back["stage"], back["kind"], back["reason"]) == (
        "decode",
        "terminal",
        "not_single_object_encoded",
    )
    assert back["origin"] == {"topic": "article.ingested", "partition": 1, "offset": 99}
    assert back["next_attempt"] is None


def test_fallback_event_must_name_its_next_attempt() -> None:
    with pytest.raises(ValueError, match="next attempt"):
        compensation_event("a", stage="hygiene", kind="fallback", reason="invalid")


def test_topics_have_schemas(codec: AvroCodec) -> None:
    assert len({topic.name for topic in TOPICS}) == len(TOPICS) == 8
    assert sorted(topic.schema for topic in PUBLIC) == codec.schema_names
    for internal, source in SOURCE_OF.items():  # a forwarded copy is its source's record
        assert internal.schema == source.schema


def test_a_codec_without_its_schemas_refuses_to_start(tmp_path: Path) -> None:
    """An install missing its package data must stop at start-up, not decode nothing."""
    from article_runtime.errors import ContractError

    with pytest.raises(ContractError, match="no Avro schema"):
        AvroCodec(tmp_path)
