"""Every message of the flow is recorded exactly once: when a stage takes it, or when a stage
makes it, never both and never neither (``article_runtime.agents.ledger``). The stages' wiring is
tested on the real broker (``tests/integration``: the views against what the topics hold)."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from article_runtime.agents.ledger import (
    MADE,
    TAKEN,
    made_elsewhere,
    recorded_when_made,
    recorded_when_taken,
)
from article_runtime.streams.kafka.codec import CodecError
from article_runtime.streams.kafka.topics import (
    ARTICLE_ASSEMBLED,
    ARTICLE_COMPENSATION,
    ARTICLE_ENRICHED,
    ARTICLE_INGESTED,
    ECP_VERDICT,
    PUBLIC,
    TOPICS,
)
from article_runtime.streams.service.compensation import compensation_event, undecodable
from article_runtime.streams.service.redrive import REASON
from article_runtime.streams.service.wiring import Emit

partitions = st.integers(0, 11)
COMPENSATION = ARTICLE_COMPENSATION.name


def times_recorded(
    topic: str, record: dict[str, Any] | Emit, *, made_on: int | None, landed: int
) -> int:
    """How often the ledger records one message: made by a stage handling ``made_on`` (None:
    by someone outside the worker) that ``landed`` on a partition, where the stage reading
    its topic takes it."""
    made = made_on is not None and recorded_when_made(topic, landed, made_on)
    taken = topic != ARTICLE_ENRICHED.name and recorded_when_taken(topic, record, landed)
    return int(made) + int(taken)


@given(partitions, partitions, st.sampled_from(["fallback", "terminal"]))
def test_a_compensation_event_a_stage_made_is_recorded_once_wherever_it_landed(
    handled: int, landed: int, kind: str
) -> None:
    """Made while handling ``handled``; it lands on its article's partition (another one when
    the input was misrouted), and names where its input sat."""
    event = compensation_event(
        "a",
        stage="candidates",
        kind=kind,  # type: ignore[arg-type]
        reason="misrouted_key" if handled != landed else "unknown_block_id",
        next_attempt="runtime_fallback" if kind == "fallback" else None,
        origin=(ARTICLE_INGESTED.name, handled, 7),
    )
    assert times_recorded(COMPENSATION, event, made_on=handled, landed=landed) == 1


@given(partitions)
def test_a_compensation_event_without_origin_is_made_on_its_own_partition_and_recorded(
    partition: int,
) -> None:
    event = compensation_event("a", stage="enrichment", kind="terminal", reason="timeout")
    assert times_recorded(COMPENSATION, event, made_on=partition, landed=partition) == 1
    assert not made_elsewhere(event, partition)


@given(partitions, partitions)
def test_a_value_no_schema_reads_is_recorded_when_taken_and_its_terminal_event_once(
    sat: int, landed: int
) -> None:
    refused = undecodable(
        CodecError("not_single_object_encoded", "x"),
        key=b"a",
        topic=ARTICLE_INGESTED.name,
        partition=sat,
        offset=3,
    )
    read_as = Emit(ARTICLE_COMPENSATION, "a", refused)
    for topic in (t.name for t in TOPICS if t is not ARTICLE_ENRICHED):
        assert times_recorded(topic, read_as, made_on=None, landed=sat) == 1
    assert times_recorded(COMPENSATION, refused, made_on=sat, landed=landed) == 1


@given(partitions, st.sampled_from(["hygiene", "assembly", "enrichment"]))
def test_an_operators_redrive_is_recorded_when_taken(partition: int, stage: str) -> None:
    redrive = compensation_event(
        "a",
        stage=stage,  # type: ignore[arg-type]
        kind="fallback",
        reason=REASON,
        next_attempt="runtime_primary",
        origin=(COMPENSATION, partition, 40),  # the terminal it redrives, on this partition
    )
    assert times_recorded(COMPENSATION, redrive, made_on=None, landed=partition) == 1


@given(partitions)
def test_pages_and_verdicts_are_recorded_when_taken_articles_when_made(partition: int) -> None:
    page = {"article_id": "a", "url": "https://a.test/"}
    for topic in (ARTICLE_INGESTED.name, ECP_VERDICT.name):
        assert times_recorded(topic, page, made_on=None, landed=partition) == 1
    for topic in (ARTICLE_ASSEMBLED.name, ARTICLE_ENRICHED.name):
        assert times_recorded(topic, {}, made_on=partition, landed=partition) == 1


def test_every_topic_is_recorded_one_way() -> None:
    assert set(PUBLIC) == TAKEN | MADE and not TAKEN & MADE
