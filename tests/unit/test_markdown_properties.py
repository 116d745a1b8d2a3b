"""Our Markdown carries exactly the document's text and structure, whatever the text holds.

Documents are generated with arbitrary Unicode mixed with every class of hostile text
(line and paragraph separators, CR, vertical tab, form feed, NEL, Markdown block and inline
syntax, HTML, character references, fences, indentation) and hostile link targets (newline,
tab, spaces, parentheses, angle brackets). A real CommonMark parser reads the Markdown back;
the blocks, their text and their links must be the document's, nothing more.
"""

from __future__ import annotations

import unicodedata
from typing import Any
from urllib.parse import unquote

from hypothesis import example, given, settings
from hypothesis import strategies as st

from article_runtime.harness import document as doc
from article_runtime.harness import markdown as md
from tests.commonmark import parse

HOSTILE_TEXT = [
    *"\u2028\u2029\x85\r\n\x0b\x0c\t\x00 \xa0\u3000\u200b\u200e\u202e\u2066\ufeff\u00ad\U000e0041",
    *"#>-+*=_`~[]()<>!|\\&;:.0123456789",
    "\r\n",
    "# ",
    "###### ",
    "- ",
    "+ ",
    "* ",
    "1. ",
    "1) ",
    "123456789. ",
    "===",
    "---",
    "- - -",
    "***",
    "___",
    "```",
    "~~~",
    "~~x~~",
    "    ",
    "\t\t",
    "<div>",
    "</p>",
    "<!-- x -->",
    "<https://e.org>",
    "&amp;",
    "&#35;",
    "&#x41;",
    "&#X2028;",
    "&copy",
    "&nbsp;",
    "[x](y)",
    "[x]: /url",
    "![a](b)",
    "\\\n",
    "  \n",
    "| a | b |",
    "| --- |",
    "*em*",
    "__strong__",
    "`code`",
    "\ud800",
    "\udfff",
]
HOSTILE_URL = [
    "https://e.org/",
    *" \t\n\r()<>\\&;#%[]`*\"'\x00\x7f\x85\u2028\u200b\xa0é",
    "&amp;",
    "%20",
    "a b",
    "(x)",
    "javascript:alert(1)",
]


def _joined(pieces: list[str], *, min_size: int = 0) -> st.SearchStrategy[str]:
    part = st.one_of(st.sampled_from(pieces), st.text(max_size=4))
    return st.lists(part, min_size=min_size, max_size=8).map("".join)


texts = _joined(HOSTILE_TEXT, min_size=1).filter(bool)
urls = _joined(HOSTILE_URL)


@st.composite
def inlines(draw: st.DrawFn) -> doc.Inline:
    """Text and link pieces (a link's text is never empty, as assembly never shows one so)."""
    count = draw(st.integers(1, 4))
    pieces = []
    for _ in range(count):
        href = draw(st.one_of(st.none(), urls))
        pieces.append(doc.Piece(draw(texts), ("b1", "text"), 0, href))
    return tuple(pieces)


def _piece(text: str) -> doc.Piece:
    return doc.Piece(text, ("b1", "text"), 0)


nodes: st.SearchStrategy[doc.Node] = st.one_of(
    inlines().map(doc.Paragraph),
    st.builds(doc.Heading, st.integers(1, 6), inlines()),
    inlines().map(doc.Quote),
    st.builds(doc.ListRun, st.booleans(), st.lists(inlines(), min_size=1, max_size=4).map(tuple)),
    texts.map(lambda t: doc.Code(_piece(t))),
    st.lists(
        st.lists(_joined(HOSTILE_TEXT).map(_piece), min_size=1, max_size=3).map(tuple),
        min_size=1,
        max_size=3,
    ).map(lambda rows: doc.Table(tuple(rows))),
    st.builds(doc.Image, _joined(HOSTILE_TEXT).map(_piece), urls),
)
documents = st.lists(nodes, min_size=1, max_size=6).map(tuple)


def kept(text: str) -> str:
    """What any Markdown can keep of a text: U+0000 and lone surrogates read as U+FFFD."""
    return "".join("\ufffd" if ch == "\0" or "\ud800" <= ch <= "\udfff" else ch for ch in text)


# Controls a reader may break a line at or trim are written as character references; the
# CommonMark spec decodes these, markdown-it reads those to VT, U+001C-U+001F and NEL as U+FFFD.
_MARKDOWN_IT_REFUSES = frozenset("\x0b\x1c\x1d\x1e\x1f\x85")


def shown(text: str) -> str:
    """What markdown-it shows of a text outside code."""
    return "".join("\ufffd" if ch in _MARKDOWN_IT_REFUSES else ch for ch in kept(text))


def target(url: str) -> str:
    """A link target as a browser reads the href (WHATWG): C0 and space trimmed at the ends,
    ASCII tab and newline dropped; compared percent-decoded."""
    url = url.strip("".join(map(chr, range(0x21))))
    url = url.replace("\t", "").replace("\n", "").replace("\r", "")
    return unquote("".join("\ufffd" if "\ud800" <= ch <= "\udfff" else ch for ch in url))


def _spans(inline: doc.Inline) -> tuple[tuple[str, str | None], ...]:
    out: list[tuple[str, str | None]] = []
    for p in inline:
        if p.href is not None:
            out.append((shown(p.text), target(p.href)))
        elif out and out[-1][1] is None:
            out[-1] = (out[-1][0] + shown(p.text), None)
        else:
            out.append((shown(p.text), None))
    return tuple(out)


def expected(document: doc.Document) -> list[tuple[Any, ...]]:
    """The document's blocks as the parser should see them."""
    out: list[tuple[Any, ...]] = []
    for node in document:
        match node:
            case doc.Paragraph(inline):
                out.append(("paragraph", _spans(inline)))
            case doc.Heading(level, inline):
                out.append(("heading", level, _spans(inline)))
            case doc.Quote(inline):
                out.append(("quote", _spans(inline)))
            case doc.ListRun(ordered, items):
                out.append(("list", ordered, [_spans(i) for i in items]))
            case doc.Code(piece):
                # CR is a line ending to every parser: code keeps its lines, LF-terminated
                lines = kept(piece.text).replace("\r\n", "\n").replace("\r", "\n")
                out.append(("code", lines + "\n"))
            case doc.Table(rows):
                width = max(len(r) for r in rows)
                cells = [[_spans((c,)) if c.text else () for c in r] for r in rows]
                out.append(("table", [r + [()] * (width - len(r)) for r in cells]))
            case doc.Image(alt, src):
                out.append(("image", shown(alt.text), target(src)))
    return out


def _decoded_targets(blocks: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """Parsed blocks with link targets percent-decoded, after checking each one is inert."""

    def fix(spans: tuple[tuple[str, str | None], ...]) -> tuple[tuple[str, str | None], ...]:
        return tuple((t, None if h is None else _inert(h)) for t, h in spans)

    out: list[tuple[Any, ...]] = []
    for block in blocks:
        kind = block[0]
        if kind in ("paragraph", "quote"):
            out.append((kind, fix(block[1])))
        elif kind == "heading":
            out.append((kind, block[1], fix(block[2])))
        elif kind == "list":
            out.append((kind, block[1], [fix(i) for i in block[2]]))
        elif kind == "table":
            out.append((kind, [[fix(c) for c in row] for row in block[1]]))
        elif kind == "image":
            out.append((kind, block[1], _inert(block[2])))
        else:
            out.append(block)
    return out


def _inert(href: str) -> str:
    """A target as written holds no space, control, separator or format character."""
    unsafe = ("Cc", "Cf", "Cs", "Zs", "Zl", "Zp")
    bad = [ch for ch in href if unicodedata.category(ch) in unsafe]
    assert not bad, (href, bad)
    return unquote(href)


@settings(max_examples=400, deadline=None)
@given(documents)
@example((doc.Heading(2, (_piece("C #"),)),))  # a closing sequence would cut " #"
@example((doc.Heading(1, (_piece("a ##\t"),)),))
def test_parser_reads_back_exactly_the_documents_blocks_text_and_links(
    document: doc.Document,
) -> None:
    markdown = md.render(document)
    assert _decoded_targets(parse(markdown)) == expected(document)


@settings(max_examples=300, deadline=None)
@given(documents)
def test_no_control_or_format_character_the_text_lacks(document: doc.Document) -> None:
    markdown = md.render(document)
    shown = "".join(p.text for p in doc.pieces(document))
    for ch in set(markdown) - {"\n"}:
        if unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp", "Cs"):
            assert ch in shown, f"U+{ord(ch):04X} is in the Markdown, not in the text"


@settings(max_examples=300, deadline=None)
@given(documents)
def test_our_reader_inverts_the_renderer(document: doc.Document) -> None:
    """``plain_text`` (what enrichment reads) gives back each node's text exactly."""
    normal: list[doc.Node] = []
    for node in document:
        if isinstance(node, doc.Code):
            text = kept(node.piece.text).replace("\r\n", "\n").replace("\r", "\n")
            node = doc.Code(_piece(text))
        normal.append(node)
    assert md.plain_text(md.render(document)) == kept(doc.reader_text(normal))


@settings(max_examples=300, deadline=None)
@given(documents.filter(lambda d: not any(isinstance(n, doc.Code) for n in d)))
def test_no_character_outside_code_that_any_reader_ends_a_line_at(document: doc.Document) -> None:
    """Python's ``splitlines`` (VT, FF, U+001C-U+001E, NEL, U+2028, U+2029, CR...) finds only
    our own line breaks."""
    markdown = md.render(document)
    assert markdown.splitlines() == markdown.split("\n")[:-1]
