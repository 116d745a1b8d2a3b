"""One request to one OpenAI-compatible provider; the openai client's own retries are off.

Every foreign error is translated here, and only here, into ``ProviderFailure`` with a
categorical outcome, so the policy (and every trace) sees each attempt for what it was.
"""

from __future__ import annotations

import asyncio
import email.utils
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import openai

from article_runtime.errors import ArticleRuntimeError
from article_runtime.llm.providers import ProviderSpec
from article_runtime.model.attempts import AttemptOutcome


class ProviderFailure(ArticleRuntimeError):
    """A technical failure of one attempt. ``reason`` is the outcome category."""

    def __init__(
        self,
        outcome: AttemptOutcome,
        detail: str = "",
        *,
        http_status: int | None = None,
        retry_after_s: float | None = None,
    ) -> None:
        super().__init__(outcome, detail)
        self.outcome: AttemptOutcome = outcome
        self.http_status = http_status
        self.retry_after_s = retry_after_s


@dataclass(frozen=True, slots=True)
class Completion:
    content: str
    prompt_tokens: int | None
    completion_tokens: int | None
    finish_reason: str | None


def retry_after(headers: Mapping[str, str]) -> float | None:
    """Seconds to wait from ``retry-after-ms`` or ``retry-after`` (seconds or an HTTP date)."""
    if (ms := headers.get("retry-after-ms")) is not None:
        try:
            return max(float(ms) / 1000, 0.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(when.timestamp() - time.time(), 0.0)


def _status_outcome(status: int) -> AttemptOutcome:
    if status == 408:
        return "timeout"
    if status == 429:
        return "rate_limited"
    if status >= 500:
        return "server_error"
    return "client_error"


def causes(exc: BaseException) -> Iterator[BaseException]:
    """``exc``, then what it was raised from, down to the error the chain began with (what
    the socket or the parser raised)."""
    cause: BaseException | None = exc
    while cause is not None:
        yield cause
        cause = cause.__cause__


@contextmanager
def translate_errors() -> Iterator[None]:
    """openai's exception tree -> ProviderFailure.

    A connection error (openai's timeout error is one) is a timeout only when a timer ended it:
    a ``TimeoutError`` in its chain of causes (asyncio's, aiohttp's and anyio's timers all raise
    one). The transport's own label is not evidence: the aiohttp transport reports a server
    that closed the connection, or refused it, as a connect timeout.
    """
    try:
        yield
    except openai.APIConnectionError as exc:
        chain = list(causes(exc))
        if any(isinstance(cause, TimeoutError) for cause in chain):
            raise ProviderFailure("timeout", "request timed out") from exc
        raise ProviderFailure("connection_error", type(chain[-1]).__name__) from exc
    except openai.APIStatusError as exc:
        status = exc.status_code
        raise ProviderFailure(
            _status_outcome(status),
            f"HTTP {status}",
            http_status=status,
            retry_after_s=retry_after(exc.response.headers),
        ) from exc
    except openai.OpenAIError as exc:  # malformed responses and the like
        raise ProviderFailure("client_error", type(exc).__name__) from exc


def response_format(spec: ProviderSpec, name: str, schema: dict[str, Any]) -> Any:
    """``response_format`` for ``spec``'s answer format; ``schema`` is the one that format
    sends (``request.response_schema``)."""
    chosen = spec.answer_format()
    if chosen in ("json_schema", "json_schema_strict"):
        strict = chosen == "json_schema_strict"
        return {
            "type": "json_schema",
            "json_schema": {"name": name, "schema": schema, "strict": strict},
        }
    if chosen == "json_object":
        return {"type": "json_object"}
    return openai.omit


def cap_fields(spec: ProviderSpec, cap: int | None) -> dict[str, int]:
    """The output cap as the request field the provider reads (none when not sent)."""
    parameter = spec.cap_parameter()
    if cap is None or parameter == "none":
        return {}
    return {parameter: cap}


class ProviderClient:
    """A long-lived client per provider: building one costs ~50-100 ms (TLS context)."""

    def __init__(self, spec: ProviderSpec, api_key: str) -> None:
        self.spec = spec
        # No per-read or per-write timeout of the HTTP client's own: ``complete``'s deadline
        # bounds each call whole, connecting included. The client's would only add a timer to
        # every socket operation (about 0.3 ms of CPU per article on the worker's uvloop).
        # The SDK's aiohttp transport (its ``aiohttp`` extra; aiohttp parses HTTP in C) in
        # place of httpx's pure-Python h11/httpcore/anyio stack: less CPU per call, and on
        # the worker's uvloop far less (``python -m bench.provider_transport``).
        self._client = openai.AsyncOpenAI(
            base_url=spec.base_url,
            api_key=api_key,
            max_retries=0,
            timeout=None,
            http_client=openai.DefaultAioHttpClient(timeout=None),
        )

    async def complete(
        self,
        messages: list[dict[str, str]],
        *,
        schema_name: str,
        schema: dict[str, Any],
        max_output_tokens: int | None = None,
    ) -> Completion:
        """One attempt, within ``timeout_s`` from connecting to the last byte, its output
        capped at ``max_output_tokens`` (sent as the provider's ``cap_parameter``).

        A timeout per read never fires on a provider trickling bytes (the openai client's held
        one call for 23 s with ``timeout_s=3``); the deadline here cancels the request (and its
        connection) and counts it as a timeout, which the policy may retry.

        Raises:
            ProviderFailure: any technical failure, ``timeout`` past the deadline.
        """
        fields, omit = cap_fields(self.spec, max_output_tokens), openai.omit
        try:
            async with asyncio.timeout(self.spec.timeout_s):
                with translate_errors():
                    response = await self._client.chat.completions.create(
                        model=self.spec.model,
                        messages=messages,  # type: ignore[arg-type]
                        response_format=response_format(self.spec, schema_name, schema),
                        extra_body=self.spec.request_params() or None,
                        max_completion_tokens=fields.get("max_completion_tokens", omit),
                        max_tokens=fields.get("max_tokens", omit),
                    )
        except TimeoutError as exc:
            detail = f"no complete answer within {self.spec.timeout_s:g} s"
            raise ProviderFailure("timeout", detail) from exc
        if not response.choices:
            raise ProviderFailure("client_error", "response without choices")
        choice = response.choices[0]
        usage = response.usage
        return Completion(
            content=choice.message.content or "",
            prompt_tokens=usage.prompt_tokens if usage else None,
            completion_tokens=usage.completion_tokens if usage else None,
            finish_reason=choice.finish_reason,
        )

    async def aclose(self) -> None:
        await self._client.close()
