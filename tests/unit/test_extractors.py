"""Extractor votes: the DOM heuristic and trafilatura matched back to blocks."""

from __future__ import annotations

from typing import Any

import pytest
import trafilatura
from selectolax.lexbor import LexborHTMLParser

from article_runtime.candidates.extractors import (
    dom_selection,
    fold,
    trafilatura_selection,
    trafilatura_text,
    vote,
)
from article_runtime.candidates.prune import prune, prune_unvoted
from article_runtime.candidates.segment import Segmentation, segment

PROSE = (
    "The council approved the new budget on Tuesday, after a long debate about schools, "
    "roads and the water supply; the vote was close."
)

PAGE = f"""<html><body>
<div class="menu"><a href="/a">Home</a> <a href="/b">World</a> <a href="/c">Sports</a></div>
<div class="story">
<p>{PROSE} First.</p>
<p>{PROSE} Second.</p>
<p>{PROSE} Third.</p>
</div>
<div class="rail"><p><a href="/x">A link-only teaser that leads elsewhere on the site</a></p></div>
</body></html>"""


def _blocks() -> Segmentation:
    return segment(LexborHTMLParser(PAGE), "https://example.org/")


def test_fold_is_nfc_casefold_and_space() -> None:
    assert fold("  Stra\u0301sse\n  GROSS ") == fold("strásse gross")
    assert fold("Straße") == "strasse"


def test_dom_picks_the_prose_container_only() -> None:
    s = _blocks()
    chosen = dom_selection(s.blocks, s.container_parent)
    assert sorted(s.blocks[i].text[-7:] for i in chosen) == [" First.", " Third.", "Second."]


def test_trafilatura_lines_match_blocks_exactly_or_by_containment() -> None:
    s = _blocks()
    output = f"{PROSE} First.\n{PROSE.upper()} SECOND.\nHome"  # case differs; a short line
    chosen = trafilatura_selection(s.blocks, output)
    texts = {s.blocks[i].text for i in chosen}
    assert texts == {f"{PROSE} First.", f"{PROSE} Second."}


def test_short_blocks_need_a_whole_line() -> None:
    s = segment(LexborHTMLParser("<p>Home</p><p>Share</p>"), None)
    chosen = trafilatura_selection(s.blocks, "Share this: Home page of everything")
    assert chosen == set()


def test_vote_fills_extractors() -> None:
    s = _blocks()
    vote(s.blocks, s.container_parent, PAGE)
    by_text = {b.text: b.extractors for b in s.blocks}
    assert by_text[f"{PROSE} First."] == ["dom", "trafilatura"]
    assert by_text["A link-only teaser that leads elsewhere on the site"] == []


def test_short_fast_output_is_retried_in_full_mode(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[bool] = []

    def fake(html: str, **options: Any) -> str | None:
        calls.append(options["fast"])
        return "short" if options["fast"] else "the full mode found the article"

    monkeypatch.setattr(trafilatura, "extract", fake)
    assert trafilatura_text("<p>x</p>") == "the full mode found the article"
    assert calls == [True, False]
    calls.clear()
    monkeypatch.setattr(trafilatura, "extract", lambda html, **o: "z" * 1000)
    assert trafilatura_text("<p>x</p>") == "z" * 1000


def test_prune_drops_short_link_paragraphs_but_not_linked_headings() -> None:
    page = f"""<body><div><a href="/a">Subscribe to our newsletter</a></div>
    <h3><a href="/b">5. A linked listicle heading</a></h3>
    <p>{PROSE} <a href="/c">more</a></p></body>"""
    blocks = prune(segment(LexborHTMLParser(page), "https://example.org/").blocks)
    assert [b.text for b in blocks] == ["5. A linked listicle heading", f"{PROSE} more"]


def test_prune_unvoted_drops_chrome_outside_the_voted_span_only() -> None:
    page = f"""<body><div><a href="/">Home</a> <a href="/w">World news today</a></div>
    <p>Menu</p><p>{PROSE} One.</p><p>Short.</p><p>{PROSE} Two.</p>
    <p>A footer line that is long enough to be prose, kept.</p><p>Top</p></body>"""
    blocks = segment(LexborHTMLParser(page), "https://example.org/").blocks
    for block in blocks:
        block.extractors = ["dom"] if block.text.startswith(PROSE) else []
    kept = [b.text for b in prune_unvoted(blocks)]
    assert kept == [
        f"{PROSE} One.",
        "Short.",
        f"{PROSE} Two.",
        "A footer line that is long enough to be prose, kept.",
    ]
    for block in blocks:
        block.extractors = []
    assert len(prune_unvoted(blocks)) == len(blocks)  # no vote, no evidence: nothing dropped
