"""Text primitives on ICU: normalization, word and grapheme segmentation. No regular expressions."""

from article_runtime.text.segments import (
    Token,
    TokenKind,
    graphemes,
    nfc,
    normalize_space,
    word_tokens,
)

__all__ = ["Token", "TokenKind", "graphemes", "nfc", "normalize_space", "word_tokens"]
