"""Numeric signature and runs: what the repair review refuses to let change."""

from article_runtime.text import word_tokens
from article_runtime.text.numbers import NumericRun, numeric_runs, numeric_signature


def _sig(text: str) -> list[tuple[str, ...]]:
    return numeric_signature(word_tokens(text, keep_spaces=True))


def test_separators_inside_numbers_count() -> None:
    assert _sig("1.500") != _sig("1,500")
    assert _sig("1 500") != _sig("1500")


def test_width_is_presentation_but_superscript_and_fractions_are_not() -> None:
    assert _sig("１２ gols") == _sig("12 gols")
    assert _sig("x²") != _sig("x2")
    assert _sig("½") != _sig("1/2")
    assert _sig("Ⅻ") != _sig("XII")


def test_numbers_hidden_in_words_and_ideographs_are_kept() -> None:
    assert _sig("COVID19") != _sig("COVID20")  # ICU makes it one number token
    assert _sig("三月") == [("3",)]


def test_runs_without_spaces_are_dates_or_scores() -> None:
    text = "venceu 3-1, em 12/05 e 1/2/2024; placar 2 - 0"
    runs = numeric_runs(word_tokens(text, keep_spaces=True))
    assert runs == [
        NumericRun(7, 10, "score"),
        NumericRun(15, 20, "date"),
        NumericRun(23, 31, "date"),
    ]
