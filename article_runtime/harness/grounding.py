"""Grounding of the assembled Markdown (spec 8.1 step 9, 8.3).

Every word in the Markdown must come from the candidate texts or from a target text with its
accepted repairs applied; every URL from a candidate link or image. Words are ICU word-break
segments with a letter, number, kana or ideographic rule status, compared after NFC. A
Markdown line that is a source line verbatim (the common case) needs no segmentation.
"""

from __future__ import annotations

from collections.abc import Iterable

from article_runtime.harness import markdown as md
from article_runtime.text import nfc, words

UNGROUNDED_WORD = "ungrounded_word"
UNGROUNDED_URL = "ungrounded_url"


def _words(texts: Iterable[str]) -> set[str]:
    """Word segments of all ``texts`` at once: a line break is always a word boundary."""
    return set(words("\n".join(texts)))


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
    sources = [nfc(text) for text in source_texts]
    source_lines = {line.strip() for text in sources for line in text.split("\n")}
    unmatched = [
        line for line in nfc(md.unescape(prose)).split("\n") if line.strip() not in source_lines
    ]
    if not unmatched:  # every line is a source line verbatim: nothing to tokenize
        return None
    for word in sorted(_words(unmatched) - _words(sources)):
        return UNGROUNDED_WORD, word
    return None
