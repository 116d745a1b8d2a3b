"""One bad input never stops the others (issue 9, section 4): ``examples/bad_inputs`` as a batch,
bad command-line values and hostile recorded proposals, through the real entry point."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from article_runtime.candidates import build_candidates
from article_runtime.cli import extract as extract_command
from article_runtime.cli import main
from tests.conftest import REPO, SAMPLES

BAD_INPUTS = REPO / "examples" / "bad_inputs"

ERRORS = {
    "gzip-truncated.html.gz": "corrupt_gzip",
    "gzip-corrupt.html.gz": "corrupt_gzip",
    "nesting-self-closing-divs.html": "html_too_deep",
    "nesting-ruby-text.html": "html_too_deep",
    "not-html.html": "not_html",
    "empty.html": "empty_html",
}


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[dict[str, Any]], str]:
    """Exit code, the JSON documents printed (one, or one per line), stderr."""
    code = main(list(argv))
    captured = capsys.readouterr()
    try:
        documents = [json.loads(captured.out)]
    except ValueError:
        documents = [json.loads(line) for line in captured.out.splitlines()]
    return code, documents, captured.err


def test_every_bad_input_gets_its_record_and_the_batch_goes_on(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, records, err = _run(capsys, "extract", str(BAD_INPUTS))
    by_name = {Path(r["source"]).name: r for r in records}
    files = {p.name for p in BAD_INPUTS.iterdir() if ".htm" in p.name}
    assert code == 1
    assert set(by_name) == files
    assert {name: r["error"]["reason"] for name, r in by_name.items() if "error" in r} == ERRORS
    articles = {name: r for name, r in by_name.items() if "error" not in r}
    assert all(r["title"] and r["markdown"].strip() for r in articles.values())
    assert "Traceback" not in err


def test_hostile_urls_leave_no_broken_link_or_source(capsys: pytest.CaptureFixture[str]) -> None:
    _, records, _ = _run(capsys, "extract", str(BAD_INPUTS), "--format", "jsonl")
    by_name = {Path(r["source"]).name: r for r in records}
    assert "](https://quay.example.org/theplan2025)" in by_name["href-newline-tab.html"]["markdown"]
    for name in ("href-bracketed-host.html", "href-nfkc-invalid-host.html"):
        assert "](" not in by_name[name]["markdown"]
        assert "the plan" in by_name[name]["markdown"]
    for name in ("canonical-bracketed-host.html", "og-url-bracketed-host.html"):
        assert by_name[name]["source_url"] is None
    assert by_name["author-url-bracketed-host.html"]["author"] is None
    assert by_name["date-offset-out-of-range.html"]["published_at"] is None


def test_an_unexpected_exception_is_one_inputs_internal_error(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def build(raw: bytes, **kwargs: Any) -> Any:
        if b"second basin" in raw:
            raise RecursionError("maximum recursion depth exceeded")
        return build_candidates(raw, **kwargs)

    monkeypatch.setattr(extract_command, "build_candidates", build)
    good = BAD_INPUTS / "good.html"
    other = SAMPLES / "lanacion.com.ar-jugada.html"
    code, records, err = _run(capsys, "extract", str(good), str(other))
    assert code == 1
    assert records[0]["error"] == {
        "reason": "internal_error",
        "detail": "RecursionError: maximum recursion depth exceeded",
    }
    assert records[1]["title"]
    assert "internal_error" in err and "Traceback" not in err


def test_an_unparseable_url_option_counts_as_unknown(capsys: pytest.CaptureFixture[str]) -> None:
    code, records, err = _run(
        capsys, "extract", str(BAD_INPUTS / "good.html"), "--url", "http://[quay.example.org/"
    )
    assert code == 0
    assert records[0]["source_url"] is None
    assert "--url" in err


def _proposal_for_good_page(capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    code, records, _ = _run(capsys, "candidates", str(BAD_INPUTS / "good.html"))
    assert code == 0
    data = records[0]
    return {
        "title_candidate_id": data["metadata_candidates"]["title"][0]["id"],
        "subtitle_candidate_id": None,
        "author_candidate_id": None,
        "kept_block_ids": [b["id"] for b in data["blocks"][1:]],
        "kept_link_ids": [],
        "kept_image_ids": [],
        "repairs": [],
    }


@pytest.mark.parametrize(
    "text",
    [
        "[" * 100_000 + "]" * 100_000,
        '{"a":' * 50_000 + "1" + "}" * 50_000,
    ],
    ids=["arrays", "objects"],
)
def test_a_deeply_nested_proposal_is_invalid_json(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, text: str
) -> None:
    path = tmp_path / "proposal.json"
    path.write_text(text)
    code, records, _ = _run(
        capsys, "extract", str(BAD_INPUTS / "good.html"), "--proposal", str(path)
    )
    assert code == 0
    assert [(a["role"], a["reason"]) for a in records[0]["attempts"]] == [
        ("recorded", "invalid_json"),
        ("deterministic", None),
    ]


def test_a_proposal_with_lone_surrogates_is_refused_and_output_still_prints(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    proposal = _proposal_for_good_page(capsys)
    proposal["repairs"] = [
        {
            "target_id": proposal["kept_block_ids"][0],
            "original": "quay",
            "replacement": "qu\ud800ay",
            "category": "obvious_typo",
            "justification": "\udfff",
        }
    ]
    path = tmp_path / "proposal.json"
    path.write_text(json.dumps(proposal))  # ensure_ascii: the escapes \\ud800 and \\udfff
    code, records, _ = _run(
        capsys, "extract", str(BAD_INPUTS / "good.html"), "--proposal", str(path)
    )
    assert code == 0
    assert records[0]["attempts"][0]["reason"] == "invalid_json"
    assert records[0]["path"] == "deterministic"


def test_a_file_name_that_is_no_text_still_prints(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    odd = tmp_path / "caf\udce9.html"  # a Latin-1 file name on a UTF-8 system
    odd.write_bytes((BAD_INPUTS / "good.html").read_bytes())
    code, records, _ = _run(capsys, "extract", str(odd))
    assert code == 0
    assert records[0]["source"].endswith("caf\udce9.html")
