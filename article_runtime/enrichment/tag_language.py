"""Is a tag in the article's language? Judged from the article itself, never from word lists.

Two tests, both language-agnostic (spec 3.8):

* script: every letter of the tag belongs to a script the body's letters use (digits,
  punctuation and combining marks count for no script). English tags on a Japanese article
  fail here, unless the article itself writes Latin letters.
* grounding: at least half of the tag's words (rounded up, so at least one) occur in the
  tag's own evidence blocks. Words are ICU word segments (letters, numbers, kana,
  ideographs). A word from a script written without spaces (Han, kana, Thai: Line_Break ID,
  SA or CJ) is searched as a substring of the evidence text, since dictionary segmentation
  may cut it differently out of context; any other word must equal an evidence word. Both
  comparisons use an ICU collator at PRIMARY strength in the article's locale, so case,
  accents and width fold but punctuation inside a word counts. An English tag on a
  Portuguese article fails here: its words are not the article's words.
"""

from __future__ import annotations

from collections.abc import Sequence

from article_runtime.text import words
from article_runtime.text.collation import collation_key, occurs_in
from article_runtime.text.scripts import is_unspaced, letter_scripts


def foreign_scripts(tag: str, body_scripts: frozenset[str]) -> frozenset[str]:
    """The scripts of ``tag``'s letters that the article body never uses."""
    return letter_scripts(tag) - body_scripts


def grounded_words(tag: str, evidence: Sequence[str], language: str | None) -> tuple[int, int]:
    """``(grounded, total)``: how many of the tag's words occur in the evidence texts."""
    locale = language or "root"
    text = "\n".join(evidence)
    keys = {collation_key(w, language, ignore_punctuation=False) for w in words(text, locale)}
    tag_words = words(tag, locale)
    grounded = sum(
        occurs_in(w, text, language)
        if is_unspaced(w)
        else collation_key(w, language, ignore_punctuation=False) in keys
        for w in tag_words
    )
    return grounded, len(tag_words)


def is_grounded(tag: str, evidence: Sequence[str], language: str | None) -> bool:
    """At least half of the tag's words, and at least one, occur in its evidence."""
    grounded, total = grounded_words(tag, evidence, language)
    return grounded >= 1 and 2 * grounded >= total
