"""Quoted spans pair by flanking and category, across quoting conventions."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from article_runtime.text import word_tokens
from article_runtime.text.chars import is_quote_mark
from article_runtime.text.quotes import quote_marks, quoted_spans


def _quoted(text: str) -> list[str]:
    return [text[s.start : s.end] for s in quoted_spans(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Ele disse “sim” e saiu.", ["“sim”"]),
        ("Er sagte „ja“ und ging.", ["„ja“"]),
        ("Elle a dit « oui » puis.", ["« oui »"]),
        ("Han sa ”ja” och gick.", ["”ja”"]),
        ("彼は「東京で会った」と言った。", ["「東京で会った」"]),
        ('He said "yes," then left.', ['"yes,"']),
        ("« Il a dit “non” hier »", ["« Il a dit “non” hier »", "“non”"]),
    ],
)
def test_quotes_pair_in_each_convention(text: str, expected: list[str]) -> None:
    assert _quoted(text) == expected


def test_apostrophes_inside_words_are_not_quotes() -> None:
    assert _quoted("Don't stop, l'eau est froide.") == []


def test_an_unclosed_quote_runs_to_the_end_and_a_stray_closer_from_the_start() -> None:
    assert _quoted("Ele disse: “Vamos continuar") == ["“Vamos continuar"]
    assert _quoted("continuou ele.” Depois saiu") == ["continuou ele.”"]


# --- one segmentation pass finds the marks the token-by-token definition finds ----------------


PIECES = (
    '"',
    "'",
    "“",
    "”",
    "«",
    "»",
    "„",
    "「",
    "」",
    "’",
    "don't",
    "l'eau",
    "a",
    "b",
    " ",
    ",",
    ".",
    "東",
    "‹",
    "›",
    "״",
    "א",
)


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(
        st.lists(st.sampled_from(PIECES), max_size=30).map("".join),
        st.text(max_size=30),
    )
)
def test_quote_marks_are_the_quotation_marks_outside_words(text: str) -> None:
    tokens = word_tokens(text, keep_spaces=True)
    expected = [
        t.start + i
        for t in tokens
        if t.kind == "none"
        for i, ch in enumerate(t.text)
        if is_quote_mark(ch)
    ]
    assert quote_marks(text) == expected
