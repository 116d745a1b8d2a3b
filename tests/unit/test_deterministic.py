"""The deterministic path keeps the article and drops the chrome around it."""

from __future__ import annotations

from hypothesis import event, given
from hypothesis import strategies as st

from article_runtime.candidates import build_candidates
from article_runtime.deterministic import deterministic_proposal, kept_blocks
from article_runtime.model.candidates import Block, BlockType, ImageCandidate, LinkCandidate

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


def test_embedded_posts_the_extractors_chose_stay() -> None:
    """A tweet the article embeds is a quotation it makes (spec 6.3), permalink and all."""
    body = _block(1, "The minister answered on social media.", ["trafilatura", "dom"])
    post = _block(
        2, "We will not vote for this bill #budget", ["trafilatura", "dom"], "quote", "c2"
    )
    byline = _block(3, "Minister (@minister) May 4", ["trafilatura", "dom"], "quote", "c2")
    links = [
        _link(1, post, "https://social.example.com/hashtag/budget"),
        _link(2, byline, "https://social.example.com/minister/status/1"),
    ]
    assert [b.id for b in kept_blocks([body, post, byline], links)] == ["b1", "b2", "b3"]


_LEDE = (
    "The river rose two metres overnight and the city closed the old bridge before dawn, "
    "leaving thousands of commuters to find another way across the valley this morning."
)


def test_a_lede_between_the_headline_and_the_story_is_kept() -> None:
    """A prose paragraph no extractor chose, under the headline and above the body."""
    title = "Flood closes the old bridge"
    head = [
        _block(1, "A site-wide banner nobody reads, long enough to be prose " * 3, [], "paragraph"),
        _block(2, title, [], "heading", "c2"),
        _block(3, _LEDE, [], "paragraph", "c3"),
    ]
    body = [
        _block(
            4,
            "The first paragraph of the story, long enough.",
            ["trafilatura", "dom"],
            "paragraph",
            "c4",
        ),
        _block(
            5,
            "The last paragraph of the story, long enough too.",
            ["trafilatura", "dom"],
            "paragraph",
            "c4",
        ),
    ]
    assert [b.id for b in kept_blocks([*head, *body], title=title)] == ["b3", "b4", "b5"]
    # no headline on the page: nothing tells a lede from the page's header
    assert [b.id for b in kept_blocks([*head, *body], title="Another title")] == ["b4", "b5"]
    # the chosen subtitle is the article's subtitle field, not repeated in the body
    kept = kept_blocks([*head, *body], title=title, subtitle=_LEDE[:80] + "…")
    assert [b.id for b in kept] == ["b4", "b5"]


def test_a_paragraph_under_the_headline_that_is_no_lede_is_left_out() -> None:
    title = "Flood closes the old bridge"
    headline = _block(1, title, [], "heading")
    body = _block(
        9,
        "The first paragraph of the story, long enough.",
        ["trafilatura", "dom"],
        "paragraph",
        "c4",
    )
    image = ImageCandidate(id="i1", src="https://news.example.org/flood.jpg", after_block_id="b1")
    short = _block(2, "By our reporter, in the valley.", [])
    teaser = _block(3, _LEDE, [])
    caption = _block(4, _LEDE, [], "figure_caption")
    item = _block(5, _LEDE, [], "list_item")
    for block in (short, teaser, caption, item):
        links = [_link(1, teaser)] if block is teaser else []
        assert [b.id for b in kept_blocks([headline, block, body], links, title=title)] == ["b9"]
    # right after an image, a paragraph is the image's caption or credit
    lede = _block(2, _LEDE, [])
    kept = kept_blocks([headline, lede, body], title=title, images=[image])
    assert [b.id for b in kept] == ["b9"]
    # below the story's first chosen block, an unchosen paragraph stays out as before
    assert [b.id for b in kept_blocks([headline, body, lede], title=title)] == ["b9"]


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


_PROSE = st.sampled_from(["", _LEDE, _LEDE + " " + _LEDE]).flatmap(
    lambda long: _TEXTS.map(lambda short: f"{short} {long}".strip())
)


_KINDS: st.SearchStrategy[BlockType] = st.sampled_from(
    ["paragraph", "paragraph", "heading", "list_item", "figure_caption"]
)
_VOTERS = st.sampled_from([[], ["dom"], ["trafilatura"], ["dom", "trafilatura"]])
_SPEC = st.tuples(st.one_of(_TEXTS, _PROSE), _VOTERS, _KINDS, st.booleans())
_NOBODY: st.SearchStrategy[list[str]] = st.just([])
_UNVOTED = st.tuples(st.one_of(_TEXTS, _PROSE), _NOBODY, _KINDS, st.booleans())


@given(
    # a page's header (nothing chosen) then its story (anything), as pages are laid out
    st.tuples(st.lists(_UNVOTED, max_size=6), st.lists(_SPEC, max_size=6)).map(
        lambda parts: parts[0] + parts[1]
    ),
    st.integers(0, 11),
    st.none() | _TEXTS,
)
def test_ledes_are_only_long_unvoted_paragraphs_under_a_headline_above_the_story(
    specs: list[tuple[str, list[str], BlockType, bool]], pick: int, subtitle: str | None
) -> None:
    """Whatever the title adds to the selection is a lede, as the rule's words define one."""
    blocks = [_block(n, text, voters, kind) for n, (text, voters, kind, _) in enumerate(specs, 1)]
    images = [
        ImageCandidate(id=f"i{n}", src="https://news.example.org/i.jpg", after_block_id=f"b{n}")
        for n, (*_, pictured) in enumerate(specs, 1)
        if pictured
    ]
    title = blocks[pick % len(blocks)].text if blocks else "Flood closes the old bridge"
    untitled = {b.id for b in kept_blocks(blocks, subtitle=subtitle, images=images)}
    titled = kept_blocks(blocks, title=title, subtitle=subtitle, images=images)
    same = " ".join(title.casefold().split())
    voted = next((n for n, b in enumerate(blocks) if b.extractors), len(blocks))
    for block in titled:
        if block.id in untitled:
            continue
        event("a lede kept")
        n = blocks.index(block)
        assert block.type == "paragraph" and not block.extractors and len(block.text) >= 150
        assert n < voted
        assert any(" ".join(b.text.casefold().split()) == same for b in blocks[:n])
        assert f"b{n}" not in {image.after_block_id for image in images}  # b{n} precedes it
        dek = " ".join((subtitle or "").casefold().split()).rstrip(" .…—")
        if dek:  # a subtitle of punctuation alone opens nothing
            assert not " ".join(block.text.casefold().split()).startswith(dek)
