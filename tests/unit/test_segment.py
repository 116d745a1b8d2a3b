"""Segmentation: block universe, links with exact offsets, image filtering, depth guard."""

from __future__ import annotations

import pytest
from selectolax.lexbor import LexborHTMLParser

from article_runtime.candidates.depth import MAX_DEPTH, check_depth
from article_runtime.candidates.segment import Segmentation, segment
from article_runtime.errors import InputError


def seg(
    body: str, url: str | None = "https://example.org/news/story", head: str = ""
) -> Segmentation:
    return segment(LexborHTMLParser(f"<html><head>{head}</head><body>{body}</body></html>"), url)


def test_block_types_and_levels() -> None:
    s = seg(
        "<h1>Big</h1><h3>Small</h3><p>Para</p><blockquote><p>Said</p></blockquote>"
        "<figure><figcaption>Cap</figcaption></figure><pre>  a = 1\n  b  </pre>"
        "<table><tr><th>k</th><th>v</th></tr><tr><td>x</td><td>1</td></tr></table>"
    )
    got = [(b.type, b.text, b.level) for b in s.blocks]
    assert got == [
        ("heading", "Big", 1),
        ("heading", "Small", 3),
        ("paragraph", "Para", None),
        ("quote", "Said", None),
        ("figure_caption", "Cap", None),
        ("code", "a = 1\n  b", None),
        ("table", "k v x 1", None),
    ]
    assert s.blocks[-1].rows == [["k", "v"], ["x", "1"]]


def test_section_is_the_heading_above() -> None:
    s = seg("<p>intro</p><h2>A</h2><p>one</p><h3>A.1</h3><p>two</p><h2>B</h2><p>three</p>")
    sections = {b.text: b.section for b in s.blocks}
    assert sections == {
        "intro": None,
        "A": None,
        "one": 1,
        "A.1": 1,
        "two": 3,
        "B": None,
        "three": 5,
    }


def test_lists_get_ids_and_order() -> None:
    s = seg("<ul><li>a</li><li>b<ol><li>n</li></ol></li></ul><ol><li>z</li></ol>")
    items = [(b.text, b.list_key, b.ordered) for b in s.blocks]
    assert [i[0] for i in items] == ["a", "b", "n", "z"]
    assert items[0][1] == items[1][1]  # same list
    assert len({items[1][1], items[2][1], items[3][1]}) == 3
    assert [i[2] for i in items] == [False, False, True, True]


def test_loose_text_br_and_layout_cells_become_paragraphs() -> None:
    s = seg(
        "<div>direct text<span> and span</span><br>after break<div>inner</div>tail</div>"
        "<table><tr><td><p>cell para</p></td><td>bare cell</td></tr></table>"
        "<p>line one<br>line two</p>"
    )
    assert [b.text for b in s.blocks] == [
        "direct text and span",
        "after break",
        "inner",
        "tail",
        "cell para",
        "bare cell",
        "line one line two",
    ]
    assert all(b.type == "paragraph" for b in s.blocks)


def test_data_table_cells_keep_their_words_apart() -> None:
    """A cell broken by ``<br>`` reads as two words, as a paragraph does; hidden text in a
    cell is no more read than anywhere else."""
    s = seg(
        "<table><tr><th>Home<br>team</th><th>Score</th></tr>"
        "<tr><td>Flamengo<br/>(RJ)</td><td>2<span hidden>9</span></td></tr></table>"
    )
    [table] = s.blocks
    assert table.type == "table"
    assert table.rows == [["Home team", "Score"], ["Flamengo (RJ)", "2"]]


def test_hidden_script_and_controls_are_skipped() -> None:
    s = seg(  # <noscript> is shown to readers without scripts: its text is read
        "<p>kept</p><script>var x = 'no';</script><style>p{}</style><noscript>ns</noscript>"
        "<div hidden>h</div>"  # a child of body: streaming renderers park content here
        "<div><p hidden>attr</p><p aria-hidden='true'>aria</p>"
        "<p style='color: red; display : none'>css</p><button>Click</button>"
        "<select><option>opt</option></select><template>tpl</template></div>"
    )
    assert [b.text for b in s.blocks] == ["kept", "ns", "h"]


def test_ruby_annotations_are_not_text() -> None:
    # <rt> is the reading of the base text, <rp> the fallback parentheses: neither is prose.
    s = seg(
        "<p><ruby>子<rp>(</rp><rt>こ</rt><rp>)</rp></ruby>どもへの"
        "<ruby>体罰<rt>たいばつ</rt></ruby>を<a href='/k'><ruby>禁止<rt>きんし</rt></ruby></a>"
        "する</p><p><ruby>漢<rb>字</rb><rt>かん</rt><rt>じ</rt></ruby></p>"
    )
    assert [b.text for b in s.blocks] == ["子どもへの体罰を禁止する", "漢字"]
    assert [(k.text, k.start) for k in s.links] == [("禁止", 8)]


def test_link_offsets_after_emoji_and_accents() -> None:
    s = seg("<p>Olá 😀 <b>ação</b>  <a href='/x'>the  link</a>, then <a href='y'>y</a></p>")
    block = s.blocks[0]
    assert block.text == "Olá 😀 ação the link, then y"
    first, second = s.links
    assert (first.text, first.start, first.href) == ("the link", 11, "https://example.org/x")
    assert block.text[first.start : first.start + len(first.text)] == "the link"
    assert (second.start, second.href) == (26, "https://example.org/news/y")


def test_noscript_text_is_read() -> None:
    """A script-rendered page keeps its article in <noscript>: it is visible text there."""
    s = seg(
        "<div id='app'></div><noscript><p>The whole post, for readers without JS.</p>"
        "<img src='/pixel.gif'></noscript>"
    )
    assert [b.text for b in s.blocks] == ["The whole post, for readers without JS."]


def test_links_resolve_against_base_and_drop_scripts() -> None:
    s = seg(
        "<p><a href='rel/page'>a</a> <a href='javascript:void(0)'>b</a> <a href='#top'>c</a> "
        "<a href='mailto:x@y.z'>d</a> <a href=''>e</a> <a href='//cdn.example.com/f'>f</a></p>",
        head="<base href='https://base.example.net/dir/'>",
    )
    assert [(k.text, k.href) for k in s.links] == [
        ("a", "https://base.example.net/dir/rel/page"),
        ("f", "https://cdn.example.com/f"),
    ]


def test_image_filtering() -> None:
    s = seg(
        "<p>first</p>"
        "<img src='/pixel.gif' width='1' height='1'>"
        "<img src='data:image/png;base64,AAAA'>"
        "<img src='/favicon.ico'><img src='/logo.svg'><img src='/i.png' width='16' height='16'>"
        "<img src='/deco.png' role='presentation'>"
        "<img src='data:image/gif;base64,R0' data-src='/lazy.jpg' alt=' Lazy  one '>"
        "<figure><img srcset='/big.jpg 2x, /small.jpg 1x'><figcaption>The cap</figcaption></figure>"
        "<nav><img src='/nav.jpg'></nav>"
    )
    assert [(i.src, i.alt, i.caption, i.after) for i in s.images] == [
        ("https://example.org/lazy.jpg", "Lazy one", "", 0),
        ("https://example.org/big.jpg", "", "The cap", 0),
    ]


def test_image_before_any_block_has_no_anchor() -> None:
    s = seg("<img src='https://img.example.org/a.jpg'><p>text</p>")
    assert s.images[0].after is None


def test_boilerplate_zones_are_marked() -> None:
    s = seg(
        "<header><p>site</p></header><nav><p>menu</p></nav><article><header><h1>T</h1>"
        "</header><p>body</p></article><div role='contentinfo'><p>legal</p></div>"
    )
    assert [(b.text, b.boiler) for b in s.blocks] == [
        ("site", True),
        ("menu", True),
        ("T", False),
        ("body", False),
        ("legal", True),
    ]


def test_broken_markup_keeps_text() -> None:
    s = seg("<div><p>one<p>two<div>three<span>four</div><li>five")
    assert [b.text for b in s.blocks] == ["one", "two", "threefour", "five"]


def test_deep_nesting_is_refused() -> None:
    """How fast is measured by ``python -m bench.slow_pages`` (deep nesting classes)."""
    html = "<div>" * 50_000 + "x" + "</div>" * 50_000
    with pytest.raises(InputError) as caught:
        check_depth(html)
    assert caught.value.reason == "html_too_deep"


def test_walk_enforces_depth_too() -> None:
    html = "<span>" * (MAX_DEPTH + 5) + "x"
    check_depth("<p>" * 1000)  # implied end tags never count as depth
    with pytest.raises(InputError) as caught:
        seg(html)
    assert caught.value.reason == "html_too_deep"
