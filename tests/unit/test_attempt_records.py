"""The attempt records the topics carry tolerate fields the core adds before the schemas do.

The core's ``AttemptRecord`` grows (a truncated output's reason, a violation's path and rule);
the Avro ``AttemptRecord`` gets such a field later, optional with a default. In between, a
record must still be produced (the codec refuses unknown fields, and a refused output stops
the worker), and what it carries reads back into the core's record.
"""

from __future__ import annotations

from typing import Any

from article_runtime.agents.assembly import outputs
from article_runtime.model import AttemptRecord
from article_runtime.streams.kafka.codec import AvroCodec
from article_runtime.streams.kafka.topics import ARTICLE_ASSEMBLED, ARTICLE_COMPENSATION
from article_runtime.streams.service.compensation import compensation_event
from article_runtime.streams.service.records import (
    assembled_article,
    assembled_record,
    attempt_records,
    attempts_from,
)
from tests.unit.test_ladder import VALID, attempt, proposal


class GrownAttempt(AttemptRecord):
    """The core's record with fields no schema has yet."""

    output_truncated: str | None = None
    violation: dict[str, Any] | None = None


def grown() -> GrownAttempt:
    return GrownAttempt(
        call="article_content_hygiene",
        role="runtime_primary",
        outcome="invalid",
        reason="schema_invalid",
        model="m",
        output_truncated="length",
        violation={"path": "/kept_block_ids/0", "rule": "pattern"},
    )


def test_a_field_the_schema_lacks_stays_off_the_wire_and_the_rest_reads_back() -> None:
    codec = AvroCodec()
    event = compensation_event(
        "a", stage="assembly", kind="terminal", reason="x", attempts=attempt_records([grown()])
    )
    decoded = codec.decode(codec.encode(ARTICLE_COMPENSATION.schema, event), "CompensationEvent")
    (back,) = attempts_from(decoded["attempts"])
    known = grown().model_dump(exclude={"output_truncated", "violation"})
    assert back == AttemptRecord.model_validate(known)


def test_an_assembled_article_with_grown_attempts_is_still_produced() -> None:
    (emit,) = outputs(proposal("runtime_primary", VALID, [attempt("runtime_primary")]),
                      has_models=True)  # fmt: skip
    article = assembled_article(emit.record).model_copy(update={"attempts": [grown()]})
    codec = AvroCodec()
    record = assembled_record(article)
    decoded = codec.decode(codec.encode(ARTICLE_ASSEMBLED.schema, record), "ArticleAssembled")
    assert [a["reason"] for a in decoded["attempts"]] == ["schema_invalid"]
