"""Markdown escaping keeps article text literal; grounding catches invented text and URLs.

Examples of each hostile class, read back by a real CommonMark parser (``tests.commonmark``);
``test_markdown_properties`` generates the classes.
"""

from __future__ import annotations

from typing import Any

from article_runtime.harness import document as doc
from article_runtime.harness import markdown as md
from article_runtime.harness.grounding import UNGROUNDED_TEXT, UNGROUNDED_URL, check_grounding
from tests.commonmark import parse

SRC = ("b1", "text")


def _p(text: str, href: str | None = None, start: int = 0) -> doc.Piece:
    return doc.Piece(text, SRC, start, href)


def _one_paragraph(text: str) -> list[tuple[Any, ...]]:
    return parse(md.render((doc.Paragraph((_p(text),)),)))


def test_block_syntax_at_a_line_start_stays_text() -> None:
    for text in ("# not a heading", "1. not a list", "1) nor this", "- dash", "+ plus", "> quote"):
        assert _one_paragraph(text) == [("paragraph", ((text, None),))], text
    for text in ("---", "***", "___", "===", "```", "~~~", "    indented", "<div>x</div>"):
        assert _one_paragraph(text) == [("paragraph", ((text, None),))], text


def test_inline_syntax_stays_text() -> None:
    text = "a *b* _c_ `d` [e](f) ![g](h) <i> ~~j~~ | k \\ l"
    assert _one_paragraph(text) == [("paragraph", ((text, None),))]


def test_line_separators_never_start_a_line() -> None:
    text = "one\u2028two\u2029three\x85four\rfive\x0bsix\x0cseven\nend"
    markdown = md.render((doc.Paragraph((_p(text),)),))
    assert markdown.splitlines() == [markdown.rstrip("\n")]
    [(kind, ((seen, _),))] = parse(markdown)
    assert kind == "paragraph"
    # markdown-it reads references to VT and NEL as U+FFFD; the CommonMark spec decodes them
    assert seen == text.replace("\x85", "\ufffd").replace("\x0b", "\ufffd")


def test_literal_character_references_render_as_written() -> None:
    text = "AT&T says &amp; is not &#38; nor &copy; nor &#x41;"
    assert _one_paragraph(text) == [("paragraph", ((text, None),))]
    assert "AT&T" in md.render((doc.Paragraph((_p(text),)),))  # only what could decode is escaped


def test_a_heading_ending_in_hashes_keeps_them() -> None:
    for text in ("C #", "Issue ##", "#", "tag #1 #"):
        markdown = md.render((doc.Heading(2, (_p(text),)),))
        assert parse(markdown) == [("heading", 2, ((text, None),))], text


def test_spaces_at_the_ends_are_kept_and_never_indent() -> None:
    for text in ("    code?", "\tx", " x ", "\xa0x\u3000"):
        assert _one_paragraph(text) == [("paragraph", ((text, None),))], repr(text)


def test_link_targets_cannot_break_out_of_their_link() -> None:
    cases = {
        "https://e.org/a\nb": "https://e.org/ab",  # browsers drop tab and newline
        "https://e.org/\ta b": "https://e.org/a%20b",
        "https://e.org/a (b)": "https://e.org/a%20(b)",
        "https://e.org/<x>)": "https://e.org/<x>)",
        " https://e.org/&amp;\\ ": "https://e.org/&amp;\\",
    }
    for href, seen in cases.items():
        markdown = md.render((doc.Paragraph((_p("see"), _p(" it", href))),))
        assert parse(markdown) == [("paragraph", (("see", None), (" it", seen)))], href
        assert md.link_target(href) == seen


def test_exclamation_right_before_a_link_is_not_an_image() -> None:
    markdown = md.render((doc.Paragraph((_p("Wow!"), _p("look", "https://e.org/"))),))
    assert parse(markdown) == [("paragraph", (("Wow!", None), ("look", "https://e.org/")))]


def test_adjacent_lists_of_one_kind_stay_apart() -> None:
    a, b = (_p("a"),), (_p("b"),)
    document = (doc.ListRun(False, (a,)), doc.ListRun(False, (b,)), doc.ListRun(False, (a,)))
    assert parse(md.render(document)) == [
        ("list", False, [(("a", None),)]),
        ("list", False, [(("b", None),)]),
        ("list", False, [(("a", None),)]),
    ]


def test_code_fence_outgrows_backticks_inside() -> None:
    markdown = md.render((doc.Code(_p("a ```b``` c\n````")),))
    assert parse(markdown) == [("code", "a ```b``` c\n````\n")]


def test_table_cells_keep_pipes_and_pad_rows() -> None:
    document = (doc.Table(((_p("A"), _p("B")), (_p("1|2"),))),)
    assert parse(md.render(document)) == [
        ("table", [[(("A", None),), (("B", None),)], [(("1|2", None),), ()]])
    ]


def test_plain_text_reads_our_markdown_back() -> None:
    document = (
        doc.Heading(2, (_p("T #"),)),
        doc.Paragraph((_p("a [b] c "), _p("d", "https://e.org/"), _p(", e\u2028f"))),
        doc.ListRun(True, ((_p("1. one"),), (_p("two"),))),
        doc.Code(_p("# not a heading\n\n- nor a list")),
        doc.Table(((_p("x"), _p("")), (_p("y"), _p("z")))),
        doc.Image(_p("alt"), "https://e.org/i.png"),
    )
    lines = ["T #", "a [b] c d, e\u2028f", "1. one", "two", "# not a heading", "", "- nor a list"]
    assert md.plain_text(md.render(document)) == "\n".join([*lines, "x", "y z", "alt"])


# --- grounding ------------------------------------------------------------------------------


def test_grounded_document_passes() -> None:
    text = "Lula disse: *não* [sic] 3-1 東京 aqui"
    document = (doc.Paragraph((_p(text[:-4]), _p("aqui", "https://e.org/", len(text) - 4))),)
    assert check_grounding(document, {SRC: text}, ["https://e.org/"]) is None


def test_invented_text_is_caught_in_any_script() -> None:
    for shown, source in (("Lula venceu", "Lula perdeu"), ("東京 大阪", "東京"), ("3-2", "3-1")):
        document = (doc.Paragraph((_p(shown),)),)
        assert check_grounding(document, {SRC: source}, [])[0] == UNGROUNDED_TEXT  # type: ignore[index]


def test_a_node_shows_its_source_whole_and_nothing_else() -> None:
    """Slices joined differently, dropped or shown twice are not the block's text."""
    source = "Lula não venceu: error E0382"

    def grounded(*pieces: doc.Piece) -> bool:
        return check_grounding((doc.Paragraph(pieces),), {SRC: source}, []) is None

    assert grounded(_p("Lula não venceu: error", start=0), _p(" E0382", start=22))
    assert not grounded(_p("Lula não venceu: error", start=0), _p("E0382", start=23))  # joined
    assert not grounded(_p("Lula ", start=0), _p("venceu: error E0382", start=9))  # dropped
    assert not grounded(_p("Lula não venceu", start=0))  # cut short
    twice = (doc.Paragraph((_p(source),)), doc.Quote((_p(source),)))
    assert check_grounding(twice, {SRC: source}, []) is not None


def test_table_cells_are_the_slices_between_single_spaces() -> None:
    source = "A B 1 2"
    cells = ((_p("A"), _p("B", start=2)), (_p("1", start=4), _p(""), _p("2", start=6)))
    assert check_grounding((doc.Table(cells),), {SRC: source}, []) is None
    moved = ((_p("A"), _p("1", start=4)), (_p("B", start=2), _p("2", start=6)))
    assert check_grounding((doc.Table(moved),), {SRC: source}, []) is not None


def test_text_of_an_unknown_source_is_caught() -> None:
    document = (doc.Paragraph((doc.Piece("x", ("b9", "text"), 0),)),)
    assert check_grounding(document, {SRC: "x"}, []) == (UNGROUNDED_TEXT, "b9: 'x'")


def test_foreign_url_is_caught_even_in_an_image() -> None:
    document = (
        doc.Paragraph((_p("aqui", "https://e.org/"),)),
        doc.Image(doc.Piece("x", ("i1", "alt"), 0), "https://evil.test/p.gif"),
    )
    sources = {SRC: "aqui", ("i1", "alt"): "x"}
    assert check_grounding(document, sources, ["https://e.org/"]) == (
        UNGROUNDED_URL,
        "https://evil.test/p.gif",
    )
