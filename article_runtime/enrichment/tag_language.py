"""Are the tags in the article's language, and grounded? Never judged from word lists.

Three tests, all language-agnostic (spec 3.8, 9.3):

* script: every letter of the tag belongs to a script the body's letters use (digits,
  punctuation and combining marks count for no script). English tags on a Japanese article
  fail here, unless the article itself writes Latin letters.
* language: the project's statistical detector (py3langid) reads all tags together (one tag
  is too short to identify), leaving out tags whose every word is capitalized (names read
  as their origin's language: "Müller" is German in any article), and refuses them when
  another language is at least ``MISMATCH_RATIO`` times likelier than the article's. Text in
  Han characters alone is not identified: the same characters write Chinese and Japanese.
* grounding: at least half of the tag's words (rounded up, so at least one) occur in the
  tag's own evidence blocks (spec 9.3: tags supported by evidence). Words are ICU word
  segments (letters, numbers, kana, ideographs). A word from a script written without
  spaces (Han, kana, Thai: Line_Break ID, SA or CJ) is searched as a substring of the
  evidence text, since dictionary segmentation may cut it differently out of context; any
  other word must equal an evidence word. Both comparisons use an ICU collator at PRIMARY
  strength in the article's locale, so case, accents and width fold but punctuation inside a
  word counts. This is support, not language: a tag of the article's language that its
  evidence does not say fails here.
"""

from __future__ import annotations

from collections.abc import Sequence

from article_runtime.candidates.language import detect_languages
from article_runtime.text import words
from article_runtime.text.collation import collation_key, occurs_in
from article_runtime.text.scripts import is_unspaced, letter_scripts

MISMATCH_RATIO = 3.0
"""How much likelier another language must be. Measured on tag sets: English tags on Portuguese
and French articles 16 and 3.8; the article's own tags read as a neighbour (Galician for
Portuguese or Spanish) at most 1.9."""
MIN_LETTERS = 12  # fewer letters than this in all tags together say nothing
_UNIDENTIFIABLE = frozenset({"Hani"})  # scripts shared by several languages letter for letter


def _is_name(tag: str) -> bool:
    """Every word starts with a capital: a name (scripts without case never are)."""
    parts = tag.split()
    return bool(parts) and all(part[:1].isupper() for part in parts)


def foreign_language(tags: Sequence[str], language: str | None) -> str | None:
    """The language the tags are written in when the detector finds it clearly not the
    article's; None when they match, or when it cannot tell."""
    text = " ".join(tag for tag in tags if not _is_name(tag))
    if language is None or letter_scripts(text) <= _UNIDENTIFIABLE:
        return None
    if sum(ch.isalpha() for ch in text) < MIN_LETTERS:
        return None
    ranked = detect_languages(text)
    if not ranked or language not in ranked:
        return None  # a language the detector does not know: no verdict
    top, likelihood = next(iter(ranked.items()))
    if top != language and likelihood >= MISMATCH_RATIO * ranked[language]:
        return top
    return None


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
