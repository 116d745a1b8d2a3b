"""Spec 12 / acceptance 13: known keys planted in the environment reach the provider's
Authorization header and nowhere else: no span, no log line, no output."""

from __future__ import annotations

import asyncio
import json
import logging
import uuid
from collections.abc import Iterator

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from pytest import MonkeyPatch

from article_runtime.enrichment.call import enrich_article
from article_runtime.enrichment.model import Entity
from article_runtime.hygiene import hygiene_article
from article_runtime.llm.policy import LLMRuntime
from article_runtime.tracing import LangfuseTracer
from tests.factories import candidate_set, proposal
from tests.llm_support import FALLBACK, FALLBACK_KEY, PRIMARY, PRIMARY_KEY, config
from tests.support.openai_server import Drop, Reply, ScriptedOpenAIServer, Status, running_server

LANGFUSE_SECRET = "sk-lf-planted-9d8c7b6a5f4e3d2c"
PLANTED = (PRIMARY_KEY, FALLBACK_KEY, LANGFUSE_SECRET)
GOOD_TAGS = {
    "sentiment": "neutral",
    "tags": [
        {"tag": "enchentes", "evidence_block_ids": ["p1"]},
        {"tag": "zona norte", "evidence_block_ids": ["p2"]},
        {"tag": "Tijuca", "evidence_block_ids": ["p4"]},
    ],
}


@pytest.fixture
def server() -> Iterator[ScriptedOpenAIServer]:
    with running_server() as scripted:
        yield scripted


def test_planted_keys_appear_only_in_the_authorization_header(
    server: ScriptedOpenAIServer,
    monkeypatch: MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    capsys: pytest.CaptureFixture[str],
) -> None:
    caplog.set_level(logging.DEBUG)
    # Every path that records something: retries, an invalid answer, a fallback, success.
    server.script(PRIMARY, Status(500), Drop(), Reply(f"leak {PRIMARY_KEY}"), Reply(GOOD_TAGS))
    server.script(FALLBACK, Status(429, headers={"Retry-After": "0"}), Reply(proposal()))
    exporter = InMemorySpanExporter()
    providers = config(monkeypatch, server.base_url, max_retries=2)
    tracer = LangfuseTracer(
        public_key=f"pk-lf-{uuid.uuid4().hex}",
        secret_key=LANGFUSE_SECRET,
        base_url="http://127.0.0.1:9",
        secrets=providers.secrets(),
        tracer_provider=TracerProvider(),
        span_exporter=exporter,
        environ={},
    )

    async def flows() -> tuple[str, str]:
        runtime = LLMRuntime(providers, record=tracer.record, sleep=lambda _s: asyncio.sleep(0))
        try:
            article = await hygiene_article(candidate_set(), b"<html/>", source="a", llm=runtime)
            enriched = await enrich_article(article, Entity(qid="Q1", name="Rio"), llm=runtime)
        finally:
            await runtime.aclose()
        return article.model_dump_json(), enriched.model_dump_json()

    try:
        article_json, enriched_json = asyncio.run(flows())
        tracer.flush()
        spans = [span.to_json() for span in exporter.get_finished_spans()]
    finally:
        tracer.shutdown()
    printed = capsys.readouterr()

    # hygiene: 500, drop, invalid answer quoting a key, fallback 429, fallback ok; enrichment ok
    assert len(spans) == 6
    assert server.unscripted == [] and server.pending() == {}
    assert "gpt-4.1-mini" in spans[0]  # the spans are real, and searched whole
    haystacks = {
        "spans": "\n".join(spans),
        "logs": "\n".join(record.getMessage() for record in caplog.records) + caplog.text,
        "stdout": printed.out,
        "stderr": printed.err,
        "article": article_json,
        "enrichment": enriched_json,
    }
    leaks = [(where, key) for where, text in haystacks.items() for key in PLANTED if key in text]
    assert leaks == []
    authorizations = {call.authorization for call in server.calls}
    assert authorizations == {f"Bearer {PRIMARY_KEY}", f"Bearer {FALLBACK_KEY}"}
    assert json.loads(enriched_json)["sentiment"] == "neutral"
