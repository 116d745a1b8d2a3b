"""Extractor votes: the DOM heuristic and trafilatura matched back to blocks."""

from __future__ import annotations

from typing import Any

import pytest
import trafilatura
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from selectolax.lexbor import LexborHTMLParser

from article_runtime.candidates import build_candidates
from article_runtime.candidates.extractors import (
    MIN_FAST_CHARS,
    TRAFILATURA_MAX_ELEMENTS,
    TRAFILATURA_MAX_WIDTH,
    dom_selection,
    element_bound,
    fold,
    output_keys,
    trafilatura_input,
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


def _module(*paragraphs: str) -> str:
    inner = "".join(f"<p>{p}</p>" for p in paragraphs)
    return (
        f'<div class="module"><div class="text"><div class="text-inner">{inner}</div></div></div>'
    )


def test_dom_finds_an_article_split_into_modules_each_an_only_child() -> None:
    """Readability's only-child step: runs of paragraphs in wrappers of their own, between
    images, are siblings a level or two above the best run, and are all the article."""
    picture = '<div class="module"><figure><img src="/a.jpg"></figure></div>'
    runs = [
        [f"{PROSE} {PROSE} Run {r}, paragraph {n}." for n in range(4 + r % 2)] for r in range(3)
    ]
    page = (
        '<html><body><div class="menu"><a href="/a">Home</a> <a href="/b">World</a></div>'
        f'<div class="story">{picture.join(_module(*run) for run in runs)}</div>'
        '<div class="rail"><p><a href="/x">A link-only teaser that leads elsewhere</a></p></div>'
        "</body></html>"
    )
    s = segment(LexborHTMLParser(page), "https://example.org/")
    chosen = {s.blocks[i].text for i in dom_selection(s.blocks, s.container_parent)}
    assert chosen == {p for run in runs for p in run}


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


def test_a_data_table_trafilatura_wrote_row_by_row_is_its_choice() -> None:
    """trafilatura writes tables as ``| cell | cell |`` lines, never as the cells run
    together: a table block is matched by its rows (most of them), whatever its cells say."""
    rows = [["Modell", "Preis"], ["Jané Koos i-Size", "200 Euro"], ["Kinderwagen", ""]]
    cells = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    s = segment(LexborHTMLParser(f"<p>{PROSE}</p><table>{cells}</table>"), None)
    table = next(b for b in s.blocks if b.type == "table")
    written = ["| " + " | ".join(row) + " | " for row in rows]
    output = f"{PROSE}\n" + "\n".join([written[0], "|---|---|", *written[1:]])
    assert table.index in trafilatura_selection(s.blocks, output)
    one_row = f"{PROSE}\n{written[1]}"  # one row of three: another table's row, or a quote
    assert table.index not in trafilatura_selection(s.blocks, one_row)


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


def test_output_short_in_characters_but_not_in_words_is_not_retried(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Japanese says as much in fewer characters than English: the NHK sample's whole
    article is 372 characters, 215 ICU words (it ran trafilatura twice). English prose of
    fewer characters than ``MIN_FAST_CHARS`` is retried still."""
    japanese = "政府は火曜日に新しい予算を承認した。学校や道路の予算が増える。" * 13
    english = (PROSE + " ") * 7
    calls: list[bool] = []

    def fake(html: str, **options: Any) -> str | None:
        calls.append(options["fast"])
        return html if options["fast"] else "full"

    monkeypatch.setattr(trafilatura, "extract", fake)
    assert len(japanese) < MIN_FAST_CHARS and len(english) < MIN_FAST_CHARS
    assert trafilatura_text(japanese) == japanese
    assert calls == [True]
    calls.clear()
    assert trafilatura_text(english) == "full"
    assert calls == [True, False]


def test_full_mode_reads_its_own_input_and_only_when_needed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    read: list[tuple[str, bool]] = []

    def fake(html: str, **options: Any) -> str | None:
        read.append((html, options["fast"]))
        return "short" if html == "fast input" else "z" * 1000

    monkeypatch.setattr(trafilatura, "extract", fake)
    assert trafilatura_text("fast input", lambda: "full input") == "z" * 1000
    assert read == [("fast input", True), ("full input", False)]
    read.clear()
    assert trafilatura_text("fast input", lambda: None) == "short"  # too big for the full mode
    assert read == [("fast input", True)]

    def unused() -> str:
        raise AssertionError("the fast output was long enough")

    read.clear()
    assert trafilatura_text("long", unused) == "z" * 1000
    assert read == [("long", True)]


def test_trafilatura_input_leaves_out_what_trafilatura_deletes_unread() -> None:
    page = (
        '<html><head><meta name="a" content="b"><link rel="x" href="/y"><style>p {}</style>'
        '<script>var x = "<p>code</p>";</script>'
        '<script type="application/ld+json">{"articleBody": "body"}</script></head>'
        "<body><nav>Menu</nav><aside>Rail</aside><p>Text<svg><title>Icon</title></svg></p>"
        "<footer>Foot</footer></body></html>"
    )
    fast = trafilatura_input(LexborHTMLParser(page))
    assert fast == (
        '<html><head><script type="application/ld+json">{"articleBody": "body"}</script>'
        "</head><body><p>Text</p></body></html>"
    )
    full = trafilatura_input(LexborHTMLParser(page), fast=False)
    assert full == (
        '<html><head><script type="application/ld+json">{"articleBody": "body"}</script>'
        "</head><body><nav>Menu</nav><aside>Rail</aside>"
        "<p>Text<svg><title>Icon</title></svg></p><footer>Foot</footer></body></html>"
    )


def test_trafilatura_input_refuses_trees_too_big_for_trafilatura() -> None:
    wide = "<p>" + "<b>x</b>" * TRAFILATURA_MAX_WIDTH + "</p>"
    assert trafilatura_input(LexborHTMLParser(wide)) is not None
    assert trafilatura_input(LexborHTMLParser(wide + "<i>y</i>")) is not None  # other parent
    assert trafilatura_input(LexborHTMLParser(wide.replace("</p>", "<b>x</b></p>"))) is None
    group = "<div>" + "<p>x</p>" * 3_999 + "</div>"  # 4 000 elements
    groups = TRAFILATURA_MAX_ELEMENTS // 4_000
    assert trafilatura_input(LexborHTMLParser(group * (groups - 1))) is not None
    assert trafilatura_input(LexborHTMLParser(group * groups)) is None  # and html, head, body
    # what trafilatura would delete unread does not count
    hidden = "<nav>" + "<a>x</a>" * (TRAFILATURA_MAX_WIDTH + 1) + "</nav><p>y</p>"
    assert trafilatura_input(LexborHTMLParser(hidden)) is not None
    assert trafilatura_input(LexborHTMLParser(hidden), fast=False) is None


def test_an_article_inside_an_aside_is_still_found_by_the_full_mode() -> None:
    """Regression: a page held its whole body in ``<aside class=announcement-banner>``. The
    fast mode deletes every aside and finds nothing; the full mode's readability found the
    article, until its input lost the asides too (the vote then had the DOM alone)."""
    paragraphs = "".join(f"<p>{PROSE} Part {n}.</p>" for n in range(6))
    page = (
        "<html><head><title>Budget</title></head><body><aside class=announcement-banner>"
        f"<main><article><h1>The budget</h1>{paragraphs}</article></main></aside></body></html>"
    )
    candidates = build_candidates(page, url="https://example.org/budget")
    prose = [b for b in candidates.blocks if b.text.startswith(PROSE)]
    assert len(prose) == 6
    assert all("trafilatura" in b.extractors for b in prose)


# Markup trafilatura reads, and markup it deletes unread (``_UNREAD``), mixed at random.
_SOUP = st.lists(
    st.sampled_from(
        [
            "<p>",
            "</p>",
            "<div>",
            "</div>",
            "<h2>",
            "</h2>",
            "<li>",
            "<b>",
            "</b>",
            "<table><tr><td>",
            "</table>",
            "<article>",
            f"{PROSE} ",
            "Short words. ",
            "<script>var s = '<p>code</p>';</script>",
            '<script type="application/ld+json">{"articleBody": "From JSON-LD"}</script>',
            "<style>p { color: red }</style>",
            "<svg><title>Icon text</title><text>Label</text></svg>",
            '<meta itemprop="name" content="m">',
            '<link rel="x" href="/y">',
        ]
    ),
    max_size=40,
).map("".join)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_SOUP, st.booleans())
@example(f"<p>{PROSE}<svg><text>Label</text></svg></p>" * 3, True)
@example("<svg><title>Icon text</title><text>Label</text></svg>", False)  # readability reads it
@example('<script type="application/ld+json">{"articleBody": "From JSON-LD"}</script>', False)
@example(f'{PROSE}<meta itemprop="name" content="m">{PROSE}', True)  # a line ends there
def test_what_is_left_out_changes_no_trafilatura_output(soup: str, fast: bool) -> None:
    """Each mode's text from its ``trafilatura_input`` is its text from the whole tree,
    serialized (the fast mode's asides, footers and navs aside: measured, see the module)."""
    page = f"<html><head><title>t</title></head><body>{soup}</body></html>"
    whole = LexborHTMLParser(page).html or ""
    reduced = trafilatura_input(LexborHTMLParser(page), fast=fast)
    assert reduced is not None
    options: dict[str, Any] = {"include_comments": False, "include_tables": True}
    assert trafilatura.extract(reduced, fast=fast, **options) == trafilatura.extract(
        whole, fast=fast, **options
    )


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


_MARKUP = st.lists(
    st.one_of(
        _SOUP,
        st.sampled_from(
            [
                "<!-- a < b </p> -->",
                '<a title="x < y </b>" href="/z">',
                "</a>",
                "<template><p>t</p></template>",
                "<textarea></div> < </textarea>",
                "<math><mi>x</mi></math>",
                "<br>",
                "<img src=a>",
                "<table><td>",
                "</td>",
                "<",
                "</",
                "<b<i>",
                "<p/>",
            ]
        ),
        st.text(max_size=5),
    ),
    max_size=30,
).map("".join)


@settings(max_examples=300, deadline=None)
@given(_MARKUP)
@example('<p title="</p></p></p>">x</p>')
def test_element_bound_is_never_below_lexbors_element_count(markup: str) -> None:
    tree = LexborHTMLParser(markup)
    assert element_bound(tree.html or "") >= len(tree.css("*"))


# line breaks of every kind, other white space, combining marks, case folds that grow
_OUTPUT_CHARS = "aB ß\u0301\u0338>-#*\n\r\x0b\x1c\x85\u2028\u2000İé\u3000日"


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(_OUTPUT_CHARS), max_size=40))
@example(">\u0338 x\n\u0301a")
def test_output_keys_fold_the_whole_output_as_fold_does(text: str) -> None:
    lines, whole = output_keys(text)
    assert whole == fold(text)
    assert lines == {fold(line) for line in text.splitlines()} | {
        fold(line.lstrip("-#*> ")) for line in text.splitlines()
    }
