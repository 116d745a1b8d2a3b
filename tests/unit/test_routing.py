"""Where an outside producer's record is handled: the forwarded copy's header keeps the offset
the record had where it was produced, which is its version."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from article_runtime.streams.kafka.topics import ARTICLE_INGESTED, ECP_VERDICT, INGESTED_REPARTITION
from article_runtime.streams.service.routing import forwarded_from, source_offset


def event(topic: str, offset: int, headers: Any) -> Any:
    message = SimpleNamespace(topic=topic, partition=0, offset=offset, headers=headers)
    return SimpleNamespace(message=message)


@given(st.integers(0, 2**31), st.integers(0, 2**62), st.integers(0, 2**62))
def test_a_forwarded_copy_is_versioned_by_its_source_offset(
    partition: int, source: int, here: int
) -> None:
    headers = list(forwarded_from(partition, source))
    # The header as schemas/README.md documents it, written out.
    documented = json.dumps({"partition": partition, "offset": source})
    assert [(k, json.loads(v)) for k, v in headers] == [
        ("article-runtime-forwarded-from", json.loads(documented))
    ]
    assert source_offset(event(INGESTED_REPARTITION.name, here, headers)) == source
    as_mapping = dict(headers)  # Faust may hand headers as a mapping
    assert source_offset(event(INGESTED_REPARTITION.name, here, as_mapping)) == source


@given(st.integers(0, 2**62), st.integers(0, 2**62))
def test_any_other_message_is_versioned_by_its_own_offset(source: int, here: int) -> None:
    headers = list(forwarded_from(0, source))
    # A header on a source topic is someone else's: only copies the worker made carry it.
    assert source_offset(event(ARTICLE_INGESTED.name, here, headers)) == here
    assert source_offset(event(ECP_VERDICT.name, here, None)) == here
    assert source_offset(event(INGESTED_REPARTITION.name, here, [("other", b"1")])) == here
