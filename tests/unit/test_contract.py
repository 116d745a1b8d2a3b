"""The written contract (schemas/README.md) against the code, and the routing and decoding
helpers it names."""

from __future__ import annotations

import datetime as dt
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from article_runtime.streams.kafka.codec import MAGIC, AvroCodec
from article_runtime.streams.kafka.contract_table import README, rendered
from article_runtime.streams.kafka.decoding import (
    DEDUP_KEYS,
    Deduplicator,
    decode_message,
    dedup_key,
    json_ready,
)
from article_runtime.streams.kafka.topics import PUBLIC, TOPICS, message_key, partition_of
from article_runtime.streams.service.routing import misrouted
from tests.integration.test_local_kafka import murmur2_partition
from tests.unit.test_codec import RECORDS

CODEC = AvroCodec()


def test_the_readme_table_is_the_one_the_schemas_make() -> None:
    text = README.read_text("utf-8")
    assert rendered(text) == text, "run: python -m article_runtime.streams.kafka.contract_table"
    for topic in TOPICS:  # and it lists what a reader needs: the fingerprint on the wire
        assert CODEC.fingerprint(topic.schema).hex() in text


def test_every_topic_has_a_dedup_key_of_fields_its_schema_has() -> None:
    assert set(DEDUP_KEYS) == {t.key for t in PUBLIC}
    for topic in PUBLIC:
        schema: Any = CODEC.schema(topic.schema)
        names = {f["name"] for f in schema["fields"]}
        assert {path.split(".")[0] for path in DEDUP_KEYS[topic.key]} <= names


@given(st.text(min_size=1, max_size=30), st.integers(1, 64))
def test_a_key_that_is_the_article_id_is_placed_where_murmur2_puts_it(
    article_id: str, partitions: int
) -> None:
    key = article_id.encode("utf-8", errors="surrogatepass")
    if key != message_key(article_id.encode("utf-8", "ignore").decode()):
        return
    right = murmur2_partition(key, partitions)  # Java's Utils.murmur2, written out
    assert partition_of(article_id, partitions) == right
    assert misrouted(key, article_id) is None  # wherever it sits: elsewhere, it is forwarded


def test_a_key_that_is_not_the_article_id_is_misrouted_wherever_it_is() -> None:
    assert misrouted(None, "a-1") is not None
    assert misrouted(b"a-2", "a-1") is not None
    assert misrouted("a-1".encode("utf-16"), "a-1") is not None


def test_decoded_records_are_json_ready_and_repeats_are_found() -> None:
    seen = Deduplicator()
    for topic in TOPICS:
        record = RECORDS[topic.schema]
        value = CODEC.encode(topic.schema, record)
        decoded = decode_message(topic.name, value)
        ready = json_ready(decoded)
        assert _only_json(ready)
        assert seen.first(topic.name, decoded)
        assert not seen.first(topic.name, decode_message(topic.name, value))
    later = {**RECORDS["ArticleEnriched"], "enriched_at": dt.datetime(2030, 1, 1, tzinfo=dt.UTC)}
    assert not seen.first("article.enriched", later)  # when it ran is no part of the record
    other = {**RECORDS["ArticleEnriched"], "content_hash": "f" * 64}
    assert seen.first("article.enriched", other)


def test_the_deduplicator_forgets_the_oldest_keys_first() -> None:
    seen = Deduplicator(memory=2)
    records = [{**RECORDS["ArticleAssembled"], "article_id": f"a{n}"} for n in range(3)]
    assert all(seen.first("article.assembled", r) for r in records)
    assert seen.first("article.assembled", records[0])  # forgotten: it was the oldest
    assert not seen.first("article.assembled", records[2])


def test_dedup_keys_compare_nested_values_by_content() -> None:
    a = {**RECORDS["CompensationEvent"], "origin": {"topic": "t", "partition": 1, "offset": 2}}
    b = {**a, "origin": {"offset": 2, "partition": 1, "topic": "t"}}
    c = {**a, "origin": {"topic": "t", "partition": 1, "offset": 3}}
    key = dedup_key("article.compensation", a)
    assert key == dedup_key("article.compensation", b) != dedup_key("article.compensation", c)


def test_garbage_is_a_decode_error_with_a_reason() -> None:
    from article_runtime.streams.kafka.codec import DecodeError

    for value in (b"", b"{}", MAGIC + b"\x00" * 8 + b"x", None):
        try:
            decode_message("article.enriched", value)
        except DecodeError as error:
            assert error.reason
        else:
            raise AssertionError(value)


def _only_json(value: Any) -> bool:
    if isinstance(value, dict):
        return all(isinstance(k, str) and _only_json(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_only_json(v) for v in value)
    return value is None or isinstance(value, str | int | float | bool)
