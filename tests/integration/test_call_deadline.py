"""Every model call has a deadline from connection to last byte (issue 12, section 4).

A provider that trickles its answer a byte at a time never lets one read wait long, so the
openai client's per-read timeout never fires; the runtime's own deadline must.
"""

from __future__ import annotations

import json

import pytest

from article_runtime.hygiene import hygiene_article
from tests.factories import candidate_set, proposal
from tests.llm_support import FALLBACK, PRIMARY, Recorder, config, run
from tests.support.openai_server import (
    Reply,
    ScriptedOpenAIServer,
    Trickle,
    action_from_json,
)

VALID = Reply(proposal())
TIMEOUT_S = 1.0


def test_a_trickling_provider_times_out_and_the_policy_moves_on(
    server: ScriptedOpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    trickle = Trickle(0.05, VALID)  # ~2 KB at 20 bytes/s: over a minute for the whole answer
    server.script(PRIMARY, trickle, trickle)
    server.script(FALLBACK, VALID)
    recorder = Recorder()
    runtime = recorder.runtime(
        config(monkeypatch, server.base_url, timeout_s=TIMEOUT_S, max_retries=1)
    )
    article = run(hygiene_article(candidate_set(), b"<html/>", source="t", llm=runtime), runtime)
    attempts = [(a.role, a.attempt, a.outcome) for a in article.attempts]
    assert attempts == [
        ("runtime_primary", 1, "timeout"),
        ("runtime_primary", 2, "timeout"),
        ("runtime_fallback", 1, "ok"),
    ]
    assert article.path == "fallback"
    for attempt in article.attempts[:2]:
        # Cut by the call's deadline: not before it, and long before the whole trickle
        # (over a minute) could have arrived. How close to it is bench territory.
        assert TIMEOUT_S * 1000 <= attempt.latency_ms < 30_000
    assert server.pending() == {}


def test_a_trickle_within_the_deadline_is_an_answer(
    server: ScriptedOpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    server.script(PRIMARY, Trickle(0.0, VALID, chunk=64))
    runtime = Recorder().runtime(config(monkeypatch, server.base_url, timeout_s=TIMEOUT_S))
    article = run(hygiene_article(candidate_set(), b"<html/>", source="t", llm=runtime), runtime)
    assert [(a.role, a.outcome) for a in article.attempts] == [("runtime_primary", "ok")]


def test_the_trickle_action_has_a_json_form() -> None:
    action = action_from_json({"trickle": 0.5, "then": {"reply": {"a": 1}}, "chunk": 4})
    assert action == Trickle(0.5, Reply({"a": 1}), chunk=4)
    with pytest.raises(ValueError):
        action_from_json({"trickle": 0.5, "then": {"drop": True}})
    assert json.loads(Reply({"a": 1}).text) == {"a": 1}
