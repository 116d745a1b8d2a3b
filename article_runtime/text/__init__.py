"""Text primitives on ICU: normalization, word and grapheme segmentation. No regular expressions."""

from article_runtime.text.segments import (
    Token,
    TokenKind,
    count_words,
    graphemes,
    nfc,
    normalize_space,
    word_tokens,
    words,
)

__all__ = [
    "Token",
    "TokenKind",
    "count_words",
    "graphemes",
    "nfc",
    "normalize_space",
    "word_tokens",
    "words",
]
