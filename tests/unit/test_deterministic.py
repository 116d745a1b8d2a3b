"""The deterministic path keeps the article and drops the chrome around it."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from article_runtime.candidates import build_candidates
from article_runtime.deterministic import deterministic_proposal, kept_blocks
from article_runtime.model.candidates import Block, BlockType, LinkCandidate

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
        # the h1 repeats the chosen title, which the article shows as its title field
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


def _block(
    n: int,
    text: str,
    extractors: list[str],
    kind: BlockType = "paragraph",
    container: str = "c1",
) -> Block:
    return Block(id=f"b{n}", type=kind, text=text, container_id=container, extractors=extractors)


def _link(n: int, block: Block, href: str = "https://news.example.org/other") -> LinkCandidate:
    return LinkCandidate(id=f"l{n}", text=block.text, href=href, block_id=block.id, start=0)


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


def test_dom_only_captions_and_outside_list_items_are_dropped() -> None:
    prose = "y" * 200
    blocks = [
        _block(1, "a trafilatura paragraph opening the story", ["trafilatura", "dom"]),
        _block(2, "A caption only the DOM heuristic chose, long enough", ["dom"], "figure_caption"),
        _block(3, "the last paragraph both extractors chose", ["trafilatura", "dom"]),
        _block(4, prose, ["dom"], "list_item", "c9"),  # a comment after the span
        _block(5, prose, ["dom"], "paragraph", "c9"),
    ]
    assert [b.id for b in kept_blocks(blocks)] == ["b1", "b3", "b5"]


def test_link_dense_trafilatura_only_blocks_are_teasers() -> None:
    body = _block(1, "the story itself, chosen by both extractors", ["trafilatura", "dom"])
    teaser = _block(2, "Read this other story", ["trafilatura"])  # paragraph in the body
    item = _block(3, "A linked step of a listicle", ["trafilatura"], "heading")
    related = _block(4, "A related story elsewhere", ["trafilatura"], "heading", "c2")
    plain = _block(5, "A heading without links", ["trafilatura"], "heading", "c2")
    links = [_link(1, teaser), _link(2, item), _link(3, related)]
    kept = kept_blocks([body, teaser, item, related, plain], links)
    assert [b.id for b in kept] == ["b1", "b3", "b5"]


def test_title_and_subtitle_headings_are_not_repeated_in_the_body() -> None:
    blocks = [
        _block(1, "Flood  closes BRIDGE", ["trafilatura"], "heading"),
        _block(2, "The standfirst of the story.", ["trafilatura"], "heading"),
        _block(3, "The first paragraph of the story.", ["trafilatura", "dom"]),
    ]
    title, subtitle = "Flood closes bridge", "The standfirst of the story."
    kept = kept_blocks(blocks, title=title, subtitle=subtitle)
    assert [b.id for b in kept] == ["b3"]
    # a standfirst laid out as a paragraph is the lead of the body
    lead = _block(2, "The standfirst of the story.", ["trafilatura"])
    kept = kept_blocks([blocks[0], lead, blocks[2]], title=title, subtitle=subtitle)
    assert [b.id for b in kept] == ["b2", "b3"]


def test_a_standfirst_no_extractor_chose_is_kept_by_its_description() -> None:
    """A paragraph a subtitle candidate gives whole or opens (a description cut short)."""
    dek = "Officials closed the bridge after the river rose two metres overnight."
    body = [
        _block(3, "The first paragraph of the story, long enough.", ["trafilatura", "dom"]),
        _block(4, "The last paragraph of the story, long enough too.", ["trafilatura", "dom"]),
    ]
    lead = _block(2, dek, [])
    cut = "Officials closed the bridge after the river rose…"
    kept = kept_blocks([lead, *body], standfirsts=["Rain", cut], subtitle="Rain")
    assert [b.id for b in kept] == ["b2", "b3", "b4"]
    # above the story it is left to the subtitle field when it is the chosen subtitle
    kept = kept_blocks([lead, *body], standfirsts=[dek], subtitle=dek)
    assert [b.id for b in kept] == ["b3", "b4"]
    # inside the story it stays whatever the subtitle
    kept = kept_blocks([body[0], lead, body[1]], standfirsts=[dek], subtitle=dek)
    assert [b.id for b in kept] == ["b3", "b2", "b4"]
    # a paragraph only sharing the description's first words is not its standfirst
    other = _block(2, "Officials closed the school.", [])
    assert [b.id for b in kept_blocks([other, *body], standfirsts=[dek])] == ["b3", "b4"]
    # nor is one after the last chosen block (a teaser of the same story)
    kept = kept_blocks([*body, _block(5, dek, [])], standfirsts=[dek])
    assert [b.id for b in kept] == ["b3", "b4"]


def test_quotes_linking_only_to_other_sites_are_embedded_posts() -> None:
    body = _block(1, "The minister answered on social media.", ["trafilatura", "dom"])
    post = _block(
        2, "We will not vote for this bill #budget", ["trafilatura", "dom"], "quote", "c2"
    )
    byline = _block(3, "Minister (@minister) May 4", ["trafilatura", "dom"], "quote", "c2")
    own = _block(4, "A quoted passage of the report", ["trafilatura", "dom"], "quote", "c3")
    links = [
        _link(1, post, "https://social.example.com/hashtag/budget"),
        _link(2, byline, "https://social.example.com/minister/status/1"),
        _link(3, own, "https://www.news.example.org/report.pdf"),
    ]
    kept = kept_blocks([body, post, byline, own], links, site="news.example.org")
    assert [b.id for b in kept] == ["b1", "b4"]
    assert [b.id for b in kept_blocks([body, post, byline, own], links)] == [
        "b1",
        "b2",
        "b3",
        "b4",
    ]


def test_repeats_stay_in_their_container_and_layout_copies_go() -> None:
    """A refrain or a repeated step inside the article's container is kept each time; the
    same text again in another container (a responsive copy, a sticky headline) is not."""
    step = "Stir the sauce for two minutes, then taste it."
    blocks = [
        _block(1, "Heat the pan and add the oil.", ["trafilatura", "dom"], "list_item"),
        _block(2, step, ["trafilatura", "dom"], "list_item"),
        _block(3, "Add the tomatoes and the salt.", ["trafilatura", "dom"], "list_item"),
        _block(4, step, ["trafilatura", "dom"], "list_item"),
        _block(5, step, ["trafilatura", "dom"], "list_item", "c2"),
    ]
    assert [b.id for b in kept_blocks(blocks)] == ["b1", "b2", "b3", "b4"]


def test_a_quotation_citing_another_site_inside_its_text_stays() -> None:
    """A pull quote linking its source in the middle of its text is no embedded post."""
    body = _block(1, "The report was published on Monday.", ["trafilatura", "dom"])
    quote = _block(
        2,
        "Prices rose by 4% according to the survey, its authors said.",
        ["trafilatura", "dom"],
        "quote",
        "c2",
    )
    cited = LinkCandidate(
        id="l1",
        text="the survey",
        href="https://stats.example.com/survey",
        block_id="b2",
        start=quote.text.index("the survey"),
    )
    kept = kept_blocks([body, quote], [cited], site="news.example.org")
    assert [b.id for b in kept] == ["b1", "b2"]


_WORDS = st.sampled_from(["river", "bridge", "Brücke", "fleuve", "川", "закрыт", "—", "…", "."])
_TEXTS = st.lists(_WORDS, min_size=1, max_size=12).map(" ".join)
_BLOCKS = st.lists(
    st.tuples(
        _TEXTS,
        st.sampled_from([[], ["dom"], ["trafilatura"], ["dom", "trafilatura"]]),
        st.sampled_from(["paragraph", "heading", "list_item"]),
    ),
    max_size=10,
)


@given(_BLOCKS, st.lists(_TEXTS, max_size=3), st.none() | _TEXTS)
def test_standfirsts_only_add_unvoted_paragraphs_before_the_last_voted_block(
    specs: list[tuple[str, list[str], BlockType]], decks: list[str], subtitle: str | None
) -> None:
    blocks = [_block(n, text, voters, kind) for n, (text, voters, kind) in enumerate(specs, 1)]
    plain = {b.id for b in kept_blocks(blocks, subtitle=subtitle)}
    with_decks = {b.id for b in kept_blocks(blocks, subtitle=subtitle, standfirsts=decks)}
    assert plain <= with_decks
    voted = [n for n, b in enumerate(blocks) if b.extractors]
    for n, block in enumerate(blocks):
        if block.id in with_decks - plain:
            assert block.type == "paragraph" and not block.extractors
            assert voted and n < voted[-1]
            assert any(block.text.casefold().startswith(d.casefold().rstrip(" .…—")) for d in decks)
