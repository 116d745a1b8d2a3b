"""Tracing (spec 12): every field lands on the generation, no secret leaves, nothing blocks."""

from __future__ import annotations

import json
import logging
import socket
import threading
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import hypothesis
import pytest
from hypothesis import given
from hypothesis import strategies as st
from langfuse import LangfuseOtelSpanAttributes as A
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode
from pydantic import BaseModel

import article_runtime.tracing as tracing
from article_runtime.llm.records import AttemptRecord, GenerationRecord, ValidationSummary
from article_runtime.tracing import REDACTED, LangfuseTracer, NullTracer, Redactor, Tracer
from article_runtime.tracing.generation import generation_fields
from article_runtime.tracing.masking import env_secrets, is_sensitive_key

PLANTED = "sk-planted-0123456789"
LANGFUSE_SECRET = "sk-lf-test-secret-9876"
ENV_PLANTED = "env-planted-abcdefgh"
UNREACHABLE = "http://127.0.0.1:9"
META = "langfuse.observation.metadata."

MakeTracer = Callable[..., tuple[LangfuseTracer, InMemorySpanExporter]]


def attempt(**overrides: Any) -> AttemptRecord:
    fields: dict[str, Any] = {
        "call": "article_content_hygiene",
        "role": "runtime_fallback",
        "provider": "cheap-b",
        "model": "small-model-2",
        "attempt": 2,
        "outcome": "ok",
        "reason": None,
        "http_status": 200,
        "retry_after_s": 1.5,
        "latency_ms": 1234.5,
        "prompt_tokens": 812,
        "completion_tokens": 97,
        "cost_usd": 0.00042,
    }
    fields.update(overrides)
    return AttemptRecord(**fields)


def generation(**overrides: Any) -> GenerationRecord:
    fields: dict[str, Any] = {
        "prompt_name": "article_content_hygiene",
        "prompt_version": "3",
        "prompt_hash": "sha256:abc123",
        "schema_version": "2.1",
        "attempt": attempt(),
        "provider_host": "api.cheap-b.example",
        "tokenizer": "o200k_base",
        "context": [
            {"role": "system", "content": "Clean the blocks."},
            {"role": "user", "content": '{"blocks": [{"id": "b1", "text": "Hello"}]}'},
        ],
        "context_tokens": 790,
        "answer": {"keep": ["b1"], "repairs": []},
        "validation": ValidationSummary(
            schema_valid=True,
            grounding_valid=False,
            reason="ungrounded_repair",
            repairs_applied=[{"op": "fix_mojibake", "block": "b1"}],
            repairs_rejected=[{"op": "paraphrase", "block": "b2", "reason": "not_minimal"}],
        ),
        "is_retry": True,
        "is_fallback": True,
    }
    fields.update(overrides)
    return GenerationRecord(**fields)


@pytest.fixture
def make_tracer() -> Iterator[MakeTracer]:
    made: list[LangfuseTracer] = []

    def make(**kwargs: Any) -> tuple[LangfuseTracer, InMemorySpanExporter]:
        exporter = InMemorySpanExporter()
        kwargs.setdefault("public_key", f"pk-test-{uuid.uuid4().hex}")
        kwargs.setdefault("secret_key", LANGFUSE_SECRET)
        kwargs.setdefault("base_url", UNREACHABLE)
        kwargs.setdefault("tracer_provider", TracerProvider())
        kwargs.setdefault("span_exporter", exporter)
        kwargs.setdefault("environ", {})
        tracer = LangfuseTracer(**kwargs)
        made.append(tracer)
        return tracer, exporter

    yield make
    for tracer in made:
        tracer.shutdown()


def exported(tracer: LangfuseTracer, exporter: InMemorySpanExporter) -> list[ReadableSpan]:
    tracer.flush()
    return list(exporter.get_finished_spans())


def attrs(span: ReadableSpan) -> dict[str, Any]:
    return dict(span.attributes or {})


def meta(span: ReadableSpan, key: str) -> Any:
    return json.loads(attrs(span)[META + key])


# --- the generation carries every spec-12 field -------------------------------------------


def test_generation_carries_every_spec12_field(make_tracer: MakeTracer) -> None:
    tracer, exporter = make_tracer()
    record = generation()

    tracer.record(record)
    (span,) = exported(tracer, exporter)
    got = attrs(span)

    assert span.name == "article_content_hygiene"  # prompt name
    assert got[A.OBSERVATION_TYPE] == "generation"
    assert got[A.OBSERVATION_MODEL] == "small-model-2"
    assert got[A.VERSION] == "3"
    assert json.loads(got[A.OBSERVATION_INPUT]) == record.context
    assert json.loads(got[A.OBSERVATION_OUTPUT]) == record.answer
    assert json.loads(got[A.OBSERVATION_USAGE_DETAILS]) == {
        "input": 812,
        "output": 97,
        "total": 909,
    }
    assert json.loads(got[A.OBSERVATION_COST_DETAILS]) == {"total": 0.00042}
    assert got[A.OBSERVATION_LEVEL] == "DEFAULT"
    assert got[A.OBSERVATION_STATUS_MESSAGE] == "ungrounded_repair"
    expected_meta = {
        "prompt_version": "3",
        "prompt_hash": "sha256:abc123",
        "schema_version": "2.1",
        "logical_call": "article_content_hygiene",
        "role": "runtime_fallback",
        "provider": "cheap-b",
        "provider_host": "api.cheap-b.example",
        "attempt": 2,
        "outcome": "ok",
        "http_status": 200,
        "retry_after_s": 1.5,
        "latency_ms": 1234.5,
        "is_retry": True,
        "is_fallback": True,
        "schema_valid": True,
        "grounding_valid": False,
        "validation_reason": "ungrounded_repair",
        "repairs_applied": [{"op": "fix_mojibake", "block": "b1"}],
        "repairs_rejected": [{"op": "paraphrase", "block": "b2", "reason": "not_minimal"}],
        "context_tokens": 790,
        "tokenizer": "o200k_base",
        "prompt_tokens": 812,
        "completion_tokens": 97,
        "cost_usd": 0.00042,
    }
    assert {key: meta(span, key) for key in expected_meta} == expected_meta
    # None values are not written by the SDK (reason is None here).
    assert META + "reason" not in got
    # Duration equals the recorded latency (the SDK cannot back-date the start).
    assert span.start_time is not None and span.end_time is not None
    duration_ms = (span.end_time - span.start_time) / 1e6
    assert duration_ms == pytest.approx(1234.5, abs=5)


@pytest.mark.parametrize(
    ("outcome", "reason", "level", "status"),
    [
        ("ok", None, "DEFAULT", StatusCode.UNSET),
        ("invalid", "schema_invalid", "WARNING", StatusCode.UNSET),
        ("timeout", "timeout", "ERROR", StatusCode.ERROR),
        ("rate_limited", None, "ERROR", StatusCode.ERROR),
    ],
)
def test_level_follows_outcome(
    make_tracer: MakeTracer, outcome: str, reason: str | None, level: str, status: StatusCode
) -> None:
    tracer, exporter = make_tracer()
    record = generation(
        attempt=attempt(outcome=outcome, reason=reason, http_status=None),
        validation=ValidationSummary(),
    )

    tracer.record(record)
    (span,) = exported(tracer, exporter)

    assert attrs(span)[A.OBSERVATION_LEVEL] == level
    assert span.status.status_code == status
    assert meta(span, "outcome") == outcome
    if outcome != "ok":
        assert attrs(span)[A.OBSERVATION_STATUS_MESSAGE] == (reason or outcome)


# --- no secret leaves the process ----------------------------------------------------------


def span_text(spans: list[ReadableSpan]) -> str:
    return "\n".join(span.to_json(indent=None) for span in spans)


def test_planted_secrets_appear_in_no_span_and_no_log(
    make_tracer: MakeTracer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    caplog.set_level(logging.DEBUG, logger="langfuse")
    tracer, exporter = make_tracer(
        secrets=[PLANTED],
        environ={"OTHER_PROVIDER_API_KEY": ENV_PLANTED, "SHORT_TOKEN": "abc"},
    )
    record = generation(
        prompt_name=f"hygiene-{PLANTED}",
        attempt=attempt(outcome="client_error", reason=f"bad key {PLANTED}"),
        context=[
            {"role": "system", "content": f"Authorization: Bearer {PLANTED}"},
            {"role": "user", "content": f"text {ENV_PLANTED} and {LANGFUSE_SECRET}"},
        ],
        answer={
            "keep": [PLANTED],
            "nested": {"authorization": "authz-value-only-in-header", "X-Api-Key": "xk-value"},
            PLANTED: "secret as a key",
        },
        validation=ValidationSummary(
            schema_valid=False,
            repairs_applied=[{"op": "x", "note": f"saw {PLANTED}", "headers": {"a": "b"}}],
        ),
    )

    tracer.record(record)
    spans = exported(tracer, exporter)
    text = span_text(spans)

    assert len(spans) == 1
    for secret in (PLANTED, ENV_PLANTED, LANGFUSE_SECRET, "authz-value-only-in-header", "xk-value"):
        assert secret not in text
        assert secret not in caplog.text
    assert REDACTED in text
    answer = json.loads(attrs(spans[0])[A.OBSERVATION_OUTPUT])
    assert answer["nested"] == {}
    assert answer["keep"] == [REDACTED]
    assert meta(spans[0], "repairs_applied") == [{"op": "x", "note": f"saw {REDACTED}"}]
    assert Redactor(env_secrets({"SHORT_TOKEN": "abc"})).text("abc") == "abc"  # too short


def test_sdk_mask_applies_even_to_data_the_tracer_did_not_prepare(
    make_tracer: MakeTracer,
) -> None:
    tracer, exporter = make_tracer(secrets=[PLANTED])
    client = tracer._client  # the Langfuse client itself: its mask= is the redactor

    observation = client.start_observation(
        name="direct",
        as_type="generation",
        input={"api_key": PLANTED, "msg": f"x {PLANTED}"},
        output=[PLANTED],
        metadata={"note": PLANTED, "Set-Cookie": "c"},
    )
    observation.end()
    spans = exported(tracer, exporter)

    assert PLANTED not in span_text(spans)
    assert json.loads(attrs(spans[0])[A.OBSERVATION_INPUT]) == {"msg": f"x {REDACTED}"}
    assert META + "Set-Cookie" not in attrs(spans[0])


def test_failures_are_swallowed_and_logged_once_without_payload(
    make_tracer: MakeTracer, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    tracer, _ = make_tracer(secrets=[PLANTED])

    def explode(**_: Any) -> None:
        raise ValueError(f"cannot serialize {PLANTED}")

    monkeypatch.setattr(tracer._client, "start_observation", explode)
    monkeypatch.setattr(tracer._client, "flush", explode)
    caplog.set_level(logging.DEBUG, logger="article_runtime.tracing")

    tracer.record(generation())
    tracer.record(generation())
    tracer.flush()

    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1
    assert "ValueError" in warnings[0].getMessage()
    assert PLANTED not in caplog.text


# --- masking rules -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "key",
    [
        *("authorization", "Authorization", "API_KEY", "api-key", "X-Api-Key", "x_api_key"),
        *("headers", "Cookie", "set-cookie", "secret", "password", "token", "Token"),
        "proxy-authorization",
    ],
)
def test_credential_keys_are_dropped(key: str) -> None:
    assert is_sensitive_key(key)
    assert Redactor([]).scrub({key: "v", "kept": 1}) == {"kept": 1}


@pytest.mark.parametrize(
    "key", ["prompt_tokens", "context_tokens", "completion_tokens", "tokens", "secret_santa"]
)
def test_lookalike_keys_are_kept(key: str) -> None:
    assert not is_sensitive_key(key)
    assert Redactor([]).scrub({key: 3}) == {key: 3}


def test_secret_values_are_replaced_everywhere() -> None:
    class Answer(BaseModel):
        text: str

    redactor = Redactor(["sk-abcdefgh", "sk-abcdefgh-longer", ""])
    data = {
        "a": ("x sk-abcdefgh-longer y", ["sk-abcdefgh", 3, None, True]),
        "sk-abcdefgh": {"deep": [{"deeper": "pre sk-abcdefgh post"}]},
        "model": Answer(text="sk-abcdefgh"),
        "other": object(),
    }

    out = redactor.scrub(data)

    assert out["a"] == ["x [REDACTED] y", ["[REDACTED]", 3, None, True]]
    assert out["[REDACTED]"] == {"deep": [{"deeper": "pre [REDACTED] post"}]}
    assert out["model"] == {"text": "[REDACTED]"}
    assert isinstance(out["other"], str)
    assert redactor(data={"k": "sk-abcdefgh"}) == {"k": "[REDACTED]"}


def nested(leaf: Any, shapes: list[str]) -> Any:
    """``leaf`` wrapped in one container per shape, outermost first."""
    for shape in reversed(shapes):
        if shape == "dict":
            leaf = {"level": leaf, "sibling": 1}
        elif shape == "list":
            leaf = [0, leaf]
        elif shape == "tuple":
            leaf = ("x", leaf)
        else:
            leaf = Wrapper(inner=leaf)
    return leaf


class Wrapper(BaseModel):
    inner: Any


def deep_leaf() -> dict[str, Any]:
    """A secret value and a credential key's value that no secret list names."""
    return {"note": f"saw {PLANTED}", "Authorization": "authz-deep-value", "n": 1}


@given(st.lists(st.sampled_from(["dict", "list", "tuple", "model"]), max_size=90))
def test_no_secret_survives_at_any_depth(shapes: list[str]) -> None:
    """Masking stops descending at a depth limit: what lies deeper goes as a whole, masked,
    never raw. Depths on both sides of the limit, through every kind of container."""
    hypothesis.target(float(len(shapes)))
    hypothesis.event("deeper than 40" if len(shapes) > 40 else "40 or shallower")
    out = json.dumps(Redactor([PLANTED]).scrub(nested(deep_leaf(), shapes)))
    assert PLANTED not in out
    assert "authz-deep-value" not in out
    if len(shapes) <= 8:  # shallow data is masked, not thrown away
        assert f"saw {REDACTED}" in out


def test_a_secret_nested_past_the_depth_limit_is_masked_in_answer_and_metadata() -> None:
    """Where a generation's answer and metadata are masked (the Langfuse SDK cuts deep values
    at its own depth later, which this must not rely on)."""
    shapes = ["dict", "list"] * 40  # 80 levels: well past any depth masking descends to
    record = generation(
        answer={"keep": ["b1"], "deep": nested(deep_leaf(), shapes)},
        validation=ValidationSummary(
            schema_valid=True, repairs_applied=[{"op": "x", "deep": nested(deep_leaf(), shapes)}]
        ),
    )

    fields = generation_fields(record, Redactor([PLANTED]))

    for masked in (fields.output, fields.metadata):
        text = json.dumps(masked)
        assert PLANTED not in text
        assert "authz-deep-value" not in text
        assert REDACTED in text
    assert fields.output["keep"] == ["b1"]  # above the limit the answer is kept as it was
    assert fields.metadata["repairs_applied"][0]["op"] == "x"


def test_cycles_and_nesting_past_the_recursion_limit_come_out_masked() -> None:
    """The depth limit is what keeps masking from recursing forever on a cycle or past
    Python's recursion limit: it must cut, and what it cuts must not leak."""
    cycle: list[Any] = [f"saw {PLANTED}"]
    cycle.append(cycle)
    loop: dict[str, Any] = {"note": PLANTED}
    loop["self"] = loop
    very_deep = nested(deep_leaf(), ["list"] * 5000)
    for data in (cycle, loop, very_deep):
        text = json.dumps(Redactor([PLANTED]).scrub(data))
        assert PLANTED not in text
        assert "authz-deep-value" not in text
        assert REDACTED in text


class LangfuseMedia:
    """An impostor: named like the SDK's media placeholder, from another module."""

    def __str__(self) -> str:
        return f"media holding {PLANTED}"


def test_only_the_sdks_own_media_placeholder_passes_unmasked() -> None:
    from langfuse.api import MediaContentType
    from langfuse.media import LangfuseMedia as SdkMedia

    redactor = Redactor([PLANTED])
    media = SdkMedia(content_bytes=b"\x89PNG", content_type=MediaContentType("image/png"))
    assert redactor.scrub({"image": media})["image"] is media  # a reference, not text
    assert redactor.scrub([LangfuseMedia()]) == [f"media holding {REDACTED}"]


def test_env_secrets_by_name_suffix_and_length() -> None:
    env = {
        "OPENAI_API_KEY": "sk-openai-123456",
        "LANGFUSE_SECRET_KEY": "sk-lf-12345678",
        "GITHUB_TOKEN": "ghp_123456789",
        "SHORT_API_KEY": "1234567",
        "EDGE_TOKEN": "12345678",  # exactly the minimum length: a secret
        "PROMPT_TOKENS": "12345678901",  # suffix is _TOKENS, not _TOKEN
        "HOME": "/root/secret-home",
    }

    assert sorted(env_secrets(env)) == [
        "12345678",
        "ghp_123456789",
        "sk-lf-12345678",
        "sk-openai-123456",
    ]


# --- never slow, never failing ---------------------------------------------------------------


@pytest.fixture
def sockets_used(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The IDs of the threads that open or write a socket while the test runs."""
    used: list[int] = []
    for name in ("connect", "connect_ex", "send", "sendall"):
        original = getattr(socket.socket, name)

        def noting(self: socket.socket, *args: Any, _original: Any = original) -> Any:
            used.append(threading.get_ident())
            return _original(self, *args)

        monkeypatch.setattr(socket.socket, name, noting)
    return used


def flush_returns(tracer: LangfuseTracer) -> bool:
    """Whether ``flush`` returns at all (on a thread given far longer than one export's
    deadline): a liveness check, not a speed claim."""
    done = threading.Event()

    def flush() -> None:
        tracer.flush()
        done.set()

    threading.Thread(target=flush, daemon=True).start()
    return done.wait(60)


def test_recording_makes_no_network_call_and_flush_returns_with_the_host_unreachable(
    sockets_used: list[int],
) -> None:
    tracer = LangfuseTracer(
        public_key=f"pk-test-{uuid.uuid4().hex}",
        secret_key=LANGFUSE_SECRET,
        base_url=UNREACHABLE,  # connection refused: the real OTLP exporter, no capture
        export_timeout_s=1,
        environ={},
    )
    try:
        record = generation(context=[{"role": "user", "content": "x" * 20_000}])
        for _ in range(50):
            tracer.record(record)
        recording = list(sockets_used)
        assert flush_returns(tracer)
    finally:
        tracer.shutdown()

    # The export runs on the SDK's own thread: nothing on the caller's path touches a socket.
    assert threading.get_ident() not in recording
    assert sockets_used, "the flush did try to export"  # else the check above proves nothing


def test_a_silent_host_neither_blocks_recording_nor_keeps_flush_from_returning(
    sockets_used: list[int],
) -> None:
    with socket.socket() as silent:  # accepts connections, never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        port = silent.getsockname()[1]
        tracer = LangfuseTracer(
            public_key=f"pk-test-{uuid.uuid4().hex}",
            secret_key=LANGFUSE_SECRET,
            base_url=f"http://127.0.0.1:{port}",
            export_timeout_s=1,
            environ={},
        )
        try:
            tracer.record(generation())
            recording = list(sockets_used)
            assert flush_returns(tracer)  # bounded by the export deadline, not the host
        finally:
            tracer.shutdown()

    assert threading.get_ident() not in recording
    assert sockets_used


def test_shutdown_stops_threads_and_the_same_key_records_again(make_tracer: MakeTracer) -> None:
    before = {t.ident for t in threading.enumerate()}
    key = f"pk-test-{uuid.uuid4().hex}"
    first, first_exporter = make_tracer(public_key=key)
    first.record(generation())
    first.shutdown()
    first.record(generation())  # after shutdown: ignored, no error
    first.flush()
    assert len(first_exporter.get_finished_spans()) == 1
    assert {t.ident for t in threading.enumerate()} <= before

    second, second_exporter = make_tracer(public_key=key)
    second.record(generation())
    assert len(exported(second, second_exporter)) == 1


def test_null_tracer_does_nothing() -> None:
    tracer: Tracer = NullTracer()
    tracer.record(generation())
    tracer.flush()
    tracer.shutdown()


# --- choosing the tracer ------------------------------------------------------------------


KEYS = {"LANGFUSE_PUBLIC_KEY": "pk-from-env", "LANGFUSE_SECRET_KEY": LANGFUSE_SECRET}


@pytest.mark.parametrize(
    "env",
    [
        {},
        {"LANGFUSE_PUBLIC_KEY": "pk-only"},
        {**KEYS, "ARTICLE_RUNTIME_TRACING": "off"},
        {**KEYS, "ARTICLE_RUNTIME_TRACING": "OFF"},
        {**KEYS, "LANGFUSE_TRACING_ENABLED": "false"},
    ],
)
def test_tracer_from_env_picks_null(env: dict[str, str]) -> None:
    assert isinstance(tracing.tracer_from_env([], environ=env), NullTracer)


def test_tracer_from_env_picks_langfuse() -> None:
    env = {
        **KEYS,
        "LANGFUSE_PUBLIC_KEY": f"pk-env-{uuid.uuid4().hex}",
        "LANGFUSE_BASE_URL": UNREACHABLE,
        "OTHER_API_KEY": ENV_PLANTED,
    }
    tracer = tracing.tracer_from_env([PLANTED], environ=env)
    try:
        assert isinstance(tracer, LangfuseTracer)
        for secret in (PLANTED, ENV_PLANTED, LANGFUSE_SECRET):
            assert tracer.redactor.text(secret) == REDACTED
    finally:
        tracer.shutdown()


def test_tracer_from_env_falls_back_when_the_sdk_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(**_: Any) -> LangfuseTracer:
        raise RuntimeError("sdk exploded")

    monkeypatch.setattr(tracing, "LangfuseTracer", broken)

    assert isinstance(tracing.tracer_from_env([], environ=KEYS), NullTracer)


def test_attempts_of_one_article_share_one_trace(make_tracer: MakeTracer) -> None:
    tracer, exporter = make_tracer()
    tracer.record(generation(trace_key="article-42"))
    tracer.record(generation(trace_key="article-42", is_retry=False))
    tracer.record(generation(trace_key="article-43"))
    first, second, other = exported(tracer, exporter)
    assert first.context is not None and second.context is not None and other.context is not None
    assert first.context.trace_id == second.context.trace_id
    assert other.context.trace_id != first.context.trace_id
