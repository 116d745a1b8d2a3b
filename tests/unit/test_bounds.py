"""The cheap bound (``bounds.py``) never under-counts what lexbor builds, and pages that take
the shortcut get the candidates the exact pre-scan gives them (issue 13, section 2).

Hostile markup is generated (misnested formatting, tables and foster parenting, templates,
selects, SVG and MathML, everything unclosed) and parsed by lexbor, the parser the runtime
uses; a page that breaks the bound means the bound is wrong.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from selectolax.lexbor import LexborHTMLParser, LexborNode

import article_runtime.candidates.builder as builder
from article_runtime.candidates import build_candidates
from article_runtime.candidates.bounds import (
    _FORMATTING,
    MAX_TAGS,
    TagCounts,
    _identities,
    _name,
    check_tree_depth,
    count_tags,
)
from article_runtime.candidates.depth import MAX_DEPTH, MAX_ELEMENTS, scan_page
from article_runtime.errors import InputError
from article_runtime.model import CandidateSet
from tests.unit.test_depth import CODE_SOUP, TOKEN, real_depth

HOSTILE = st.one_of(
    TOKEN,
    st.integers(min_value=0, max_value=40).map(lambda n: f"<b id={n}>"),
    st.integers(min_value=0, max_value=40).map(lambda n: f"<font color={n}>"),
    st.sampled_from(
        ["<b class=x>", "<b  class=x>", "<i class='a>b'>", '<u title="<u>">', "<s x=<s>"]
    ),
    st.sampled_from(["<b id=x class=y>", "<b class=y id=x>", "<em/>", "<tt\n>", "<big x"]),
    st.sampled_from(
        [
            "<B>",
            "</B >",
            "<a href=x>",
            "</a>",
            "<nobr>",
            "</nobr>",
            "<isindex>",
            "<image>",
            "</p>",
            "</br>",
            "<p>x",
            "<td>x",
            "<table><b>",
            "<select><b>",
            "<frameset>",
            "<plaintext>",
            "<applet>",
            "<marquee>",
            "<object>",
            "<strike>",
            "<tt>",
            "<u>",
            "<s>",
            "<small>",
            "<big>",
            "<code>",
            "<strong>",
            "</strong>",
            "<em>",
            "</em>",
            "<i>",
            "</i>",
            "<address>",
            "<dl>",
            "<dd>",
        ]
    ),
)
HOSTILE_SOUP = st.lists(HOSTILE, max_size=150).map("".join)
LINE_ENDS = st.sampled_from(["\r\n", "\n", "\r", "\r\n\r\n"])
CODE_LINES = st.lists(st.one_of(CODE_SOUP, LINE_ENDS), max_size=8).map("".join)


def lexbor_tree(html: str) -> tuple[int, int]:
    """lexbor's element count and deepest element (from the document root)."""
    tree = LexborHTMLParser(html)
    count = deepest = 0
    stack: list[tuple[LexborNode, int]] = [(tree.root, 1)] if tree.root is not None else []
    while stack:
        node, depth = stack.pop()
        count += 1
        deepest = max(deepest, depth)
        child = node.child
        while child is not None:
            if child.tag not in ("-text", "_comment", "-comment", "!doctype"):
                stack.append((child, depth + 1))
            child = child.next
    return count, deepest


@settings(max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(HOSTILE_SOUP)
@example("".join(f"<b id={n}>" for n in range(30)) + "</div><p>x</p>" * 30)
@example("<p><b><i><u><div>x</b>y</i>z</u>" * 10)
@example("<a><table><a><td><a><b><div>x</a>" * 8)
@example("<table><b><tr><td>x</b><i>y" * 10)
@example("<svg><b><math><i><foreignObject><b>x" * 5)
@example("<template><b><td><i>x</template>" * 10)
@example("<nobr>x<nobr>y<div><nobr>" * 15)
@example("<div>" + "<b class=x>" * 60 + "</div>" + "<p>x</p>" * 60)
@example("<div>" + "<b title='a>b'>" * 30 + "<b title='a>c'>" * 30 + "</div>" + "<p>x" * 60)
def test_lexbor_never_builds_more_than_the_bound(html: str) -> None:
    counts = count_tags(html)
    # The tighter bound count_tags computes only for pages the plain one does not admit:
    tags = [part for part in html.split("<")[1:] if _name(part[:8]) in _FORMATTING - {"a"}]
    tight = counts._replace(identities=_identities(tags))
    assert tight.elements_bound <= counts.elements_bound
    assert lexbor_tree(html)[0] <= tight.elements_bound
    elements, deepest = lexbor_tree(html)
    assert elements <= counts.elements_bound
    assert deepest <= counts.elements_bound
    # The exact model counts no more either: a bounded page is never refused for elements.
    shape = scan_page(html, limit=10**6, max_elements=counts.elements_bound)
    assert shape.elements <= counts.tags


def _page(body: str) -> str:
    prose = "The quay opens next spring, after two years of delays and a shortage of steel. "
    return (
        "<!doctype html><html lang=en><head><title>Quay</title></head><body><article>"
        f"<h1>Quay opens</h1><p>{prose * 4}</p>{body}<p>{prose * 3}</p></article></body></html>"
    )


def _outcome(html: str) -> CandidateSet | str:
    try:
        return build_candidates(html, url="https://example.com/a")
    except InputError as error:
        return error.reason


def _exact_outcome(html: str) -> CandidateSet | str:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(builder, "count_tags", lambda _: TagCounts(10**9, 0, 0, 0))
        return _outcome(html)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(HOSTILE_SOUP, CODE_SOUP, CODE_LINES).map(_page))
@example(_page("<script>var a = 1;</script><style>p {}</style><p>x</p>"))
@example(_page("<b>" * 250 + "x"))
@example(_page("<div>" * 250 + "x"))
@example(_page("<table>" + "<b><td>" * 120 + "x"))
@example(_page("<div hidden>" + "<div>" * 250 + "</div>" * 251))
def test_the_shortcut_gives_the_exact_scans_candidates(html: str) -> None:
    """Same refusal, or the same candidates; the one allowed difference is a page the
    exact model thinks deeper than lexbor builds (it over-counts on purpose), which the DOM
    walk then measures on lexbor's own tree."""
    if not count_tags(html).bounded:
        return
    exact, shortcut = _exact_outcome(html), _outcome(html)
    if exact == "html_too_deep" and isinstance(shortcut, CandidateSet):
        assert real_depth(html) <= MAX_DEPTH + 1  # + 1: a void leaf the walk never opens
        return
    assert shortcut == exact


@pytest.mark.parametrize(
    "html",
    [
        "".join(f"<b id={n}>" for n in range(150)) + "<p>x</p>" * 20_000,
        "<div>" * (MAX_TAGS + 1),
        "".join(f"<b id={n}>" for n in range(400)) + "<p>x" * 400,
    ],
    ids=["reopened", "many-tags", "formatting-times-tags"],
)
def test_hostile_pages_take_the_exact_scan(html: str) -> None:
    counts = count_tags(html)
    assert not counts.bounded
    assert counts.elements_bound > MAX_ELEMENTS or counts.tags > MAX_TAGS


def test_identical_formatting_tags_are_one_identity() -> None:
    """Noah's Ark: many identical tags reopen at most three; distinct ones each count."""
    many = "<div>" + "<b class=x>" * 400 + "</div>" + "<p>x</p>" * 400
    assert count_tags(many).reopened == 4
    assert count_tags(many).bounded
    distinct = "<div>" + "".join(f"<b id={n}>" for n in range(400)) + "</div>" + "<p>x</p>" * 400
    assert count_tags(distinct).reopened == 401
    assert not count_tags(distinct).bounded
    quoted = "<div>" + "<b title='a>b'>" * 400 + "</div>" + "<p>x</p>" * 400
    assert count_tags(quoted).reopened == 401  # a quote: the tag may end elsewhere


def test_tag_names_are_read_like_the_tokenizer() -> None:
    counts = count_tags("<B>x</b ><b\tid=1><bdi><br/></Strong>< b><b")
    assert counts.formatting == 2  # <B>, <b\t...>; not <bdi>, <br/>, "< b>", "<b" at the end
    assert counts.adoptions == 2  # </b >, </Strong>


@pytest.mark.parametrize("inner", ["", "<br>", "<img>", "<span>", "<b>", "<svg>"])
@pytest.mark.parametrize("count", [MAX_DEPTH - 1, MAX_DEPTH, MAX_DEPTH + 1])
@pytest.mark.parametrize("wrapper", ["", "<div hidden>", "<noscript>", "<table><td>"])
def test_the_tree_is_refused_where_the_exact_scan_refuses(
    wrapper: str, count: int, inner: str
) -> None:
    """At the edge of ``MAX_DEPTH``, hidden or not: the same refusal from lexbor's tree."""
    html = "<body>" + wrapper + "<div>" * count + inner
    try:
        scan_page(html)
        exact = "accepted"
    except InputError as error:
        exact = error.reason
    try:
        check_tree_depth(LexborHTMLParser(html))
        shortcut = "accepted"
    except InputError as error:
        shortcut = error.reason
    assert shortcut == exact


def test_deep_framesets_are_refused() -> None:
    with pytest.raises(InputError, match="html_too_deep"):
        check_tree_depth(LexborHTMLParser("<frameset>" * (MAX_DEPTH + 2)))
