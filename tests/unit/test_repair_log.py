"""The model's justification travels with every repair decision (spec 7.3, 8.2 step 9): into the
article's repair log, the trace's validation summary and the ArticleAssembled Avro record."""

from __future__ import annotations

import io
import json
from pathlib import Path

from fastavro import parse_schema, schemaless_writer
from fastavro.schema import fingerprint, to_parsing_canonical_form

from article_runtime.harness.pipeline import run_hygiene_harness
from article_runtime.hygiene import summarize
from article_runtime.resources import AVRO_DIR
from article_runtime.streams.kafka.codec import MAGIC, AvroCodec
from article_runtime.streams.service.records import assembled_record
from tests.factories import candidate_set, proposal

SWAP = {
    "target_id": "b2",
    "original": "anunciou",
    "replacement": "anuncia",
    "category": "obvious_typo",
    "justification": "verb tense looked wrong to me",
}
DOUBLED = {
    "target_id": "b2",
    "original": "R$ 1,2 bilhão",
    "replacement": "R$ 1,2 bilhão",
    "category": "spacing",
    "justification": "nothing to do",
}


def test_justification_reaches_the_log_the_trace_and_the_record() -> None:
    result = run_hygiene_harness(
        candidate_set(), proposal(repairs=[SWAP]), source_html=b"", path="primary", source="x"
    )
    assert result.article is not None
    [rejected] = result.repairs.rejected
    assert (rejected.reason, rejected.justification) == ("real_word_swap", SWAP["justification"])
    [traced] = summarize(result).repairs_rejected
    assert traced["justification"] == SWAP["justification"]
    codec = AvroCodec()
    decoded = codec.decode(
        codec.encode("ArticleAssembled", assembled_record(result.article)), "ArticleAssembled"
    )
    assert decoded["repairs"]["rejected"][0]["justification"] == SWAP["justification"]


def test_records_written_before_the_field_existed_still_decode() -> None:
    old = parse_schema(
        json.loads(Path(AVRO_DIR / "history" / "ArticleAssembled.v0.avsc").read_text())
    )
    old_fp = bytes.fromhex(fingerprint(to_parsing_canonical_form(old), "CRC-64-AVRO"))
    codec = AvroCodec()
    assert old_fp != codec.fingerprint("ArticleAssembled")
    result = run_hygiene_harness(
        candidate_set(), proposal(repairs=[DOUBLED]), source_html=b"", path="primary", source="x"
    )
    assert result.article is not None
    record = assembled_record(result.article)
    for decision in record["repairs"]["rejected"]:
        del decision["justification"]
    body = io.BytesIO()
    schemaless_writer(body, old, record)
    decoded = codec.decode(MAGIC + old_fp + body.getvalue(), "ArticleAssembled")
    assert decoded["repairs"]["rejected"][0]["reason"] == "no_change"
    assert decoded["repairs"]["rejected"][0]["justification"] is None
