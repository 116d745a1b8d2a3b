"""The command line against the scripted OpenAI server: extract then enrich, as a person would."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from article_runtime.cli import main
from tests.conftest import SAMPLES
from tests.factories import proposal
from tests.llm_support import FALLBACK, FALLBACK_KEY, PRIMARY, PRIMARY_KEY, providers_yaml
from tests.support.openai_server import Reply, Status, running_server

SAMPLE = SAMPLES / "lanacion.com.ar-jugada.html"


def test_extract_and_enrich_from_the_command_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("TEST_PRIMARY_KEY", PRIMARY_KEY)
    monkeypatch.setenv("TEST_FALLBACK_KEY", FALLBACK_KEY)
    monkeypatch.setenv("ARTICLE_RUNTIME_TRACING", "off")
    assert main(["candidates", str(SAMPLE)]) == 0
    candidates = json.loads(capsys.readouterr().out)
    kept = [b["id"] for b in candidates["blocks"] if "trafilatura" in b["extractors"]]
    answer = proposal(
        title_candidate_id=candidates["metadata_candidates"]["title"][0]["id"],
        subtitle_candidate_id=None,
        author_candidate_id=None,
        kept_block_ids=kept,
        kept_link_ids=[],
        kept_image_ids=[],
    )
    tags = {
        "sentiment": "negative",
        "tags": [
            {"tag": "oficialismo", "evidence_block_ids": ["p1", "p2", "p3"]},
            {"tag": "Cámara de Diputados", "evidence_block_ids": ["p1", "p2", "p3"]},
            {"tag": "boleta única", "evidence_block_ids": ["p1", "p2", "p3"]},
        ],
    }
    with running_server() as server:
        server.script(PRIMARY, Status(503), Reply({"title_candidate_id": "t1"}), Reply(tags))
        server.script(FALLBACK, Reply(answer))
        providers = tmp_path / "providers.yaml"
        providers.write_text(yaml.safe_dump(providers_yaml(server.base_url)))

        code = main(["extract", str(SAMPLE), "--providers", str(providers), "--format", "json"])
        out = capsys.readouterr().out
        assert code == 0
        article = json.loads(out)
        assert article["path"] == "fallback"
        assert [(a["role"], a["outcome"]) for a in article["attempts"]] == [
            ("runtime_primary", "server_error"),
            ("runtime_primary", "invalid"),
            ("runtime_fallback", "ok"),
        ]
        assert article["usage"]["cost_usd"] > 0
        saved = tmp_path / "article.json"
        saved.write_text(out)

        code = main(
            [
                "enrich",
                str(saved),
                "--qid",
                "Q1",
                "--name",
                "Frente de Todos",
                "--providers",
                str(providers),
            ]
        )
        enriched = json.loads(capsys.readouterr().out)
        assert code == 0, enriched
        assert (enriched["path"], enriched["sentiment"]) == ("primary", "negative")
        assert enriched["article_hash"] == article["hashes"]["markdown"]
        assert server.pending() == {} and server.unscripted == []
