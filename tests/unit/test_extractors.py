"""Extractor votes: the DOM heuristic and trafilatura matched back to blocks."""

from __future__ import annotations

from selectolax.lexbor import LexborHTMLParser

from article_runtime.candidates.extractors import (
    dom_selection,
    fold,
    trafilatura_selection,
    vote,
)
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
