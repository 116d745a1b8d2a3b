"""Logs an operator can follow: one line per event, each naming the article it is about.

``ARTICLE_RUNTIME_LOG_FORMAT`` is the one switch: ``json`` (one JSON object per line, what the
chart sets) or ``text`` (the default, for a terminal). Both carry the same fields.

Which article a line is about is not passed around: the wiring sets an ``ArticleScope`` in a
context variable when it starts on a message (``article_scope``), the LLM runtime's trace hook
adds the rung, prompt version and model (``log_generation``), and every line logged while that
message is processed, by any logger (ours, Faust's, the core's, the openai client's), carries
``article_id``, ``stage``, ``rung``, ``prompt_version`` and ``model``. Tasks and threads started
for the message inherit the scope (asyncio copies the context).

An invalid answer, a fallback and a terminal failure each log one line with its ``reason``
(``event``: ``invalid_answer``, ``fallback``, ``terminal``). A terminal ``no_provider`` is the
exception: the worker says once at start that it has no provider, and counts these events in
``/metrics`` (``article_runtime_compensation_events_total{reason="no_provider"}``); per
article it is a DEBUG line, not an ERROR for every article.

The Kafka client's own lines are held down (``article_runtime.streams.service.client_logs``) below
``debug``.

No secret reaches a line: every string field goes through the tracing's ``Redactor`` (the
provider keys, Langfuse and Kafka secrets, any ``*_API_KEY``/``*_SECRET_KEY``/``*_TOKEN``
variable) and anything following ``Bearer`` is masked, whatever logged it.
"""

from __future__ import annotations

import json
import logging
import logging.config
import os
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, fields
from datetime import UTC, datetime
from typing import Any

from article_runtime.candidates.urls import url_host
from article_runtime.enrichment.call import ENRICHMENT
from article_runtime.hygiene import HYGIENE
from article_runtime.llm.providers import ProviderConfig
from article_runtime.llm.records import GenerationRecord
from article_runtime.streams.service.client_logs import shared
from article_runtime.tracing.masking import REDACTED, Redactor, env_secrets

LOG_FORMAT_ENV = "ARTICLE_RUNTIME_LOG_FORMAT"
LOG_LEVEL_ENV = "ARTICLE_RUNTIME_LOG_LEVEL"
FORMATS = ("text", "json")
LEVELS = ("debug", "info", "warning", "error")
LANGFUSE_SECRETS = ("LANGFUSE_SECRET_KEY", "LANGFUSE_PUBLIC_KEY")
KAFKA_SECRETS = ("KAFKA_SASL_PASSWORD",)
_BEARER = "bearer "
# The HTTP clients that log a line per request at INFO: httpx, and its fork httpx2 under
# openai. (Their transports, httpcore and httpcore2, log at debug only.)
HTTP_CLIENT_LOGGERS = ("httpx", "httpx2")
# Terminal reasons the worker states once at start instead of once per article.
SAID_AT_START = frozenset({"no_provider"})
# What the worker does for a logical call that has no provider.
WITHOUT_PROVIDER = {
    HYGIENE: "hygiene takes the deterministic path",
    ENRICHMENT: "every enrichment ends no_provider (counted in /metrics, not logged per article)",
}

log = logging.getLogger("article_runtime.events")

# Attributes every LogRecord has; anything else on a record was passed with ``extra=``.
_STANDARD = frozenset(logging.LogRecord("", 0, "", 0, "", (), None).__dict__) | {
    "message",
    "asctime",
    "taskName",
}


@dataclass
class ArticleScope:
    """What the lines logged while one message is processed are about."""

    article_id: str | None = None
    stage: str | None = None
    rung: str | None = None
    prompt_version: str | None = None
    model: str | None = None
    # The last failed attempt's role and reason in this message's model call: a first attempt
    # of the fallback role right after it is the fallback (its reason is the primary's).
    _failed_role: str | None = None
    _failed_reason: str | None = None

    def fields(self) -> dict[str, str]:
        return {
            f.name: value
            for f in fields(self)
            if not f.name.startswith("_") and (value := getattr(self, f.name)) is not None
        }


_scope: ContextVar[ArticleScope | None] = ContextVar("article_scope", default=None)


@contextmanager
def article_scope(article_id: str | None, stage: str) -> Iterator[ArticleScope]:
    """Every line logged inside (and in tasks started inside) is about this article."""
    scope = ArticleScope(article_id=article_id or None, stage=stage)
    token = _scope.set(scope)
    try:
        yield scope
    finally:
        _scope.reset(token)


def current_scope() -> ArticleScope | None:
    return _scope.get()


def note_record(record: Mapping[str, Any]) -> None:
    """What a decoded input says about its article: its ID and, for the hygiene ladder, the
    rung, the prompt version and the model of its last attempt (a proposal carries them)."""
    scope = _scope.get()
    if scope is None:
        return
    if record.get("article_id"):
        scope.article_id = str(record["article_id"])
    role, prompt, attempts = record.get("role"), record.get("prompt"), record.get("attempts")
    if isinstance(role, str):
        scope.rung = role
    if isinstance(prompt, Mapping) and prompt.get("version"):
        scope.prompt_version = str(prompt["version"])
    if isinstance(attempts, list) and attempts and isinstance(attempts[-1], Mapping):
        scope.model = attempts[-1].get("model") or scope.model


# -- the three events an operator follows ---------------------------------------------------


def log_generation(generation: GenerationRecord) -> None:
    """The trace hook's side: one line for an invalid answer and for a fallback within a call
    that leaves no compensation event (enrichment's; each hygiene fallback is an event, logged
    when it is produced); a technical failure (timeout, 429, 5xx) is one INFO line. The scope
    learns the rung, prompt version and model of the attempt."""
    attempt = generation.attempt
    scope = _scope.get()
    fallback_from = None
    if scope is not None:
        scope.rung, scope.model = attempt.role, attempt.model
        scope.prompt_version = generation.prompt_version
        first_of_fallback = attempt.role == "runtime_fallback" and attempt.attempt == 1
        if first_of_fallback and scope._failed_role == "runtime_primary":
            fallback_from = scope._failed_reason
        failed = attempt.outcome != "ok"
        scope._failed_role = attempt.role if failed else None
        scope._failed_reason = attempt.reason if failed else None
    common = {
        "prompt": generation.prompt_name,
        "prompt_version": generation.prompt_version,
        "rung": attempt.role,
        "model": attempt.model,
        "attempt": attempt.attempt,
    }
    if fallback_from is not None and generation.prompt_name != HYGIENE:
        log.warning(
            "fallback to runtime_fallback after runtime_primary failed: %s",
            fallback_from,
            extra={"event": "fallback", "reason": fallback_from, "next_rung": attempt.role},
        )
    if attempt.outcome == "invalid":
        log.warning(
            "invalid answer from %s: %s",
            attempt.model,
            attempt.reason,
            extra={**common, "event": "invalid_answer", "reason": attempt.reason},
        )
    elif attempt.outcome != "ok":
        log.info(
            "provider attempt failed: %s",
            attempt.reason,
            extra={**common, "event": "attempt_failed", "reason": attempt.reason},
        )


def without_providers(providers: ProviderConfig | None) -> str | None:
    """The one line the worker warns at start when a logical call has no provider (None when
    every call has one)."""
    missing = [c for c in WITHOUT_PROVIDER if providers is None or providers.for_call(c) is None]
    if not missing:
        return None
    what = "; ".join(WITHOUT_PROVIDER[c] for c in missing)
    return f"no provider for {', '.join(missing)}: {what}"


def log_compensation(event: Mapping[str, Any]) -> None:
    """One line per compensation event produced: a fallback to the next rung, or the end."""
    entity = (event.get("entity") or {}).get("qid")
    fields_ = {
        "article_id": event["article_id"],
        "stage": event["stage"],
        "reason": event["reason"],
        **({"entity": entity} if entity else {}),
    }
    if event["kind"] == "fallback":
        log.warning(
            "fallback to %s: %s",
            event.get("next_attempt"),
            event["reason"],
            extra={**fields_, "event": "fallback", "next_rung": event.get("next_attempt")},
        )
    else:
        log.log(
            logging.DEBUG if event["reason"] in SAID_AT_START else logging.ERROR,
            "terminal failure at %s: %s",
            event["stage"],
            event["reason"],
            extra={**fields_, "event": "terminal", "detail": event.get("detail")},
        )


# -- formatting and masking -----------------------------------------------------------------


def mask_bearer(text: str) -> str:
    """``Bearer <anything>`` up to the next space or quote becomes ``Bearer [REDACTED]``.

    A repeated scheme word (``Bearer Bearer <token>``) is skipped, not taken for the token; a
    token that itself ends in the scheme word (``xBearer <token>``) has what follows masked too;
    and the case-insensitive search runs on a same-length lowering, so its offsets are the text's
    (``str.lower`` turns some letters into two characters, which would shift them).
    """
    lowered = "".join(ch if len(low := ch.lower()) != 1 else low for ch in text)
    out, start, search = [], 0, 0
    while (found := lowered.find(_BEARER, search)) >= 0:
        begin = found + len(_BEARER)
        while lowered.startswith(_BEARER, begin):
            begin += len(_BEARER)
        end = begin
        while end < len(text) and text[end] not in " \t\r\n'\",;}])":
            end += 1
        out.append(text[start:begin])
        out.append(REDACTED if end > begin else "")
        start, search = end, begin
    out.append(text[start:])
    return "".join(out)


class _Masking(logging.Formatter):
    """The fields of a record with the article's scope added, every string masked."""

    def __init__(self, redactor: Redactor | None = None) -> None:
        super().__init__()
        self.redactor = redactor or Redactor([])

    def clean(self, value: Any) -> Any:
        if isinstance(value, str):
            return mask_bearer(self.redactor.text(value))
        if isinstance(value, bool | int | float) or value is None:
            return value
        if isinstance(value, Mapping):
            return {str(k): self.clean(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [self.clean(v) for v in value]
        return self.clean(str(value))

    def entry(self, record: logging.LogRecord) -> dict[str, Any]:
        scope = _scope.get()
        extra = {k: v for k, v in record.__dict__.items() if k not in _STANDARD}
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
            **(scope.fields() if scope is not None else {}),
            **{k: v for k, v in extra.items() if v is not None},
        }
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return {k: self.clean(v) for k, v in entry.items()}


class JsonFormatter(_Masking):
    def format(self, record: logging.LogRecord) -> str:
        return json.dumps(self.entry(record), ensure_ascii=False, default=str)


class TextFormatter(_Masking):
    def format(self, record: logging.LogRecord) -> str:
        entry = self.entry(record)
        head = f"[{entry.pop('time')} {entry.pop('level').upper()}] {entry.pop('logger')}: "
        message, exception = entry.pop("message"), entry.pop("exception", None)
        tail = " ".join(f"{k}={v}" for k, v in entry.items())
        line = head + message + (f" [{tail}]" if tail else "")
        return f"{line}\n{exception}" if exception else line


@dataclass(frozen=True)
class LogSettings:
    format: str = "text"
    level: str = "info"

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> LogSettings:
        env = os.environ if environ is None else environ
        chosen = (env.get(LOG_FORMAT_ENV) or cls.format).strip().lower()
        level = (env.get(LOG_LEVEL_ENV) or cls.level).strip().lower()
        for name, value, allowed in (
            (LOG_FORMAT_ENV, chosen, FORMATS),
            (LOG_LEVEL_ENV, level, LEVELS),
        ):
            if value not in allowed:
                raise ValueError(f"{name} must be one of {', '.join(allowed)}, not {value!r}")
        return cls(chosen, level)


def known_secrets(extra: Iterable[str] = (), environ: Mapping[str, str] | None = None) -> list[str]:
    """Every secret value a line could carry: ``extra`` (the provider keys), the Langfuse and
    Kafka secrets, and variables named like secrets."""
    env = os.environ if environ is None else environ
    named = [env[n] for n in (*LANGFUSE_SECRETS, *KAFKA_SECRETS) if env.get(n)]
    return [*extra, *named, *env_secrets(env)]


def logging_config(settings: LogSettings, secrets: Iterable[str]) -> dict[str, Any]:
    """A ``logging.config.dictConfig`` for the worker (also handed to Faust's worker, which
    would otherwise install its own colored handler)."""
    formatter = JsonFormatter if settings.format == "json" else TextFormatter
    redactor = Redactor(secrets)
    level = settings.level.upper()
    # Below debug, the HTTP clients' own INFO line per request ("HTTP Request: POST ...") is
    # left out: the trace hook's line per model attempt says it with the outcome, rung and
    # latency. At 3-4 requests an article it cost the worker about 0.3 ms of CPU per article.
    quieter = "NOTSET" if level == "DEBUG" else max(logging.getLevelName(level), logging.WARNING)
    http = {name: {"level": quieter} for name in HTTP_CLIENT_LOGGERS}
    # Below debug, the Kafka client's repeated lines are held down (one per kind a minute,
    # none while the broker watch holds the broker unreachable: it speaks for them).
    held_down = {"filters": ["client_lines"]} if level != "DEBUG" else {}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"article_runtime": {"()": formatter, "redactor": redactor}},
        "filters": {"client_lines": {"()": shared}},
        "handlers": {
            "default": {
                "class": "logging.StreamHandler",
                "formatter": "article_runtime",
                "stream": "ext://sys.stdout",
                **held_down,
            }
        },
        "loggers": http,
        "root": {"level": level, "handlers": ["default"]},
    }


def configure(settings: LogSettings, secrets: Iterable[str]) -> None:
    """Install the worker's logging now (``dictConfig`` consumes its config: Faust's worker
    gets a fresh ``logging_config`` of its own)."""
    logging.config.dictConfig(logging_config(settings, secrets))


def effective_settings(
    worker: Mapping[str, Any],
    kafka: Mapping[str, object],
    providers: ProviderConfig | None,
    *,
    tracing: str,
    logs: LogSettings,
) -> dict[str, Any]:
    """What the startup line lists: the worker's settings, the Kafka connection as
    ``KafkaConnection.masked()`` shows it, and per model call where it goes (host, model, the
    *name* of the key's variable), never a key."""
    calls: dict[str, Any] = {}
    for call, roles in providers.calls.items() if providers is not None else ():
        calls[call] = {
            role: {
                "model": spec.model,
                "host": url_host(spec.base_url),
                "api_key_env": spec.api_key_env,
                "timeout_s": spec.timeout_s,
            }
            for role, spec in (
                ("runtime_primary", roles.runtime_primary),
                ("runtime_fallback", roles.runtime_fallback),
            )
        }
    return {
        "worker": dict(worker),
        "kafka": dict(kafka),
        "providers": calls or None,
        "tracing": tracing,
        "log": {"format": logs.format, "level": logs.level},
    }
