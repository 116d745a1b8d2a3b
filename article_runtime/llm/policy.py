"""The provider policy of spec 10, for any logical call.

1. runtime_primary; 2. retry on the same provider only for authorized technical failures
(timeout, connection error, 429 honouring Retry-After, 5xx), bounded, with backoff;
3. runtime_fallback when those retries are exhausted or the answer is invalid; 4. the caller
then takes the deterministic path (hygiene) or fails terminally (enrichment); 5. only certified
cheap models (checked when the configuration loads); 6. never a second semantic try on the
same model: an invalid answer moves on at once.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeGuard, TypeVar

from article_runtime.answer_bounds import AnswerBounds
from article_runtime.candidates.urls import url_host
from article_runtime.llm.client import Completion, ProviderClient, ProviderFailure
from article_runtime.llm.prompts import PromptSpec
from article_runtime.llm.providers import CallProviders, ProviderConfig, ProviderSpec
from article_runtime.llm.records import TRACED_TEXT, GenerationRecord, ValidationSummary
from article_runtime.llm.render import Message, context_text
from article_runtime.llm.request import OutputCaps, response_schema
from article_runtime.model.attempts import RETRYABLE, AttemptRecord, LogicalCall, Role
from article_runtime.tokens import count_tokens, tokenizer_for

T = TypeVar("T")
TRUNCATED = "length"  # the finish_reason of an answer cut at the output cap
ROLES: tuple[Role, Role] = ("runtime_primary", "runtime_fallback")


@dataclass(frozen=True, slots=True)
class Verdict(Generic[T]):
    """The caller's judgement of one answer: the value when valid, else a categorical reason."""

    value: T | None
    reason: str | None
    summary: ValidationSummary
    answer: Any  # the parsed answer (or raw text) for the trace


Validator = Callable[[str, Role], Verdict[T]]


@dataclass(slots=True)
class CallOutcome(Generic[T]):
    value: T | None
    role: Role | None
    attempts: list[AttemptRecord] = field(default_factory=list)

    @property
    def reason(self) -> str | None:
        """Why no value: the last attempt's reason (None when a value came back)."""
        if self.value is not None or not self.attempts:
            return None
        return self.attempts[-1].reason


def serves(llm: LLMRuntime | None, call: LogicalCall) -> TypeGuard[LLMRuntime]:
    """Whether ``llm`` has providers for ``call`` (no runtime, or none configured: no)."""
    return llm is not None and llm.providers.for_call(call) is not None


def backoff_s(spec: ProviderSpec, retry: int, retry_after_s: float | None) -> float | None:
    """Seconds before technical retry number ``retry`` (1-based); None: don't retry here."""
    if retry_after_s is not None:
        return retry_after_s if retry_after_s <= spec.max_retry_after_s else None
    return min(spec.backoff_s * 2.0 ** (retry - 1), spec.max_backoff_s)


@dataclass
class LLMRuntime:
    """Providers, one long-lived client per provider, a trace sink and a sleep (for tests)."""

    providers: ProviderConfig
    record: Callable[[GenerationRecord], None] = lambda _generation: None
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep
    _clients: dict[str, ProviderClient] = field(default_factory=dict)

    def client(self, spec: ProviderSpec) -> ProviderClient:
        key = spec.model_dump_json()  # specs hold a params mapping, so they are not hashable
        if key not in self._clients:
            self._clients[key] = ProviderClient(spec, self.providers.api_key(spec))
        return self._clients[key]

    async def aclose(self) -> None:
        for client in self._clients.values():
            await client.aclose()
        self._clients.clear()

    async def call(
        self,
        call: LogicalCall,
        prompt: PromptSpec,
        messages: list[Message],
        validate: Validator[T],
        *,
        bounds: AnswerBounds,
        trace_key: str | None = None,
        roles: Sequence[Role] = ROLES,
    ) -> CallOutcome[T]:
        """Primary, technical retries, fallback; every attempt recorded and traced.

        ``bounds`` (the article's counts and text) size each request's output cap.
        ``trace_key`` (the article ID) groups all attempts of one article in one trace.
        ``roles`` narrows the ladder to some rungs: the stream asks one rung per message.
        """
        providers = self.providers.for_call(call)
        if providers is None:
            return CallOutcome(None, None, [])
        trace = _Trace(self.record, prompt, messages, context_text(messages), trace_key)
        return await _run(self, call, providers, validate, trace, roles, OutputCaps(prompt, bounds))


async def _run(
    rt: LLMRuntime,
    call: LogicalCall,
    providers: CallProviders,
    validate: Validator[T],
    trace: _Trace,
    roles: Sequence[Role],
    caps: OutputCaps,
) -> CallOutcome[T]:
    """The prompt and messages travel in ``trace``, which records every attempt."""
    outcome: CallOutcome[T] = CallOutcome(None, None)
    for role in roles:
        spec: ProviderSpec = getattr(providers, role)
        cap, schema = caps.for_spec(spec), response_schema(spec, trace.prompt)
        for attempt in range(1, spec.max_retries + 2):
            started = time.perf_counter()
            try:
                completion = await rt.client(spec).complete(
                    trace.messages,
                    schema_name=trace.prompt.name,
                    schema=schema,
                    max_output_tokens=cap,
                )
            except ProviderFailure as failure:
                record = _attempt(call, role, spec, attempt, started, failure=failure)
                outcome.attempts.append(record)
                trace(record, spec, None, ValidationSummary(), cap)
                wait = backoff_s(spec, attempt, failure.retry_after_s)
                if failure.outcome not in RETRYABLE or attempt > spec.max_retries or wait is None:
                    break  # technical retries exhausted (or not allowed): next role
                await rt.sleep(wait)
                continue
            context_tokens = trace.context_tokens(tokenizer_for(spec.model))
            if completion.finish_reason == TRUNCATED:
                # Cut at the cap: no valid answer can need more, so the model looped or the
                # cap is too small. Paid for, never judged, never asked again (spec 10.6).
                record = _attempt(
                    call,
                    role,
                    spec,
                    attempt,
                    started,
                    completion=completion,
                    context_tokens=context_tokens,
                    cap=cap,
                )
                outcome.attempts.append(record)
                summary = ValidationSummary(reason=record.reason, detail=record.detail)
                answer = completion.content[:TRACED_TEXT]
                trace(record, spec, answer, summary, cap, completion.finish_reason)
                break
            verdict = validate(completion.content, role)
            record = _attempt(
                call,
                role,
                spec,
                attempt,
                started,
                completion=completion,
                context_tokens=context_tokens,
                verdict=verdict,
            )
            outcome.attempts.append(record)
            trace(record, spec, verdict.answer, verdict.summary, cap, completion.finish_reason)
            if verdict.value is not None:
                outcome.value, outcome.role = verdict.value, role
                return outcome
            break  # invalid answer: never ask the same model again (spec 10.6)
    return outcome


def _attempt(
    call: LogicalCall,
    role: Role,
    spec: ProviderSpec,
    attempt: int,
    started: float,
    *,
    failure: ProviderFailure | None = None,
    completion: Completion | None = None,
    context_tokens: int = 0,
    verdict: Verdict[Any] | None = None,
    cap: int | None = None,
) -> AttemptRecord:
    """A failure, a judged answer (``verdict``) or, with neither, an answer cut at ``cap``."""
    latency_ms = round((time.perf_counter() - started) * 1000, 2)
    common: dict[str, Any] = {
        "call": call,
        "role": role,
        "provider": spec.label,
        "model": spec.model,
        "attempt": attempt,
        "latency_ms": latency_ms,
    }
    if failure is not None:
        return AttemptRecord(
            **common,
            outcome=failure.outcome,
            reason=failure.outcome,
            detail=failure.detail or None,
            http_status=failure.http_status,
            retry_after_s=failure.retry_after_s,
        )
    assert completion is not None
    # Providers that report no usage are counted with the model's tokenizer, so cost is
    # never zero.
    prompt_tokens = completion.prompt_tokens
    if prompt_tokens is None:
        prompt_tokens = context_tokens
    completion_tokens = completion.completion_tokens
    if completion_tokens is None:
        completion_tokens = count_tokens(completion.content, tokenizer_for(spec.model))
    paid: dict[str, Any] = {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "cost_usd": round(spec.cost(prompt_tokens, completion_tokens), 8),
    }
    if verdict is None:
        cut = f"answer cut at {completion_tokens} output tokens"
        return AttemptRecord(
            **common,
            **paid,
            outcome="output_truncated",
            reason="output_truncated",
            detail=cut if cap is None else f"{cut} (cap {cap})",
        )
    return AttemptRecord(
        **common,
        **paid,
        outcome="ok" if verdict.value is not None else "invalid",
        reason=verdict.reason,
        step=verdict.summary.step,
        detail=verdict.summary.detail,
    )


@dataclass(slots=True)
class _Trace:
    """Turns attempt records into generations for the sink; never lets the sink fail a call."""

    sink: Callable[[GenerationRecord], None]
    prompt: PromptSpec
    messages: list[Message]
    text: str  # the whole context, for token counts
    trace_key: str | None
    _tokens: dict[str, int] = field(default_factory=dict)

    def context_tokens(self, encoding: str) -> int:
        """The context's tokens in ``encoding``, counted once per encoding."""
        if encoding not in self._tokens:
            self._tokens[encoding] = count_tokens(self.text, encoding)
        return self._tokens[encoding]

    def __call__(
        self,
        record: AttemptRecord,
        spec: ProviderSpec,
        answer: Any,
        summary: ValidationSummary,
        output_cap: int | None = None,
        finish_reason: str | None = None,
    ) -> None:
        try:
            tokenizer = tokenizer_for(spec.model)
            self.sink(
                GenerationRecord(
                    prompt_name=self.prompt.name,
                    prompt_version=self.prompt.version,
                    prompt_hash=self.prompt.sha256,
                    schema_version=self.prompt.schema_version,
                    attempt=record,
                    provider_host=url_host(spec.base_url),
                    context=self.messages,
                    context_tokens=self.context_tokens(tokenizer),
                    tokenizer=tokenizer,
                    output_cap=output_cap,
                    finish_reason=finish_reason,
                    answer=answer,
                    validation=summary,
                    is_retry=record.attempt > 1,
                    is_fallback=record.role == "runtime_fallback",
                    trace_key=self.trace_key,
                )
            )
        except Exception:  # a trace sink's bug must not lose an article
            return
