"""Spec 12 / acceptance 13: known keys planted in the environment reach the provider's
Authorization header and nowhere else: no span, no log line, no output. The worker's own log
lines (``article_runtime.streams.service.logs``, JSON, at DEBUG so the HTTP clients' lines are in)
are searched too, and the worker's log on the real broker in ``test_operability.py``."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import uuid

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from pytest import MonkeyPatch

from article_runtime.enrichment.call import enrich_article
from article_runtime.enrichment.model import Entity
from article_runtime.hygiene import hygiene_article
from article_runtime.llm.policy import LLMRuntime
from article_runtime.llm.records import GenerationRecord
from article_runtime.streams.service import logs
from article_runtime.tracing import REDACTED, LangfuseTracer, Redactor
from tests.factories import candidate_set, proposal
from tests.llm_support import FALLBACK, FALLBACK_KEY, PRIMARY, PRIMARY_KEY, config
from tests.support.openai_server import Drop, Reply, ScriptedOpenAIServer, Status

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
    worker_log = io.StringIO()  # the worker's formatter, knowing the secrets as the worker does
    handler = logging.StreamHandler(worker_log)
    secrets = logs.known_secrets(providers.secrets())
    handler.setFormatter(logs.JsonFormatter(Redactor(secrets)))
    logging.getLogger().addHandler(handler)
    tracer = LangfuseTracer(
        public_key=f"pk-lf-{uuid.uuid4().hex}",
        secret_key=LANGFUSE_SECRET,
        base_url="http://127.0.0.1:9",
        secrets=providers.secrets(),
        tracer_provider=TracerProvider(),
        span_exporter=exporter,
        environ={},
    )

    def observed(generation: GenerationRecord) -> None:  # the worker's trace hook
        tracer.record(generation)
        logs.log_generation(generation)

    async def flows() -> tuple[str, str]:
        runtime = LLMRuntime(providers, record=observed, sleep=lambda _s: asyncio.sleep(0))
        try:
            with logs.article_scope("a", "hygiene"):
                article = await hygiene_article(
                    candidate_set(), b"<html/>", source="a", llm=runtime
                )
            with logs.article_scope("a", "enrichment"):
                entity = Entity(qid="Q1", name="Rio")
                enriched = await enrich_article(article, entity, llm=runtime)
                # A careless library logging what it sends: the worker's lines must mask it.
                careless = logging.getLogger("careless.client")
                careless.debug("headers %s", {"Authorization": f"Bearer {FALLBACK_KEY}"})
                careless.warning("retrying with key=%s", PRIMARY_KEY, extra={"key": PRIMARY_KEY})
        finally:
            await runtime.aclose()
        return article.model_dump_json(), enriched.model_dump_json()

    try:
        article_json, enriched_json = asyncio.run(flows())
        tracer.flush()
        spans = [span.to_json() for span in exporter.get_finished_spans()]
    finally:
        tracer.shutdown()
        logging.getLogger().removeHandler(handler)
    printed = capsys.readouterr()

    # hygiene: 500, drop, invalid answer quoting a key, fallback 429, fallback ok; enrichment ok
    assert len(spans) == 6
    assert server.unscripted == [] and server.pending() == {}
    assert "gpt-4.1-mini" in spans[0]  # the spans are real, and searched whole
    haystacks = {
        "spans": "\n".join(spans),
        "worker log": worker_log.getvalue(),
        "stdout": printed.out,
        "stderr": printed.err,
        "article": article_json,
        "enrichment": enriched_json,
    }
    leaks = [(where, key) for where, text in haystacks.items() for key in PLANTED if key in text]
    assert leaks == []
    # Our code logs no key: only the careless library's two lines carry one.
    logged = "\n".join(record.getMessage() for record in caplog.records)
    assert [k for k in PLANTED if k in logged] == [PRIMARY_KEY, FALLBACK_KEY]
    assert [r.name for r in caplog.records if PRIMARY_KEY in r.getMessage()] == ["careless.client"]
    # The worker log is real: the invalid answer quoting a key is one line, naming its article.
    lines = [json.loads(line) for line in worker_log.getvalue().splitlines()]
    (invalid,) = [line for line in lines if line.get("event") == "invalid_answer"]
    assert invalid["article_id"] == "a" and invalid["model"] == "gpt-4.1-mini"
    assert any(line["logger"].startswith(("openai", "httpx", "httpcore")) for line in lines)
    assert "Bearer" not in worker_log.getvalue().replace(f"Bearer {REDACTED}", "")
    authorizations = {call.authorization for call in server.calls}
    assert authorizations == {f"Bearer {PRIMARY_KEY}", f"Bearer {FALLBACK_KEY}"}
    assert json.loads(enriched_json)["sentiment"] == "neutral"
