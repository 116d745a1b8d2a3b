"""Logs, readiness and metrics of the worker, without a broker (their edges are tested on the
real one in tests/integration/test_operability.py)."""

from __future__ import annotations

import asyncio
import io
import json
import logging
from collections.abc import Iterator
from typing import Any

import pytest
from faust.types import TP
from hypothesis import given
from hypothesis import strategies as st
from prometheus_client.parser import text_string_to_metric_families

from article_runtime.llm.records import AttemptRecord, GenerationRecord
from article_runtime.streams.kafka.topics import (
    ARTICLE_ASSEMBLED,
    ARTICLE_COMPENSATION,
    ARTICLE_ENRICHED,
)
from article_runtime.streams.service import logs
from article_runtime.streams.service.broker_watch import BrokerWatch
from article_runtime.streams.service.health import UNREACHABLE_AFTER_S, not_ready
from article_runtime.streams.service.metrics import FlowMetrics
from article_runtime.streams.service.metrics_page import partition_lag
from article_runtime.streams.service.wiring import Emit
from article_runtime.tracing.masking import REDACTED, Redactor

SECRET = "sk-unit-planted-4c3b2a1f0e9d"
DELIMITERS = " \t\r\n'\",;}])"


@pytest.fixture
def captured() -> Iterator[io.StringIO]:
    """The worker's JSON logging into a buffer, at DEBUG, knowing one secret."""
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(logs.JsonFormatter(Redactor([SECRET])))
    root = logging.getLogger()
    before = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    try:
        yield out
    finally:
        root.removeHandler(handler)
        root.setLevel(before)


def lines(out: io.StringIO) -> list[dict[str, Any]]:
    """Every line as JSON (asyncio's own debug lines left out)."""
    parsed = [json.loads(line) for line in out.getvalue().splitlines()]
    return [line for line in parsed if line["logger"] != "asyncio"]


def generation(role: str, outcome: str, *, attempt: int = 1, reason: str | None = None) -> Any:
    model = "gpt-4.1-mini" if role == "runtime_primary" else "gpt-4o-mini"
    record = AttemptRecord(
        call="article_sentiment_tags",
        role=role,
        model=model,
        attempt=attempt,
        outcome=outcome,
        reason=reason,
        latency_ms=1500.0,
        prompt_tokens=100,
        completion_tokens=20,
        cost_usd=0.0002,
    )
    return GenerationRecord(
        prompt_name="article_sentiment_tags",
        prompt_version="1.2.0",
        prompt_hash="h",
        schema_version="1.0.0",
        attempt=record,
        context=[],
        context_tokens=100,
    )


# -- logs -----------------------------------------------------------------------------------


def test_every_line_inside_an_article_scope_names_the_article_and_what_is_asked(
    captured: io.StringIO,
) -> None:
    other = logging.getLogger("some.library")

    async def message() -> None:
        with logs.article_scope("a-1", "enrichment"):
            logs.note_record({"article_id": "a-1", "role": "runtime_primary"})
            logs.log_generation(generation("runtime_primary", "invalid", reason="bad_tag"))
            await asyncio.gather(asyncio.to_thread(other.info, "from a thread"))
            other.debug("after the call")
        other.info("outside")

    asyncio.run(message())
    got = lines(captured)
    invalid, threaded, after, outside = got
    assert invalid["event"] == "invalid_answer" and invalid["reason"] == "bad_tag"
    for line in (invalid, threaded, after):
        assert line["article_id"] == "a-1" and line["stage"] == "enrichment"
        assert line["rung"] == "runtime_primary" and line["model"] == "gpt-4.1-mini"
        assert line["prompt_version"] == "1.2.0"
    assert "article_id" not in outside


def test_a_proposal_names_its_rung_prompt_version_and_model(captured: io.StringIO) -> None:
    proposal = {
        "article_id": "a-5",
        "role": "runtime_fallback",
        "prompt": {"name": "article_content_hygiene", "version": "2.0.1", "sha256": "h"},
        "attempts": [{"model": "gpt-4.1-mini"}, {"model": "gpt-4o-mini"}],
    }
    with logs.article_scope("a-5", "assembly"):
        logs.note_record(proposal)
        logging.getLogger("tests.assembly").info("judged")
    (line,) = lines(captured)
    assert (line["rung"], line["prompt_version"], line["model"]) == (
        "runtime_fallback",
        "2.0.1",
        "gpt-4o-mini",
    )


def test_an_invalid_answer_a_fallback_and_a_terminal_failure_log_one_line_each(
    captured: io.StringIO,
) -> None:
    with logs.article_scope("a-2", "enrichment"):
        logs.log_generation(generation("runtime_primary", "timeout", reason="timeout"))
        logs.log_generation(generation("runtime_primary", "invalid", attempt=2, reason="bad"))
        logs.log_generation(generation("runtime_fallback", "ok"))
    with logs.article_scope("a-3", "hygiene"):  # a hygiene rung asks the fallback model alone
        logs.log_generation(generation("runtime_fallback", "ok"))
    event = {
        "article_id": "a-4",
        "stage": "assembly",
        "kind": "fallback",
        "reason": "ungrounded",
        "next_attempt": "deterministic",
    }
    logs.log_compensation(event)
    logs.log_compensation({**event, "kind": "terminal", "reason": "no_title_candidate"})
    events = [
        (line.get("event"), line.get("reason"), line.get("article_id")) for line in lines(captured)
    ]
    assert events == [
        ("attempt_failed", "timeout", "a-2"),
        ("invalid_answer", "bad", "a-2"),
        ("fallback", "bad", "a-2"),
        ("fallback", "ungrounded", "a-4"),
        ("terminal", "no_title_candidate", "a-4"),
    ]


def test_secrets_and_bearer_tokens_never_reach_a_line(captured: io.StringIO) -> None:
    log = logging.getLogger("tests.careless_library")  # libraries may raise httpx's level
    log.setLevel(logging.DEBUG)
    with logs.article_scope(f"id-{SECRET}", "hygiene"):
        log.debug("headers %s", {"Authorization": "Bearer sk-unknown-123", "x": SECRET})
        log.info("key", extra={"nested": {"k": [SECRET]}})
        try:
            raise RuntimeError(f"failed with {SECRET}")
        except RuntimeError:
            log.exception("boom")
    text = captured.getvalue()
    assert SECRET not in text and "sk-unknown-123" not in text
    assert len(lines(captured)) == 3 and text.count(REDACTED) >= 5


@given(
    before=st.text(),
    token=st.text(min_size=1).filter(lambda t: not any(c in DELIMITERS for c in t)),
    word=st.sampled_from(["Bearer ", "bearer ", "BEARER "]),
)
def test_mask_bearer_hides_any_token(before: str, token: str, word: str) -> None:
    masked = logs.mask_bearer(f'{before}{word}{token}"')
    assert masked.endswith(f'{REDACTED}"')
    assert len(masked) <= 2 * len(before) + len(word) + len(REDACTED) + 1


@given(
    before=st.lists(st.sampled_from(["İ", "ŉ", "ǰ", "x", " ", "Bearer ", "bearer "]), max_size=8),
    token=st.text(alphabet="sk-0123456789abcdef", min_size=1, max_size=20),
)
def test_mask_bearer_hides_a_token_after_letters_that_lower_to_two(
    before: list[str], token: str
) -> None:
    # Regression: offsets came from text.lower(), where one of these letters becomes two
    # characters, so the masked span landed before the token; and a repeated "Bearer " was taken
    # for the token itself, leaving the real one in the line (found by the property above).
    masked = logs.mask_bearer(f"{''.join(before)}Bearer {token}")
    assert masked.endswith(f" {REDACTED}")


@given(st.text())
def test_mask_bearer_leaves_text_without_it_alone(text: str) -> None:
    if "bearer " not in text.lower():
        assert logs.mask_bearer(text) == text


def test_log_settings_refuse_unknown_values() -> None:
    assert logs.LogSettings.from_env({}) == logs.LogSettings("text", "info")
    assert logs.LogSettings.from_env({logs.LOG_FORMAT_ENV: " JSON "}).format == "json"
    for env in ({logs.LOG_FORMAT_ENV: "yaml"}, {logs.LOG_LEVEL_ENV: "verbose"}):
        with pytest.raises(ValueError, match="ARTICLE_RUNTIME_LOG_"):
            logs.LogSettings.from_env(env)


@pytest.fixture
def logging_restored() -> Iterator[None]:
    """``dictConfig`` changes the process's loggers: put back what the tests run with."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    levels = {name: logging.getLogger(name).level for name in logs.HTTP_CLIENT_LOGGERS}
    yield
    root.handlers[:], root.level = handlers, level
    for name, was in levels.items():
        logging.getLogger(name).setLevel(was)


@pytest.mark.parametrize(
    ("level", "http_client_shows"),
    [
        ("debug", logging.DEBUG),
        ("info", logging.WARNING),
        ("warning", logging.WARNING),
        ("error", logging.ERROR),
    ],
)
def test_the_http_clients_request_lines_show_only_at_debug(
    logging_restored: None, level: str, http_client_shows: int
) -> None:
    logs.configure(logs.LogSettings("json", level), secrets=())
    for name in logs.HTTP_CLIENT_LOGGERS:
        client = logging.getLogger(name)
        assert client.getEffectiveLevel() == http_client_shows, name
    ours = logging.getLogger("article_runtime.events")
    assert ours.getEffectiveLevel() == logging.getLevelName(level.upper())


# -- readiness -------------------------------------------------------------------------------


def test_readiness_fails_within_the_bound_after_the_broker_last_answered() -> None:
    watch = BrokerWatch(started=0.0)
    watch.answered(10.0)
    watch.failed("KafkaConnectionError: refused")
    settled = {"rebalancing": False, "recovered": True, "flowing": True}
    assert (
        not_ready(broker_silent_s=watch.silent_s(12.0), broker_error=watch.last_error, **settled)
        == []
    )
    late = watch.silent_s(10.0 + UNREACHABLE_AFTER_S + 0.1)
    (reason,) = not_ready(broker_silent_s=late, broker_error=watch.last_error, **settled)
    assert reason.startswith("broker_unreachable") and "refused" in reason
    watch.answered(30.0)
    assert watch.last_error is None
    assert not_ready(broker_silent_s=watch.silent_s(31.0), broker_error=None, **settled) == []


def test_readiness_names_every_reason_that_holds() -> None:
    assert BrokerWatch().silent_s(1e6) == 0  # not probed yet: the app is still starting
    never = BrokerWatch()
    never.probing(0.0)
    never.probing(5.0)
    never.failed("no metadata within 5 s")  # never answered: counted from the first probe
    reasons = not_ready(
        broker_silent_s=never.silent_s(60.0),
        broker_error=None,
        rebalancing=True,
        recovered=False,
        flowing=False,
    )
    assert [r.split(":")[0] for r in reasons] == ["broker_unreachable", "rebalancing", "recovering"]
    stopped = not_ready(
        broker_silent_s=0, broker_error=None, rebalancing=False, recovered=True, flowing=False
    )
    assert [r.split(":")[0] for r in stopped] == ["flow_stopped"]


# -- metrics ---------------------------------------------------------------------------------


def samples(metrics: FlowMetrics) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    found = {}
    for family in text_string_to_metric_families(metrics.render().decode()):
        for sample in family.samples:
            found[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return found


def test_model_attempts_tokens_and_cost_are_counted_by_model() -> None:
    metrics = FlowMetrics()
    metrics.on_generation(generation("runtime_primary", "invalid", reason="bad"))
    metrics.on_generation(generation("runtime_fallback", "ok"))
    metrics.on_generation(generation("runtime_fallback", "ok"))
    got = samples(metrics)
    calls = "article_runtime_model_calls_total"
    labels = (("model", "gpt-4o-mini"), ("outcome", "ok"), ("prompt", "article_sentiment_tags"))
    assert got[(calls, (*labels[:2], labels[2], ("role", "runtime_fallback")))] == 2
    tokens = "article_runtime_model_tokens_total"
    assert got[(tokens, (("kind", "prompt"), ("model", "gpt-4o-mini")))] == 200
    assert got[(tokens, (("kind", "completion"), ("model", "gpt-4.1-mini")))] == 20
    cost = got[("article_runtime_model_cost_usd_total", (("model", "gpt-4o-mini"),))]
    assert cost == pytest.approx(0.0004)


def test_published_records_count_compensations_and_settled_articles() -> None:
    metrics = FlowMetrics()
    terminal = {"stage": "enrichment", "kind": "terminal", "reason": "no_provider"}
    fallback = {"stage": "assembly", "kind": "fallback", "reason": "ungrounded"}
    metrics.on_published(
        [
            Emit(ARTICLE_COMPENSATION, "a", terminal),
            Emit(ARTICLE_COMPENSATION, "b", fallback),
            Emit(ARTICLE_ASSEMBLED, "b", {"path": "deterministic"}),
            Emit(ARTICLE_ENRICHED, "c", {"path": "fallback"}),
        ]
    )
    got = samples(metrics)
    comp = "article_runtime_compensation_events_total"
    assert (
        got[(comp, (("kind", "terminal"), ("reason", "no_provider"), ("stage", "enrichment")))] == 1
    )
    assert got[(comp, (("kind", "fallback"), ("reason", "ungrounded"), ("stage", "assembly")))] == 1
    settled = "article_runtime_articles_settled_total"
    assert got[(settled, (("path", "terminal"), ("phase", "enrichment")))] == 1
    assert got[(settled, (("path", "deterministic"), ("phase", "hygiene")))] == 1
    assert got[(settled, (("path", "fallback"), ("phase", "enrichment")))] == 1
    assert sum(v for (name, _), v in got.items() if name == settled) == 3


def test_work_in_flight_rises_and_falls_and_abandoned_work_has_no_latency() -> None:
    metrics = FlowMetrics()
    with metrics.processing("hygiene"):
        assert samples(metrics)[("article_runtime_in_flight", (("stage", "hygiene"),))] == 1
    with pytest.raises(asyncio.CancelledError), metrics.processing("hygiene"):
        raise asyncio.CancelledError
    got = samples(metrics)
    assert got[("article_runtime_in_flight", (("stage", "hygiene"),))] == 0
    assert got[("article_runtime_stage_seconds_count", (("stage", "hygiene"),))] == 1


class FakeConsumer:
    def __init__(self, ends: dict[TP, int | None], committed: dict[TP, int]) -> None:
        self.ends, self._committed_offset = ends, committed

    def assignment(self) -> set[TP]:
        return set(self.ends)

    def highwater(self, tp: TP) -> int | None:
        return self.ends[tp]


def test_lag_is_highwater_minus_committed_for_flow_partitions_only() -> None:
    ingested, changelog = TP("article.ingested", 1), TP("article-runtime-x-changelog", 0)
    unknown, fresh = TP("article.assembled", 0), TP("article.assembled", 2)
    consumer = FakeConsumer({ingested: 12, changelog: 40, unknown: None, fresh: 5}, {ingested: 9})
    assert partition_lag(consumer) == [
        ("article.assembled", 2, 5, 0),  # nothing committed yet: from offset 0
        ("article.ingested", 1, 12, 9),
    ]
