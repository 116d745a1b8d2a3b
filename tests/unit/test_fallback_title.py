"""A page whose markup names no title still gets a title candidate from its own text, so the
deterministic path never loses an article for lack of a title (issue 9, section 3)."""

from __future__ import annotations

import html as html_lib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from article_runtime.candidates import build_candidates
from article_runtime.candidates.fallback_title import fallback_title
from article_runtime.candidates.metadata import MAX_TEXT
from article_runtime.errors import InputError, NoValidProposal
from article_runtime.extract import extract_article
from article_runtime.model.candidates import Block
from article_runtime.text.segments import normalize_space

SPRING = "The harbour authority said on Monday that the new quay would open next spring."
DELAYS = "After two years of delays caused by flooding and a shortage of steel, the works resume."
MORE = "More text follows here, with several words in it, enough for the body of an article."


def _page(body: str, head: str = "") -> bytes:
    return f"<!doctype html><html><head>{head}</head><body><div>{body}</div></body></html>".encode()


def test_a_page_without_title_markup_keeps_its_article_titled_by_its_first_sentence() -> None:
    """Regression: main lost this article as ``no_title_candidate``."""
    article = extract_article(_page(f"<p>{SPRING} {DELAYS}</p><p>{MORE}</p>"), source="x")
    assert article.title == SPRING
    assert DELAYS in article.markdown and MORE in article.markdown


def test_the_first_heading_block_comes_before_any_sentence() -> None:
    page = _page(f"<p>{SPRING}</p><h2>Quay to open in spring</h2><p>{DELAYS} {MORE}</p>")
    title = build_candidates(page).metadata_candidates.title
    assert [(c.text, c.source) for c in title] == [("Quay to open in spring", "fallback:heading")]


def test_markup_titles_leave_no_room_for_a_fallback() -> None:
    page = _page(f"<p>{SPRING} {DELAYS}</p><p>{MORE}</p>", head="<title>Quay opens</title>")
    title = build_candidates(page).metadata_candidates.title
    assert [(c.text, c.source) for c in title] == [("Quay opens", "title")]


def test_a_sentence_longer_than_a_title_is_cut_at_a_word_end() -> None:
    words = [f"palavra{n}" for n in range(80)]  # one sentence of 80 words, no mark
    block = Block(id="b1", type="paragraph", text=" ".join(words), container_id="c1", extractors=[])
    candidate = fallback_title([block], limit=MAX_TEXT, locale="pt")
    assert candidate is not None
    assert len(candidate.text) <= MAX_TEXT
    assert candidate.text.split() == words[: len(candidate.text.split())]
    assert len(" ".join(words[: len(candidate.text.split()) + 1])) > MAX_TEXT


# --- generated pages without any title markup --------------------------------------------------

WORDS = (
    "quay", "opens", "spring", "cais", "abre", "primavera", "Kai", "öffnet", "Frühling",
    "puerto", "abrió", "ville", "été", "東京", "で", "会った", "Москва", "12", "3,5%", "U.S.",
)  # fmt: skip
MARKS = (".", "!", "?", ",", ";", "…", "", "", "")


@st.composite
def prose(draw: st.DrawFn, max_words: int = 120) -> str:
    words = draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=max_words))
    return " ".join(w + draw(st.sampled_from(MARKS)) for w in words)


@st.composite
def untitled_pages(draw: st.DrawFn) -> str:
    """Body blocks of every kind but no h1, headline, og:title or <title>."""
    parts = []
    for _ in range(draw(st.integers(1, 6))):
        kind = draw(st.sampled_from(["p", "p", "p", "h2", "h4", "li", "blockquote", "pre"]))
        text = html_lib.escape(draw(prose(12 if kind.startswith("h") else 120)))
        parts.append(f"<ul><li>{text}</li></ul>" if kind == "li" else f"<{kind}>{text}</{kind}>")
    return "".join(parts)


@settings(max_examples=120, deadline=None)
@given(untitled_pages())
def test_an_untitled_page_gets_a_title_from_its_own_text_and_keeps_its_article(body: str) -> None:
    page = _page(body)
    try:
        candidates = build_candidates(page)
    except InputError:
        return  # no visible text at all: refused as such before any title is needed
    titles = candidates.metadata_candidates.title
    assert len(titles) == 1
    assert titles[0].source.startswith("fallback:")
    assert 0 < len(titles[0].text) <= MAX_TEXT
    assert any(titles[0].text in normalize_space(b.text) for b in candidates.blocks)
    try:
        extract_article(page, source="generated")
    except NoValidProposal as lost:
        assert lost.reason != "no_title_candidate"
        assert lost.reason in ("content_too_short", "no_body_blocks"), lost.reason


@pytest.mark.parametrize("text", ["", "   "])
def test_no_text_no_title(text: str) -> None:
    block = Block(id="b1", type="paragraph", text=text, container_id="c1", extractors=[])
    assert fallback_title([block], limit=MAX_TEXT) is None
