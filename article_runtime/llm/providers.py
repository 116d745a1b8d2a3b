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
        response_format: json_object   # json_schema_strict | json_schema | json_object | none
        max_output_tokens: 16384  # ceiling on the output cap (default: the model's limit)
        output_cap_param: max_completion_tokens  # or max_tokens | none (default: by model)
        reasoning_tokens: 0       # added to the cap for models that reason first
        params: {temperature: 0}  # request parameters for this model (default: below)
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

from article_runtime.candidates.urls import normalize_url
from article_runtime.errors import ContractError
from article_runtime.llm.prompts import load_prompt
from article_runtime.model.attempts import LogicalCall

PROVIDERS_ENV = "ARTICLE_RUNTIME_PROVIDERS"

# Reasoning models (gpt-5, o-series) accept only their default sampling: the API answers 400
# ("Unsupported value: 'temperature'") to any other. What the others get by default.
_DEFAULT_SAMPLING_ONLY = ("gpt-5", "o1", "o3", "o4")
_SAMPLING = frozenset({"temperature", "top_p", "presence_penalty", "frequency_penalty"})
_DEFAULT_PARAMS: dict[str, Any] = {"temperature": 0}
# The request fields the runtime itself sets; params may not override them.
_RESERVED = frozenset(
    {
        "model",
        "messages",
        "response_format",
        "stream",
        "n",
        "tools",
        "max_tokens",
        "max_completion_tokens",
    }
)
# OpenAI's names take max_completion_tokens (its reasoning models refuse max_tokens); other
# servers are asked with max_tokens, which llama.cpp, vLLM, Ollama and Gemini's OpenAI
# endpoint all read (llama.cpp reads max_completion_tokens only since February 2026).
_OPENAI_FAMILIES = ("gpt-", "chatgpt-", "o1", "o3", "o4")
# The most output tokens each certified model allows a request to ask for: a larger cap is
# refused with HTTP 400 (OpenAI and Gemini model pages).
_OUTPUT_LIMITS: tuple[tuple[str, int], ...] = (
    ("gpt-4o-mini", 16_384),
    ("gpt-4.1", 32_768),
    ("gpt-5", 128_000),
    ("gemini-2.5-flash-lite", 65_536),
)
REASONING_TOKENS = 8192
"""Room for the hidden reasoning of models that reason before answering (gpt-5, o-series):
their max_completion_tokens counts it. ``params: {reasoning_effort: low}`` keeps it short."""

CapParameter = Literal["max_completion_tokens", "max_tokens", "none"]
ResponseFormat = Literal["json_schema_strict", "json_schema", "json_object", "none"]
# OpenAI's certified models answer in structured outputs: a wrong shape cannot be decoded.
# Other servers get json_object unless configured (docs/providers.md).
_STRUCTURED_OUTPUTS = ("gpt-4o-mini", "gpt-4.1", "gpt-5")
OPENAI_DEFAULT_FORMAT: ResponseFormat = "json_schema_strict"

Scalar = str | int | float | bool | None


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
    # None: the model's default (``answer_format``). json_schema_strict: OpenAI's structured
    # outputs, the schema enforced in decoding (contracts.strict_wire_schema); json_schema:
    # the whole wire schema, not strict (servers that decode by any JSON schema: llama.cpp,
    # vLLM, Ollama); json_object: any JSON object; none: no response_format.
    response_format: ResponseFormat | None = None
    # The output cap (see ``output_cap``): every field None takes the model's default.
    max_output_tokens: int | None = Field(default=None, gt=0)
    output_cap_param: CapParameter | None = None
    reasoning_tokens: int | None = Field(default=None, ge=0)
    params: dict[str, Scalar] | None = None  # None: the model family's default (see below)

    @property
    def label(self) -> str:
        return self.name or self.model

    @property
    def default_sampling_only(self) -> bool:
        return self.model.strip().lower().startswith(_DEFAULT_SAMPLING_ONLY)

    @property
    def model_name(self) -> str:
        return self.model.strip().lower().rsplit("/", 1)[-1]

    def answer_format(self) -> ResponseFormat:
        """``response_format`` as configured, else the model's default."""
        if self.response_format is not None:
            return self.response_format
        if self.model_name.startswith(_STRUCTURED_OUTPUTS):
            return OPENAI_DEFAULT_FORMAT
        return "json_object"

    def cap_parameter(self) -> CapParameter:
        """The request field that carries the output cap."""
        if self.output_cap_param is not None:
            return self.output_cap_param
        openai_name = self.model_name.startswith(_OPENAI_FAMILIES)
        return "max_completion_tokens" if openai_name else "max_tokens"

    def output_ceiling(self) -> int | None:
        """``max_output_tokens``, else the model's own limit when it is a certified one."""
        if self.max_output_tokens is not None:
            return self.max_output_tokens
        return next((n for prefix, n in _OUTPUT_LIMITS if self.model_name.startswith(prefix)), None)

    def output_cap(self, answer_tokens: int) -> int | None:
        """The output tokens a request may use: what the longest valid answer needs, plus
        the reasoning allowance, at most the ceiling; None when the cap is not sent."""
        if self.cap_parameter() == "none":
            return None
        reasoning = self.reasoning_tokens
        if reasoning is None:
            reasoning = REASONING_TOKENS if self.default_sampling_only else 0
        cap = answer_tokens + reasoning
        ceiling = self.output_ceiling()
        return cap if ceiling is None else min(cap, ceiling)

    def request_params(self) -> dict[str, Scalar]:
        """What the request carries besides model, messages and response format: ``params``
        as configured, else ``temperature: 0`` where the model accepts it and nothing where it
        does not."""
        if self.params is not None:
            return dict(self.params)
        return {} if self.default_sampling_only else dict(_DEFAULT_PARAMS)

    def endpoint(self) -> str:
        """``base_url`` in normal form (scheme and host case, default port, trailing slash)."""
        normal = normalize_url(self.base_url)
        if normal is None:
            raise ContractError("malformed_providers", f"base_url {self.base_url!r} is no URL")
        return normal.rstrip("/")

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
        for spec in (primary, fallback):
            spec.endpoint()  # raises on a base_url that is no http(s) URL
            _check_params(str(call), spec)
        if _same_model(primary, fallback):
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


def _same_model(primary: ProviderSpec, fallback: ProviderSpec) -> bool:
    """The same model twice (spec 10.6), wherever each is served: asking it again after an
    invalid answer is a second semantic try, whatever the endpoint's spelling or host."""
    return primary.model.strip().casefold() == fallback.model.strip().casefold()


def _check_params(call: str, spec: ProviderSpec) -> None:
    """Refuse parameters that would make every request of this model fail (spec 4, 10.5)."""
    params = spec.params or {}
    reserved = sorted(_RESERVED & params.keys())
    if reserved:
        raise ContractError(
            "malformed_providers", f"{call}: params may not set {', '.join(reserved)}"
        )
    refused = sorted(_SAMPLING & params.keys())
    if spec.default_sampling_only and refused:
        raise ContractError(
            "unsupported_parameter",
            f"{call}: {spec.model} accepts only its default {', '.join(refused)}",
        )


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
