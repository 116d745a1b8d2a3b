"""Live provider: one call to a configured model through the runtime's own ``ProviderClient``.

Configured per role (``runtime_primary`` / ``runtime_fallback``) from the providers YAML, so the
request (messages, temperature 0, response format, output cap for the case's article) is the
one production sends. One attempt, no retries: the suite measures the model, the policy has its
own tests. With ``record`` the answer is stored as ``recorded:<model>`` with ``expect`` left for
a person to fill.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # Promptfoo loads providers by path
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from evals.paths import ANSWERS


def _bounds(prompt: str, case_name: str) -> Any:
    """The case article's answer bounds, as the runtime computes them for its output cap."""
    from article_runtime.answer_bounds import hygiene_bounds
    from article_runtime.enrichment.bounds import enrichment_bounds
    from evals.cases import candidate_set, enrichment_input, load_case
    from evals.paths import HYGIENE

    case = load_case(prompt, case_name)
    if prompt == HYGIENE:
        return hygiene_bounds(candidate_set(case))
    return enrichment_bounds(enrichment_input(case))


async def _complete(
    prompt: str, role: str, providers: str, messages: Any, case_name: str
) -> tuple[Any, Any, int | None]:
    from article_runtime.llm.client import ProviderClient
    from article_runtime.llm.prompts import load_prompt
    from article_runtime.llm.providers import load_providers
    from article_runtime.llm.request import OutputCaps, response_schema

    config = load_providers(providers)
    call = config.for_call(prompt) if config is not None else None  # type: ignore[arg-type]
    if config is None or call is None:
        raise LookupError(f"no providers for {prompt} in {providers}")
    spec = getattr(call, role)
    spec_prompt = load_prompt(prompt)
    cap = OutputCaps(spec_prompt, _bounds(prompt, case_name)).for_spec(spec)
    client = ProviderClient(spec, config.api_key(spec))
    try:
        schema = response_schema(spec, spec_prompt)
        done = await client.complete(
            messages, schema_name=prompt, schema=schema, max_output_tokens=cap
        )
        return spec, done, cap
    finally:
        await client.aclose()


def _record(prompt: str, case: str, model: str, messages: Any, content: str) -> None:
    try:
        answer: Any = json.loads(content)
    except ValueError:
        answer = content
    path = ANSWERS / prompt / f"{case}--{model}.json"
    stored = {
        "input": case,
        "origin": f"recorded:{model}",
        "messages_sha256": hashlib.sha256(json.dumps(messages).encode()).hexdigest(),
        "expect": None,  # a person reviews the answer and writes "pass" or "fail"
        "caught_by": {},
        "answer": answer,
    }
    path.write_text(json.dumps(stored, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")


def call_api(prompt: str, options: dict[str, Any], context: dict[str, Any]) -> dict[str, Any]:
    from article_runtime.llm.client import ProviderFailure

    config = options.get("config", {})
    suite, role = str(config["prompt"]), str(config["role"])
    messages = json.loads(prompt)
    case = str(context["vars"]["input"])
    try:
        spec, done, cap = asyncio.run(
            _complete(suite, role, str(config["providers"]), messages, case)
        )
    except ProviderFailure as failure:
        return {"error": f"{failure.outcome}: {failure}"}
    if done.finish_reason == "length":  # cut at the cap, as the runtime records it
        return {"error": f"output_truncated: answer cut at the output cap ({cap} tokens)"}
    if config.get("record"):
        _record(suite, case, spec.model, messages, done.content)
    prompt_tokens, completion_tokens = done.prompt_tokens or 0, done.completion_tokens or 0
    return {
        "output": done.content,
        "cost": spec.cost(prompt_tokens, completion_tokens),
        "tokenUsage": {
            "prompt": prompt_tokens,
            "completion": completion_tokens,
            "total": prompt_tokens + completion_tokens,
        },
        "metadata": {
            "model": spec.model,
            "role": role,
            "finish_reason": done.finish_reason,
            "output_cap": cap,
        },
    }
