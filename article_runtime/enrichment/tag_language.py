"""Are the tags in the article's language? Never judged from word lists.

Two tests, both language-agnostic (spec 3.8, 9.3); whether the article supports a tag is
``grounding``'s question:

* script: every letter of the tag belongs to a script the body's letters use (digits,
  punctuation and combining marks count for no script). English tags on a Japanese article
  fail here, unless the article itself writes Latin letters.
* language: the project's statistical detector (py3langid) reads all tags together (one tag
  is too short to identify) and refuses them when another language is at least
  ``MISMATCH_RATIO`` times likelier than the article's. Capitalised words get no exemption
  ("Dam Collapse" reads as English); only names are left out of what it reads, since names
  read as their origin's language ("Goldman Sachs" on a Portuguese article), so a tag made
  only of names is language-neutral. A word is a name here when its evidence writes it
  exactly so and the blocks the answer cites write it as a name (``names.name_keys``: a
  capital no sentence start explains, or one inside the word; headings are left out, where
  title case capitalises every word). The other words of a tag stay: ``de`` of "Folha de
  S.Paulo" is read, and "Vale dam collapsed" is read as "dam collapsed". Text in Han
  characters alone is not identified: the same characters write Chinese and Japanese.
"""

from __future__ import annotations

from collections.abc import Sequence

from article_runtime.candidates.language import detect_languages
from article_runtime.text import words
from article_runtime.text.names import name_keys, word_key
from article_runtime.text.scripts import letter_scripts
from article_runtime.text.segments import segments

__all__ = ["MISMATCH_RATIO", "cited_names", "foreign_language", "foreign_scripts", "without_names"]

MISMATCH_RATIO = 3.0
"""How much likelier another language must be. Measured on tag sets: English tags on Portuguese
and French articles 16 and 3.8; the article's own tags read as a neighbour (Galician for
Portuguese or Spanish) at most 1.9."""
MIN_LETTERS = 12  # fewer letters than this in all tags together say nothing
_UNIDENTIFIABLE = frozenset({"Hani"})  # scripts shared by several languages letter for letter
_LETTER_MIN = 200  # ICU word rule status of letters, kana and ideographs


def cited_names(blocks: Sequence[str], language: str | None) -> frozenset[str]:
    """The keys of the words that the cited text blocks (headings left out) write as names."""
    return name_keys("\n".join(blocks), language or "root")


def without_names(
    tag: str, evidence: Sequence[str], names: frozenset[str], language: str | None
) -> str:
    """``tag`` without the names its evidence writes, for the detector to read."""
    locale = language or "root"
    written = set(words("\n".join(evidence), locale))
    kept: list[str] = []
    start = 0
    for begin, end, status in segments(tag, locale):
        word = tag[begin:end]
        if status >= _LETTER_MIN and word in written and word_key(word) in names:
            kept.append(tag[start:begin])
            start = end
    kept.append(tag[start:])
    return " ".join(" ".join(kept).split())


def foreign_language(tags: Sequence[str], language: str | None) -> str | None:
    """The language the tags are written in when the detector finds it clearly not the
    article's; None when they match, or when it cannot tell."""
    text = " ".join(tags)
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
