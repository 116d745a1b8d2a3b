"""The deterministic path keeps the article and drops the chrome around it."""

from __future__ import annotations

from article_runtime.candidates import build_candidates
from article_runtime.deterministic import deterministic_proposal, kept_blocks
from article_runtime.model.candidates import Block

P1 = (
    "The river rose by two metres overnight, flooding the lower town and closing the bridge, "
    "officials said on Monday."
)
P2 = (
    "Rescue teams moved more than three hundred residents to the school gym, where volunteers "
    "served hot meals until dawn."
)
P3 = (
    "Forecasters expect the water to fall slowly over the week, though more rain is possible, "
    "and the bridge will stay shut."
)

PAGE = f"""<!doctype html><html lang="en"><head><title>Flood closes bridge</title>
<meta property="og:title" content="Flood closes bridge">
<meta name="author" content="Ana Lima"></head><body>
<header><a href="/">Daily Example</a><nav><ul><li><a href="/w">World</a></li>
<li><a href="/s">Sport</a></li><li><a href="/c">Culture</a></li></ul></nav></header>
<main><article>
<h1>Flood closes bridge</h1>
<p>{P1} <a href="/maps/river">See the map</a>.</p>
<figure><img src="/img/flood.jpg" alt="Water"><figcaption>Water in the square</figcaption></figure>
<h2>Evacuation</h2>
<p>{P2}</p>
<div class="ad"><a href="https://ads.example.net/c">Buy shoes now</a></div>
<p>{P3}</p>
</article></main>
<aside><h3>Most read</h3><ul><li><a href="/1">Other story one</a></li>
<li><a href="/2">Other story two</a></li><li><a href="/3">Other story three</a></li></ul></aside>
<footer><p>© Daily Example. All rights reserved.</p></footer>
</body></html>"""


def test_keeps_exactly_the_article_blocks() -> None:
    cs = build_candidates(PAGE.encode(), url="https://news.example.org/2024/flood")
    proposal = deterministic_proposal(cs)
    text = {b.id: b.text for b in cs.blocks}
    kept = [text[i] for i in proposal.kept_block_ids]
    assert kept == [
        "Flood closes bridge",
        f"{P1} See the map.",
        # the caption is short and only our DOM heuristic chose it: dropped by design
        "Evacuation",
        P2,
        P3,
    ]
    links = {k.id: k.href for k in cs.links}
    assert [links[i] for i in proposal.kept_link_ids] == ["https://news.example.org/maps/river"]
    images = {i.id: i.src for i in cs.images}
    assert [images[i] for i in proposal.kept_image_ids] == [
        "https://news.example.org/img/flood.jpg"
    ]
    assert proposal.title_candidate_id == cs.metadata_candidates.title[0].id
    assert proposal.repairs == []


def _block(n: int, text: str, extractors: list[str]) -> Block:
    return Block(id=f"b{n}", type="paragraph", text=text, container_id="c1", extractors=extractors)


def test_dom_only_blocks_need_length_and_position() -> None:
    long_prose = "x" * 200
    blocks = [
        _block(1, "short dom-only before the span", ["dom"]),  # 30 chars, outside: dropped
        _block(2, "first trafilatura block", ["trafilatura"]),
        _block(3, "a dom-only sentence inside the span", ["dom"]),
        _block(4, "tiny", ["dom"]),
        _block(5, "last one", ["trafilatura", "dom"]),
        _block(6, long_prose, ["dom"]),
        _block(7, "nobody chose this block at all, long as it is", []),
    ]
    assert [b.id for b in kept_blocks(blocks)] == ["b2", "b3", "b5", "b6"]
