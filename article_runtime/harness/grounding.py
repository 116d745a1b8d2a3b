"""Grounding of the assembled Markdown (spec 8.1 step 9, 8.3).

Every word in the Markdown must come from the candidate texts or from a target text with its
accepted repairs applied; every URL from a candidate link or image. Words are ICU word-break
segments with a letter, number, kana or ideographic rule status, compared after NFC.
"""

from __future__ import annotations

from collections.abc import Iterable

from article_runtime.harness import markdown as md
from article_runtime.text import nfc, word_tokens

UNGROUNDED_WORD = "ungrounded_word"
UNGROUNDED_URL = "ungrounded_url"


def _words(text: str) -> set[str]:
    return {nfc(t.text) for t in word_tokens(text) if t.kind != "none"}


def check_grounding(
    markdown: str, source_texts: Iterable[str], source_urls: Iterable[str]
) -> tuple[str, str] | None:
    """None when grounded, else ``(reason, offending item)`` for the first violation.

    ``source_texts``: the kept candidates' texts plus repaired target texts;
    ``source_urls``: the kept link hrefs and image srcs.
    """
    prose, targets = md.split_targets(markdown)
    allowed_urls = {md.escape_url(url) for url in source_urls}
    for target in targets:
        if target not in allowed_urls:
            return UNGROUNDED_URL, target
    vocabulary: set[str] = set()
    for text in source_texts:
        vocabulary |= _words(text)
    for word in _words(md.unescape(prose)):
        if word not in vocabulary:
            return UNGROUNDED_WORD, word
    return None
