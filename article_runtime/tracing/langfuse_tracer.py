"""Langfuse generations over OpenTelemetry (langfuse 5): record in memory, export in background.

``record`` only builds a span and hands it to the batch processor's in-memory queue; the HTTP
export runs on the processor's worker thread. An export has a deadline of ``export_timeout_s``
(retries included), so ``flush`` against a dead host returns in about that time.

The tracer owns its ``TracerProvider`` (never the process-global one) and shuts it down.
Langfuse keeps one client per public key per process; ``shutdown`` drops that entry so a later
tracer with the same key starts afresh instead of writing into a closed pipeline.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from article_runtime.llm.records import GenerationRecord
from article_runtime.tracing.generation import generation_fields
from article_runtime.tracing.masking import Redactor, basic_auth_token, env_secrets

if TYPE_CHECKING:
    from langfuse.types import TraceContext
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SpanExporter

log = logging.getLogger(__name__)

DEFAULT_EXPORT_TIMEOUT_S = 2


class LangfuseTracer:
    """Records each ``GenerationRecord`` as one Langfuse generation; never raises.

    Args:
        public_key, secret_key: Langfuse project keys.
        base_url: Langfuse host; ``None`` lets the SDK read ``LANGFUSE_BASE_URL``/``LANGFUSE_HOST``.
        secrets: values to redact wherever they appear (the providers' API keys).
        export_timeout_s: deadline of one export request, retries included (whole seconds).
        tracer_provider, span_exporter: for tests (e.g. an ``InMemorySpanExporter``); the tracer
            takes ownership of the provider and shuts it down.
        environ: where to look for ``*_API_KEY``/``*_SECRET_KEY``/``*_TOKEN`` values to redact.

    Raises:
        ValueError: ``export_timeout_s`` below 1. SDK construction errors propagate;
            :func:`article_runtime.tracing.tracer_from_env` turns them into a ``NullTracer``.
    """

    def __init__(
        self,
        *,
        public_key: str,
        secret_key: str,
        base_url: str | None = None,
        secrets: Iterable[str] = (),
        environment: str | None = None,
        release: str | None = None,
        export_timeout_s: int = DEFAULT_EXPORT_TIMEOUT_S,
        tracer_provider: TracerProvider | None = None,
        span_exporter: SpanExporter | None = None,
        environ: Mapping[str, str] | None = None,
    ) -> None:
        from langfuse import Langfuse
        from opentelemetry.sdk.trace import TracerProvider

        if export_timeout_s < 1:
            raise ValueError("export_timeout_s must be at least 1 second")
        self._public_key = public_key
        self._redactor = Redactor(
            [
                *secrets,
                secret_key,
                basic_auth_token(public_key, secret_key),
                *env_secrets(environ),
            ]
        )
        self._provider = tracer_provider if tracer_provider is not None else TracerProvider()
        self._client = Langfuse(
            public_key=public_key,
            secret_key=secret_key,
            base_url=base_url,
            timeout=export_timeout_s,
            environment=environment,
            release=release,
            mask=self._redactor,
            tracer_provider=self._provider,
            span_exporter=span_exporter,
        )
        self._warned = False
        self._closed = False

    @property
    def redactor(self) -> Redactor:
        return self._redactor

    def record(self, generation: GenerationRecord) -> None:
        if self._closed:
            return
        try:
            fields = generation_fields(generation, self._redactor)
            # The SDK cannot back-date a start: end the span so its duration is the latency.
            started_ns = time.time_ns()
            observation = self._client.start_observation(
                name=fields.name,
                as_type="generation",
                input=fields.input,
                output=fields.output,
                metadata=fields.metadata,
                version=fields.version,
                level=fields.level,
                status_message=fields.status_message,
                model=fields.model,
                usage_details=fields.usage_details,
                cost_details=fields.cost_details,
                trace_context=self._trace_context(generation.trace_key),
            )
            observation.end(end_time=started_ns + fields.latency_ns)
        except Exception as exc:
            self._swallow("record", exc)

    def _trace_context(self, key: str | None) -> TraceContext | None:
        """One trace per article: every attempt of its calls lands under the same trace ID."""
        if key is None:
            return None
        return {"trace_id": self._client.create_trace_id(seed=key)}

    def flush(self) -> None:
        if self._closed:
            return
        try:
            self._client.flush()
        except Exception as exc:
            self._swallow("flush", exc)

    def shutdown(self) -> None:
        """Flush, stop the SDK's threads and forget its per-key singleton. Idempotent."""
        if self._closed:
            return
        self._closed = True
        for stop in (self._client.shutdown, self._provider.shutdown):
            try:
                stop()
            except Exception as exc:
                self._swallow("shutdown", exc)
        _release_sdk_leftovers(self._client, self._public_key)

    def _swallow(self, operation: str, exc: Exception) -> None:
        # The exception's type only: its message may quote the payload.
        kind = type(exc).__name__
        if not self._warned:
            self._warned = True
            log.warning(
                "tracing: %s failed (%s); the call goes on untraced, later failures log at DEBUG",
                operation,
                kind,
            )
        else:
            log.debug("tracing: %s failed (%s)", operation, kind)


def _release_sdk_leftovers(client: object, public_key: str) -> None:
    """What ``Langfuse.shutdown`` leaves behind in langfuse 5.0.4 (private API, version pinned).

    The per-key resource manager stays registered (a later client with the same key would get
    the closed one), its prompt-cache refresh thread keeps running and its httpx client stays
    open. Best effort: if the SDK moved these, the leftovers are idle daemon resources.
    """
    try:
        from langfuse._client.resource_manager import LangfuseResourceManager

        resources = getattr(client, "_resources", None)
        with LangfuseResourceManager._lock:
            if LangfuseResourceManager._instances.get(public_key) is resources:
                LangfuseResourceManager._instances.pop(public_key, None)
        cache_tasks = getattr(getattr(resources, "prompt_cache", None), "_task_manager", None)
        if cache_tasks is not None:
            cache_tasks.shutdown()
        http = getattr(resources, "httpx_client", None)
        if http is not None:
            http.close()
    except Exception:
        log.debug("tracing: could not release langfuse leftovers")
