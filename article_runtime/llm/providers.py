"""Provider configuration (spec 10): per logical call, a cheap primary and a cheap fallback.

Loaded from YAML (``--providers FILE`` or ``ARTICLE_RUNTIME_PROVIDERS``). Keys never live in the
file: ``api_key_env`` names the environment variable that holds each key.

    article_content_hygiene:
      runtime_primary:
        base_url: https://api.openai.com/v1
        model: gpt-4.1-mini
        api_key_env: OPENAI_API_KEY
        timeout_s: 20             # one attempt, from connecting to the last byte of the answer
        max_retries: 2            # technical retries on this provider, after the first try
        backoff_s: 0.5            # first backoff; doubles each retry, capped by max_backoff_s
        max_backoff_s: 8
        max_retry_after_s: 30     # a longer Retry-After goes straight to the fallback
        price_input_per_mtok: 0.40
        price_output_per_mtok: 1.60
        response_format: json_schema   # json_schema | json_object | none
      runtime_fallback: {...}
    article_sentiment_tags: {...}
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from article_runtime.errors import ContractError
from article_runtime.llm.prompts import load_prompt
from article_runtime.model.attempts import LogicalCall

PROVIDERS_ENV = "ARTICLE_RUNTIME_PROVIDERS"


class ProviderSpec(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str | None = None
    base_url: str
    model: str
    api_key_env: str
    timeout_s: float = Field(default=30.0, gt=0)
    max_retries: int = Field(default=2, ge=0, le=5)
    backoff_s: float = Field(default=0.5, ge=0)
    max_backoff_s: float = Field(default=8.0, ge=0)
    max_retry_after_s: float = Field(default=30.0, ge=0)
    price_input_per_mtok: float = Field(default=0.0, ge=0)
    price_output_per_mtok: float = Field(default=0.0, ge=0)
    response_format: Literal["json_schema", "json_object", "none"] = "json_schema"

    @property
    def label(self) -> str:
        return self.name or self.model

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        return (
            prompt_tokens * self.price_input_per_mtok
            + completion_tokens * self.price_output_per_mtok
        ) / 1_000_000


class CallProviders(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    runtime_primary: ProviderSpec
    runtime_fallback: ProviderSpec


@dataclass(frozen=True, slots=True)
class ProviderConfig:
    """What each logical call may use. A call absent here has no provider."""

    calls: Mapping[str, CallProviders]

    def for_call(self, call: LogicalCall) -> CallProviders | None:
        return self.calls.get(call)

    def api_key(self, spec: ProviderSpec) -> str:
        return os.environ[spec.api_key_env]

    def secrets(self) -> list[str]:
        """Every key value this config can reach: tracing masks them wherever they appear."""
        names = {
            p.api_key_env
            for c in self.calls.values()
            for p in (c.runtime_primary, c.runtime_fallback)
        }
        return [os.environ[n] for n in sorted(names) if os.environ.get(n)]


def parse_providers(data: Any, *, environ: Mapping[str, str] | None = None) -> ProviderConfig:
    """Validate a providers mapping: shape, certified models, keys present in the environment.

    Raises:
        ContractError: ``malformed_providers``, ``uncertified_model`` or ``missing_api_key``.
    """
    env = os.environ if environ is None else environ
    if not isinstance(data, dict):
        raise ContractError("malformed_providers", "expected a mapping of logical calls")
    calls: dict[str, CallProviders] = {}
    for call, raw in data.items():
        prompt = load_prompt(str(call))  # unknown call names are refused here
        try:
            providers = CallProviders.model_validate(raw)
        except ValidationError as exc:
            raise ContractError("malformed_providers", f"{call}: {exc}") from exc
        primary, fallback = providers.runtime_primary, providers.runtime_fallback
        if (primary.base_url, primary.model) == (fallback.base_url, fallback.model):
            raise ContractError(
                "fallback_same_as_primary",
                f"{call}: a fallback on the same model would be a second semantic try",
            )
        for spec in (primary, fallback):
            prompt.require_certified(spec.model)
            if not env.get(spec.api_key_env):
                raise ContractError(
                    "missing_api_key", f"{call}: environment variable {spec.api_key_env} is unset"
                )
        calls[str(call)] = providers
    return ProviderConfig(calls)


def load_providers(path: str | None) -> ProviderConfig | None:
    """The configuration from ``path`` or ``$ARTICLE_RUNTIME_PROVIDERS``; None when neither."""
    chosen = path or os.environ.get(PROVIDERS_ENV)
    if not chosen:
        return None
    try:
        data = yaml.safe_load(Path(chosen).read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise ContractError("malformed_providers", f"{chosen}: {exc}") from exc
    return parse_providers(data)
