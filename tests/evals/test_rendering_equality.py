"""Promptfoo sends what the runtime sends, hash for hash (spec 11.1, acceptance 12).

Both go over real HTTP to the scripted OpenAI server: first ``evals.run --live`` (Promptfoo,
the prompt function, the live provider), then the runtime's own hygiene and enrichment calls.
The ``messages`` of every request are hashed and compared; a live run must also pass.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from article_runtime.enrichment.call import enrich_article
from article_runtime.enrichment.model import Entity
from article_runtime.hygiene import hygiene_article
from article_runtime.llm.providers import parse_providers
from evals import run as evals_run
from evals.answers_store import load_answer
from evals.cases import assembled_article, candidate_set, load_case, page_bytes
from evals.paths import ENRICHMENT, EVALS, HYGIENE
from evals.prompts import runtime_messages
from tests.llm_support import Recorder, run
from tests.support.openai_server import Reply, running_server

pytestmark = pytest.mark.skipif(
    not (EVALS / "node_modules" / ".bin" / "promptfoo").exists(),
    reason="promptfoo is not installed: run `make evals-install` (make test does it)",
)
MODELS = {HYGIENE: ("gpt-4.1-mini", "gpt-4o-mini"), ENRICHMENT: ("gpt-4.1-nano", "gpt-5-nano")}
CASES = {HYGIENE: "repairs-ja", ENRICHMENT: "pt-vale"}


def _sha(messages: Any) -> str:
    return hashlib.sha256(json.dumps(messages).encode()).hexdigest()


def _providers(base_url: str) -> dict[str, Any]:
    def one(model: str) -> dict[str, Any]:
        return {"base_url": base_url, "model": model, "api_key_env": "EVALS_TEST_KEY",
                "timeout_s": 20, "max_retries": 0}  # fmt: skip

    return {
        call: {"runtime_primary": one(primary), "runtime_fallback": one(fallback)}
        for call, (primary, fallback) in MODELS.items()
    }


def test_promptfoo_sends_exactly_the_runtime_messages(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EVALS_TEST_KEY", "sk-evals-test")
    with running_server(repeat_last=True) as server:
        for call, models in MODELS.items():
            good = load_answer(call, f"{CASES[call]}--good")["answer"]
            for model in models:
                server.script(model, Reply(good))
        providers = tmp_path / "providers.yaml"
        providers.write_text(yaml.safe_dump(_providers(server.base_url)), encoding="utf-8")
        args = ["--live", "--providers", str(providers)]
        assert evals_run.main([*args, "--case", CASES[HYGIENE], "--case", CASES[ENRICHMENT]]) == 0
        sent_by_promptfoo = {m: {_sha(c.messages) for c in server.calls_for(m)} for m in
                             (*MODELS[HYGIENE], *MODELS[ENRICHMENT])}  # fmt: skip
        before = len(server.calls)

        runtime = Recorder().runtime(parse_providers(_providers(server.base_url)))
        hygiene_case = load_case(HYGIENE, CASES[HYGIENE])
        run(
            hygiene_article(candidate_set(hygiene_case), page_bytes(hygiene_case),
                            source="equality", llm=runtime),
            runtime,
        )  # fmt: skip
        runtime = Recorder().runtime(parse_providers(_providers(server.base_url)))
        enrichment_case = load_case(ENRICHMENT, CASES[ENRICHMENT])
        entity = Entity.model_validate(enrichment_case.entry["entity"])
        run(enrich_article(assembled_article(enrichment_case), entity, llm=runtime), runtime)
        sent_by_runtime = {c.model: _sha(c.messages) for c in server.calls[before:]}

    for call, (primary, fallback) in MODELS.items():
        expected = _sha(runtime_messages(call, CASES[call]))
        assert sent_by_runtime[primary] == expected  # the runtime's call (primary answered)
        assert sent_by_promptfoo[primary] == {expected}  # promptfoo, both roles
        assert sent_by_promptfoo[fallback] == {expected}
