"""Library diffs and grapheme edit distance."""

import pytest

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
