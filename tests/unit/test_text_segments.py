"""ICU segmentation: offsets are Python offsets even past the BMP; numbers stay whole."""

from article_runtime.text import graphemes, word_tokens


def test_offsets_survive_astral_characters() -> None:
    text = "ok 😀 João 3-1"
    tokens = word_tokens(text)
    for token in tokens:
        assert text[token.start : token.end] == token.text
    assert [t.text for t in tokens if t.kind == "letter"] == ["ok", "João"]


def test_numbers_and_dates_are_single_tokens() -> None:
    kinds = {t.text: t.kind for t in word_tokens("em 12.05.2024 marcou 4,5")}
    assert kinds["12.05.2024"] == "number"
    assert kinds["4,5"] == "number"


def test_graphemes_keep_combining_marks_and_flags_whole() -> None:
    assert graphemes("e\u0301🇧🇷a") == ["e\u0301", "🇧🇷", "a"]
