"""Tracing of model calls (spec 12): one Langfuse generation per ``GenerationRecord``.

    Tracer              the protocol callers hold: record, flush, shutdown; none of them raise
    ├── NullTracer      tracing off, or no Langfuse keys
    └── LangfuseTracer  masked generations, exported in the background

Tracing being off, misconfigured or unreachable never fails or slows a model call: errors are
swallowed (one WARNING, then DEBUG) and the export runs on the SDK's worker thread.
Secrets never leave the process: see :mod:`article_runtime.tracing.masking`.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable, Mapping
from typing import Protocol

from article_runtime.llm.records import GenerationRecord
from article_runtime.tracing.langfuse_tracer import LangfuseTracer
from article_runtime.tracing.masking import REDACTED, SENSITIVE_KEYS, Redactor

__all__ = [
    "REDACTED",
    "SENSITIVE_KEYS",
    "LangfuseTracer",
    "NullTracer",
    "Redactor",
    "Tracer",
    "tracer_from_env",
]

log = logging.getLogger(__name__)

TRACING_SWITCH = "ARTICLE_RUNTIME_TRACING"
_OFF = frozenset({"off", "false", "0", "no"})


class Tracer(Protocol):
    def record(self, generation: GenerationRecord) -> None: ...

    def flush(self) -> None: ...

    def shutdown(self) -> None: ...


class NullTracer:
    """Records nothing."""

    def record(self, generation: GenerationRecord) -> None:
        return None

    def flush(self) -> None:
        return None

    def shutdown(self) -> None:
        return None


def tracer_from_env(secrets: Iterable[str], environ: Mapping[str, str] | None = None) -> Tracer:
    """``LangfuseTracer`` when ``LANGFUSE_PUBLIC_KEY`` and ``LANGFUSE_SECRET_KEY`` are set and
    neither ``ARTICLE_RUNTIME_TRACING=off`` nor ``LANGFUSE_TRACING_ENABLED=false``; else
    ``NullTracer``. The host comes from ``LANGFUSE_BASE_URL``, then ``LANGFUSE_HOST``.

    Args:
        secrets: values to redact, e.g. the API keys named by the providers' ``api_key_env``.
        environ: defaults to ``os.environ``.
    """
    env = os.environ if environ is None else environ
    if env.get(TRACING_SWITCH, "").strip().lower() in _OFF:
        return NullTracer()
    if env.get("LANGFUSE_TRACING_ENABLED", "true").strip().lower() == "false":
        return NullTracer()
    public_key = env.get("LANGFUSE_PUBLIC_KEY", "").strip()
    secret_key = env.get("LANGFUSE_SECRET_KEY", "").strip()
    if not public_key or not secret_key:
        return NullTracer()
    base_url = env.get("LANGFUSE_BASE_URL") or env.get("LANGFUSE_HOST") or None
    try:
        return LangfuseTracer(
            public_key=public_key,
            secret_key=secret_key,
            base_url=base_url,
            secrets=secrets,
            environ=env,
        )
    except Exception as exc:
        log.warning("tracing: Langfuse unavailable (%s); tracing is off", type(exc).__name__)
        return NullTracer()
