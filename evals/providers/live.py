"""Live provider: one call to a configured model through the runtime's own ``ProviderClient``.

Configured per role (``runtime_primary`` / ``runtime_fallback``) from the providers YAML, so the
request (messages, temperature 0, response format) is the one production sends. One attempt,
no retries: the suite measures the model, the policy has its own tests. With ``record`` the
answer is stored as ``recorded:<model>`` with ``expect`` left for a person to fill.
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


async def _complete(prompt: str, role: str, providers: str, messages: Any) -> tuple[Any, Any]:
    from article_runtime import contracts
    from article_runtime.llm.client import ProviderClient
    from article_runtime.llm.prompts import load_prompt
    from article_runtime.llm.providers import load_providers

    config = load_providers(providers)
    call = config.for_call(prompt) if config is not None else None  # type: ignore[arg-type]
    if config is None or call is None:
        raise LookupError(f"no providers for {prompt} in {providers}")
    spec = getattr(call, role)
    client = ProviderClient(spec, config.api_key(spec))
    try:
        schema = contracts.load_schema(load_prompt(prompt).output_schema)
        return spec, await client.complete(messages, schema_name=prompt, schema=schema)
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
    try:
        spec, done = asyncio.run(_complete(suite, role, str(config["providers"]), messages))
    except ProviderFailure as failure:
        return {"error": f"{failure.outcome}: {failure}"}
    if config.get("record"):
        _record(suite, str(context["vars"]["input"]), spec.model, messages, done.content)
    prompt_tokens, completion_tokens = done.prompt_tokens or 0, done.completion_tokens or 0
    return {
        "output": done.content,
        "cost": spec.cost(prompt_tokens, completion_tokens),
        "tokenUsage": {
            "prompt": prompt_tokens,
            "completion": completion_tokens,
            "total": prompt_tokens + completion_tokens,
        },
        "metadata": {"model": spec.model, "role": role, "finish_reason": done.finish_reason},
    }
