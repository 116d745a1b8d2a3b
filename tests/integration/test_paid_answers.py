"""A paid answer is never lost and never paid twice, on the real broker.

The first worker's assembly agent never judges (``tests.support.held_assembly_worker``): the
hygiene agent asks the primary model for every article and publishes each answer to
``article.proposal``, and the worker is SIGKILLed there, between the answers and their
judgement. A second, ordinary worker takes over: it judges every answer on the topic, and what
it was redelivered of the pages finds each answer in the ladder's state. Every article settles
as its scenario says, and the scripted provider saw each article's hygiene rung asked once.
"""

from __future__ import annotations

import time
from collections import Counter

import pytest
from confluent_kafka import Consumer

from article_runtime.hygiene import HYGIENE
from article_runtime.streams.kafka.codec import AvroCodec
from article_runtime.streams.kafka.topics import ARTICLE_ASSEMBLED, ARTICLE_PROPOSAL
from tests.integration.fault_scenarios import wrong_outcome
from tests.integration.stream_support import Flow
from tests.llm_support import FALLBACK, PRIMARY
from tests.support.openai_server import ScriptedOpenAIServer
from tests.support.stream_cases import call_kind, find_markers, make_articles, responder

pytestmark = pytest.mark.kafka


def hygiene_calls(server: ScriptedOpenAIServer) -> Counter[tuple[str, str]]:
    """``(case marker, model)`` of every hygiene request the provider answered."""
    seen: Counter[tuple[str, str]] = Counter()
    for call in server.calls:
        if call_kind({"messages": call.messages}) != HYGIENE:
            continue
        text = "\n".join(str(m.get("content", "")) for m in call.messages)
        for marker in find_markers(text):
            seen[(marker, call.model or "")] += 1
    return seen


def records(flow: Flow, topic: str, quiet_s: float = 2.0) -> list[dict[str, object]]:
    """Every record on ``topic`` so far, decoded."""
    codec = AvroCodec()
    consumer = Consumer(
        {
            **flow.connection.confluent(),
            "group.id": f"paid-{time.monotonic_ns()}",
            "auto.offset.reset": "earliest",
        }
    )
    consumer.subscribe([topic])
    found, last = [], time.monotonic()
    try:
        while time.monotonic() - last < quiet_s:
            message = consumer.poll(0.2)
            if message is None or message.error() is not None:
                continue
            schema = ARTICLE_PROPOSAL.schema if topic == ARTICLE_PROPOSAL.name else None
            found.append(codec.decode(message.value() or b"", schema or ARTICLE_ASSEMBLED.schema))
            last = time.monotonic()
    finally:
        consumer.close()
    return found


def test_answers_on_the_proposal_topic_are_judged_after_a_crash_and_never_asked_again(
    kafka_flow: Flow, server: ScriptedOpenAIServer
) -> None:
    cases = make_articles(24, seed=37)  # every scenario: primary, fallback, deterministic, ...
    server.respond_with(responder(cases, PRIMARY, FALLBACK))
    ids = [c.article_id for c in cases]
    group = "article-runtime-paid"

    first = kafka_flow.worker("held", app_id=group, module="tests.support.held_assembly_worker")
    with first:
        first.start()
        kafka_flow.publish_cases(cases)
        deadline = time.monotonic() + 120
        while True:
            proposed = {str(r["article_id"]) for r in records(kafka_flow, ARTICLE_PROPOSAL.name)}
            if proposed >= set(ids):
                break
            assert time.monotonic() < deadline, f"{len(proposed)} of {len(ids)} proposed"
            time.sleep(1)
        assert records(kafka_flow, ARTICLE_ASSEMBLED.name, quiet_s=0.5) == []  # none judged
        asked = hygiene_calls(server)
        assert asked == Counter({(c.marker, PRIMARY): 1 for c in cases})
        first.kill()  # between every answer and its judgement

    second = kafka_flow.worker("second", app_id=group)
    with second:
        second.start(timeout_s=120)
        outcomes = kafka_flow.follow(ids, timeout_s=180)

    wrong = [w for c in cases if (w := wrong_outcome(c, outcomes[c.article_id]))]
    assert wrong == []
    # Each primary answer was paid for once, before the crash; the fallback model was asked
    # once for the articles whose primary answer did not hold, after it.
    falls_back = {c.marker for c in cases if c.scenario in ("fallback", "deterministic")}
    want = Counter({(c.marker, PRIMARY): 1 for c in cases})
    want.update({(marker, FALLBACK): 1 for marker in falls_back})
    assert hygiene_calls(server) == want
