"""The candidate set never deletes text: every visible text block of a generated article
page is a candidate with its own ID, repeats included (issue 35, section 3).

Pages are generated from their own definition of a block (an element that starts a line of
text: a paragraph, a heading, a list item, a quote, a cell of a layout table, a run of text
in a ``div`` up to a ``<br>``), with inline markup, soft hyphens and runs of white space
inside, and repeats drawn on purpose. The expected text of each block is the generator's
own: its words joined by one space, soft hyphens kept as written. Blocks are
prose-sized (at least 30 characters, no links), as the builder's chrome pruning leaves such
blocks alone wherever they stand.
"""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from article_runtime.candidates import build_candidates

SOFT_HYPHEN = "\u00ad"
_LETTERS = st.sampled_from("abcdefghijklmnopqrstuvwxyzäöüßéèçñ")
_WORD = st.lists(_LETTERS, min_size=2, max_size=9).map("".join)
_SPACE = st.sampled_from([" ", "  ", "\n", "\t ", " \n  "])


@st.composite
def _sentence(draw: st.DrawFn) -> tuple[str, str]:
    """(the block's expected text, its HTML): words with white space, inline markup and
    soft hyphens between letters."""
    words = draw(st.lists(_WORD, min_size=5, max_size=14).filter(lambda w: len(" ".join(w)) >= 30))
    for n, word in enumerate(words):
        if draw(st.booleans()) and len(word) > 3:  # kept as written: a unicode repair's job
            cut = draw(st.integers(1, len(word) - 1))
            words[n] = word[:cut] + SOFT_HYPHEN + word[cut:]
    expected = " ".join(words) + "."
    html_words = []
    for word in words:
        wrap = draw(st.sampled_from(["", "b", "em", "span"]))
        html_words.append(f"<{wrap}>{word}</{wrap}>" if wrap else word)
    html = draw(_SPACE).join(html_words) + "."
    return expected, html


_SHAPES = ["<p>{}</p>", "<h2>{}</h2>", "<blockquote><p>{}</p></blockquote>", "<div>{}<br></div>"]


@st.composite
def _page(draw: st.DrawFn) -> tuple[list[str], str]:
    """Expected block texts in order, and the page holding them."""
    pool = draw(st.lists(_sentence(), min_size=1, max_size=6))
    picks = draw(st.lists(st.sampled_from(pool), min_size=2, max_size=14))  # repeats likely
    expected: list[str] = []
    parts: list[str] = []
    index = 0
    while index < len(picks):
        kind = draw(st.sampled_from(["shape", "list", "table"]))
        if kind == "list":
            items = picks[index : index + draw(st.integers(1, 4))]
            tag = draw(st.sampled_from(["ul", "ol"]))
            parts.append(f"<{tag}>" + "".join(f"<li>{h}</li>" for _, h in items) + f"</{tag}>")
        elif kind == "table":  # a layout table: a block nested in its cells
            items = picks[index : index + draw(st.integers(1, 3))]
            cells = "".join(f"<td><div>{h}</div></td>" for _, h in items)
            parts.append(f"<table><tr>{cells}</tr></table>")
        else:
            items = picks[index : index + 1]
            parts.append(draw(st.sampled_from(_SHAPES)).format(items[0][1]))
        expected.extend(text for text, _ in items)
        index += len(items)
    body = "\n".join(parts)
    return expected, f"<html><head></head><body><article>{body}</article></body></html>"


@settings(max_examples=150, deadline=None)
@given(page=_page())
def test_every_visible_text_block_is_a_candidate_repeats_included(
    page: tuple[list[str], str],
) -> None:
    expected, html = page
    candidates = build_candidates(html, url="https://news.example.org/a/story")
    texts = [block.text for block in candidates.blocks]
    assert Counter(texts) == Counter(expected)
    assert texts == expected  # in document order
    assert len({block.id for block in candidates.blocks}) == len(expected)
