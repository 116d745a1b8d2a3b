"""Library diffs and grapheme edit distance."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from article_runtime.text import graphemes, word_tokens
from article_runtime.text.edits import CharChange, char_changes, edit_distance, token_changes


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ("recieve", "receive", 1),
        ("govenrment", "government", 1),
        ("Mueller", "Müller", 2),
        ("ca", "abc", 3),
        ("", "abc", 3),
        ("rápido", "veloz", 6),
    ],
)
def test_damerau_distance(a: str, b: str, expected: int) -> None:
    assert edit_distance(graphemes(a), graphemes(b)) == expected


def test_distance_counts_graphemes_not_code_points() -> None:
    assert edit_distance(graphemes("cafe\u0301"), graphemes("cafe")) == 1
    assert edit_distance(graphemes("🇧🇷x"), graphemes("🇵🇹x")) == 1


def test_char_changes_are_located_in_the_old_text() -> None:
    assert char_changes("fim..", "fim.") == [CharChange(4, 5, ".", "")]
    assert char_changes("abc", "aXc") == [CharChange(1, 2, "b", "X")]
    assert char_changes("ab cd", "aXb cd!") == [
        CharChange(1, 1, "", "X"),
        CharChange(5, 5, "", "!"),
    ]


def test_token_changes_group_runs() -> None:
    old = word_tokens("a gover nment b", keep_spaces=True)
    new = word_tokens("a government b", keep_spaces=True)
    [change] = token_changes(old, new)
    assert [t.text for t in change.removed] == ["gover", " ", "nment"]
    assert [t.text for t in change.added] == ["government"]
    assert change.removed[0].start == 2


def _reference_osa(a: str, b: str) -> int:
    """The textbook table, without the affix cut, to check the cut changes nothing."""
    d = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a) + 1):
        d[i][0] = i
    for j in range(len(b) + 1):
        d[0][j] = j
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
    return d[len(a)][len(b)]


@settings(max_examples=1500)
@given(st.text(alphabet="abc", max_size=12), st.text(alphabet="abc", max_size=12))
def test_cutting_common_affixes_keeps_the_distance(a: str, b: str) -> None:
    assert edit_distance(list(a), list(b)) == _reference_osa(a, b)


def test_a_typo_inside_a_huge_token_costs_a_small_table() -> None:
    token = "a" * 50_000 + "teh" + "b" * 50_000
    fixed = "a" * 50_000 + "the" + "b" * 50_000
    assert edit_distance(list(token), list(fixed)) == 1
