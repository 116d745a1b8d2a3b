"""``article-runtime replay`` against a real broker, after the flow settled some articles.

With the harness that judged them, nothing would change and the summary says so, one line per
article; with a stricter harness, the articles whose answers it now refuses are reported, and
the provider is asked nothing.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from article_runtime.streams.commands import main
from tests.integration.stream_support import Flow
from tests.llm_support import FALLBACK, PRIMARY
from tests.support.openai_server import ScriptedOpenAIServer
from tests.support.stream_cases import make_articles, responder

pytestmark = pytest.mark.kafka


def replay(flow: Flow, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> tuple[int, list[Any]]:
    for name, value in flow.connection.environ().items():
        monkeypatch.setenv(name, value)
    capsys.readouterr()
    code = main(["replay"])
    return code, [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def test_replay_reports_nothing_then_what_a_harness_change_alters(
    kafka_flow: Flow,
    server: ScriptedOpenAIServer,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    cases = make_articles(8, seed=43)
    server.respond_with(responder(cases, PRIMARY, FALLBACK))
    ids = [c.article_id for c in cases]
    with kafka_flow.worker() as worker:
        worker.start()
        kafka_flow.publish_cases(cases)
        outcomes = kafka_flow.follow(ids, timeout_s=180)
    assert all(o.settled for o in outcomes.values())
    calls = len(server.calls)

    code, lines = replay(kafka_flow, monkeypatch, capsys)
    *articles, last = lines
    assert code == 0 and sorted(a["article_id"] for a in articles) == sorted(ids)
    assert last["summary"]["compared"] == len(ids) and last["summary"]["changed"] == 0

    monkeypatch.setattr(
        "article_runtime.agents.assembly.run_hygiene_harness", refusing_model_answers
    )
    code, lines = replay(kafka_flow, monkeypatch, capsys)
    *articles, last = lines
    by_id = {a["article_id"]: a for a in articles}
    assert code == 3
    for case in cases:
        one = by_id[case.article_id]
        if case.scenario == "deterministic":
            assert one["changes"] == []  # no model answer held: the same path as before
        else:
            assert one["replayed"]["outcome"] == "needs_model" or one["replayed"]["path"] == (
                "deterministic"
            )
            assert "path" in one["changes"]
    assert len(server.calls) == calls  # replay asked nobody


def refusing_model_answers(candidates: Any, proposal: Any, **kwargs: Any) -> Any:
    """A stricter harness: no model answer holds (each fails at its first step)."""
    from article_runtime.harness.pipeline import run_hygiene_harness

    return run_hygiene_harness(candidates, "not json", **kwargs)
