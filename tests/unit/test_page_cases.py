"""The real-page cases of ``bench.stream_throughput --pages aeb`` (``bench.page_cases``)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bench.page_cases import marked, page_articles
from bench.run import AEB
from tests.support.stream_cases import find_markers, make_articles

MARKER = "ZK7-0042"
# Pieces of HTML, tags of every case and near-miss names, never the marker's letters.
PIECES = st.sampled_from(
    [
        "<p>", "<P>", "<p class='a'>", "<p\n>", "</p>", "<pre>", "<param x>", "<path/>",
        "<title>", "<TITLE lang=en>", "</title>", "<b>", "text ", "é ", ">", "<", "<p",
    ]
)  # fmt: skip


def paragraphs(html: str) -> int:
    """Opening tags named exactly ``p`` with a ``>`` after them, counted by hand."""
    low, count, at = html.lower(), 0, 0
    while (at := low.find("<p", at)) >= 0:
        rest = low[at + 2 : at + 3]
        if (rest == "" or rest in "> \t\r\n/") and low.find(">", at) >= 0:
            count += 1
        at += 2
    return count


@given(st.lists(PIECES, max_size=30))
def test_marking_only_inserts_the_marker(pieces: list[str]) -> None:
    html = "".join(pieces).encode()
    out = marked(html, MARKER)
    assert out.replace(f"{MARKER} ".encode(), b"") == html


@given(st.lists(PIECES, max_size=30))
def test_every_paragraph_and_one_title_are_marked(pieces: list[str]) -> None:
    html = "".join(pieces)
    titles = html.lower().find("<title")
    titled = titles >= 0 and (
        html[titles + 6 : titles + 7] in ("", ">", " ") and html.find(">", titles) >= 0
    )
    out = marked(html.encode(), MARKER).decode()
    assert out.count(MARKER) == paragraphs(html) + int(titled)


def test_synthetic_pages_are_the_stream_cases() -> None:
    assert [c.html for c in page_articles(6, seed=7, pages="synthetic")] == [
        c.html for c in make_articles(6, seed=7)
    ]


@pytest.mark.skipif(not AEB.is_dir(), reason="../shared/bench/aeb is not here")
def test_real_page_cases_answer_through_their_own_marker() -> None:
    cases = page_articles(3, seed=7, pages="aeb")
    assert len({c.article_id for c in cases}) == 3
    for case in cases:
        answers = case.answers  # raises when the tags are not in the article's blocks
        assert find_markers(answers.hygiene_data) == {case.marker}
        assert find_markers(answers.enrichment_data) == {case.marker}
        assert len(case.html) > 10_000  # a real page, not a synthetic one
