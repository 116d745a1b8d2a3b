"""The command line on the bundled samples: real pages, real subprocess-free entry point."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from article_runtime import contracts
from article_runtime.cli import main
from tests.conftest import SAMPLES

SAMPLE_FILES = sorted(p for p in SAMPLES.iterdir() if ".htm" in p.name)


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_candidates_output_matches_the_hygiene_input_schema(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run_cli(capsys, "candidates", str(SAMPLES / "lanacion.com.ar-jugada.html"))
    assert code == 0
    data = json.loads(out)
    assert contracts.first_violation(contracts.HYGIENE_INPUT, data) is None
    assert data["language"] == "es"
    assert data["tokenizer"] == "o200k_base"
    assert 0 < data["context_tokens"] < data["html_tokens"]
    assert {"title", "subtitle", "author"} <= set(data["metadata_candidates"])


def test_extract_many_files_one_line_each_and_bad_files_reported(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    empty = tmp_path / "empty.html"
    empty.write_bytes(b"")
    png = tmp_path / "image.html"
    png.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4)
    code, out, err = run_cli(capsys, "extract", str(SAMPLES), str(empty), str(png))
    lines = [json.loads(line) for line in out.splitlines()]
    assert code == 1
    assert len(lines) == len(SAMPLE_FILES) + 2
    good = [line for line in lines if "error" not in line]
    assert len(good) == len(SAMPLE_FILES)
    assert all(line["path"] == "deterministic" and line["markdown"].strip() for line in good)
    errors = {
        Path(line["source"]).name: line["error"]["reason"] for line in lines if "error" in line
    }
    assert errors == {"empty.html": "empty_html", "image.html": "not_html"}
    assert "empty_html" in err


def _sample_proposal(capsys: pytest.CaptureFixture[str], name: str) -> dict[str, object]:
    """A proposal as a model would send it: built from the IDs the candidates command shows."""
    _, out, _ = run_cli(capsys, "candidates", str(SAMPLES / name))
    data = json.loads(out)
    kept = [b["id"] for b in data["blocks"] if b["extractors"]]
    return {
        "title_candidate_id": data["metadata_candidates"]["title"][0]["id"],
        "subtitle_candidate_id": None,
        "author_candidate_id": None,
        "kept_block_ids": kept[1:],
        "kept_link_ids": [],
        "kept_image_ids": [],
        "repairs": [],
    }


def test_extract_with_a_valid_recorded_proposal_takes_the_primary_path(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    proposal = _sample_proposal(capsys, "madame.lefigaro.fr.dintestin.html")
    path = tmp_path / "proposal.json"
    path.write_text(json.dumps(proposal))
    code, out, _ = run_cli(
        capsys,
        "extract",
        str(SAMPLES / "madame.lefigaro.fr.dintestin.html"),
        "--proposal",
        str(path),
        "--format",
        "json",
    )
    article = json.loads(out)
    assert code == 0
    assert article["path"] == "primary"
    assert [(a["role"], a["outcome"], a["reason"]) for a in article["attempts"]] == [
        ("recorded", "ok", None)
    ]
    assert article["subtitle"] is None and article["author"] is None


def test_extract_with_an_invented_id_falls_back_to_deterministic(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    proposal = _sample_proposal(capsys, "madame.lefigaro.fr.dintestin.html")
    kept = proposal["kept_block_ids"]
    assert isinstance(kept, list)
    proposal["kept_block_ids"] = [*kept, "b99999"]
    path = tmp_path / "proposal.json"
    path.write_text(json.dumps(proposal))
    code, out, _ = run_cli(
        capsys,
        "extract",
        str(SAMPLES / "madame.lefigaro.fr.dintestin.html"),
        "--proposal",
        str(path),
    )
    article = json.loads(out)
    assert code == 0
    assert article["path"] == "deterministic"
    assert [(a["role"], a["outcome"], a["reason"]) for a in article["attempts"]] == [
        ("recorded", "invalid", "unknown_block_id"),
        ("deterministic", "ok", None),
    ]


def test_markdown_format_has_front_matter(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(
        capsys, "extract", str(SAMPLES / "nhk.or.jp.k100.html"), "--format", "markdown"
    )
    assert code == 0
    assert out.startswith("---\nsource: ")
    assert 'language: "ja"' in out
