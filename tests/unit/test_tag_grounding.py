"""Property tests: a tag is accepted only when every word of it occurs in the blocks it cites
(spec 9.3, 9.4; issue 35 section 4), in languages with and without a stemmer and in scripts
written without spaces.

Evidence and tags are generated apart, from wordfreq's top word lists, never from the runtime's
rule. Which words are absent is decided by their first letter: the evidence is made only of
words whose initial (case and diacritics folded) lies in one half of the language's initials,
absent words start in the other half. The Snowball stemmers used here only strip endings, so
no stemming can make an absent word equal an evidence word (``test_stems_keep_the_initial``
checks that premise over each top list). Unspaced scripts: a word holding a character the
evidence never writes is absent.
"""

from __future__ import annotations

import functools
import unicodedata

import wordfreq
from hypothesis import assume, event, given, settings
from hypothesis import strategies as st

from article_runtime.enrichment.grounding import (
    Evidence,
    is_grounded,
    stemmer_for,
    unsupported_words,
)
from article_runtime.enrichment.harness import validate_enrichment
from article_runtime.enrichment.model import EnrichmentInput, Entity, EvidenceBlock

STEMMED = ("en", "pt", "es", "fr", "de", "it", "sv", "ru", "pl", "fi", "cs", "el")
UNSTEMMED = ("uk", "bg", "he", "ko")  # wordfreq lists them; PyStemmer has no algorithm
LANGUAGES = STEMMED + UNSTEMMED
TOP = 3000


def initial(word: str) -> str:
    """The first letter, case-folded and without diacritics (the oracle's only reading)."""
    decomposed = unicodedata.normalize("NFD", word.casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))[:1]


@functools.cache
def top_words(language: str) -> tuple[str, ...]:
    return tuple(w for w in wordfreq.top_n_list(language, TOP) if w.isalpha() and len(w) >= 2)


@functools.cache
def halves(language: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(evidence words, absent words): the top words split by their initial, alternately."""
    initials = sorted({initial(w) for w in top_words(language)})
    inside = set(initials[::2])
    words = top_words(language)
    return (
        tuple(w for w in words if initial(w) in inside),
        tuple(w for w in words if initial(w) not in inside),
    )


def test_stems_keep_the_initial() -> None:
    """The oracle's premise: stemming never changes a word's folded initial."""
    for language in STEMMED:
        stemmer = stemmer_for(language)
        assert stemmer is not None, language
        for word in top_words(language):
            stem = stemmer.stemWord(word.casefold())
            assert not stem or initial(stem) == initial(word), (language, word, stem)
    assert all(stemmer_for(language) is None for language in UNSTEMMED)


def recase(word: str, how: int) -> str:
    return (word, word.upper(), word.capitalize())[how]


@st.composite
def spaced_case(draw: st.DrawFn) -> tuple[str, list[str], list[str], str]:
    """(language, evidence blocks, present tag words, an absent word)."""
    language = draw(st.sampled_from(LANGUAGES))
    inside, outside = halves(language)
    pool = st.sampled_from(inside)
    blocks = [
        " ".join(draw(st.lists(pool, min_size=3, max_size=12))) + "."
        for _ in range(draw(st.integers(1, 3)))
    ]
    written = [w for block in blocks for w in block.rstrip(".").split(" ")]
    present = [
        recase(word, draw(st.integers(0, 2)))
        for word in draw(st.lists(st.sampled_from(written), max_size=4))
    ]
    return language, blocks, present, draw(st.sampled_from(outside))


@settings(max_examples=300)
@given(spaced_case(), st.integers(0, 4))
def test_a_tag_with_a_word_absent_from_its_evidence_is_refused(
    case: tuple[str, list[str], list[str], str], at: int
) -> None:
    language, blocks, present, absent = case
    words = [*present]
    words.insert(min(at, len(words)), absent)
    tag = " ".join(words)
    assert not is_grounded(tag, blocks, language)
    assert absent in unsupported_words(tag, Evidence(blocks, language))


@settings(max_examples=300)
@given(spaced_case())
def test_a_tag_of_evidence_words_in_any_case_is_accepted(
    case: tuple[str, list[str], list[str], str],
) -> None:
    language, blocks, present, _ = case
    tag = " ".join(present)
    assert is_grounded(tag, blocks, language) == bool(present)


# Scripts without spaces: Japanese and Chinese words from wordfreq, Thai as letter strings.
THAI = [chr(c) for c in range(0x0E01, 0x0E2F)]  # the Thai consonants


@functools.cache
def unspaced_words(language: str) -> tuple[str, ...]:
    if language == "th":
        return ()
    return tuple(w for w in wordfreq.top_n_list(language, TOP) if w.isalpha())


@st.composite
def unspaced_case(draw: st.DrawFn) -> tuple[str, list[str]]:
    language = draw(st.sampled_from(("ja", "zh", "th")))
    if language == "th":
        piece = st.lists(st.sampled_from(THAI), min_size=2, max_size=6).map("".join)
    else:
        piece = st.sampled_from(unspaced_words(language))
    blocks = [
        "".join(draw(st.lists(piece, min_size=2, max_size=8)))
        for _ in range(draw(st.integers(1, 3)))
    ]
    return language, blocks


@settings(max_examples=200)
@given(unspaced_case(), st.data())
def test_an_unspaced_tag_is_accepted_whole_and_refused_with_an_unwritten_character(
    case: tuple[str, list[str]], data: st.DataObject
) -> None:
    language, blocks = case
    block = data.draw(st.sampled_from(blocks))
    assert is_grounded(block, blocks, language)  # a whole block is words in a row
    written = set("".join(blocks))
    if language == "th":
        unwritten = [ch for ch in THAI if ch not in written]
    else:
        unwritten = [ch for ch in "".join(unspaced_words(language)[:500]) if ch not in written]
    if not unwritten:
        return
    odd = data.draw(st.sampled_from(unwritten))
    at = data.draw(st.integers(0, len(block)))
    assert not is_grounded(block[:at] + odd + block[at:], blocks, language)


@settings(max_examples=150)
@given(spaced_case(), st.lists(st.sampled_from([False] * 3 + [True]), min_size=3, max_size=5),
       st.data())  # fmt: skip
def test_no_accepted_answer_holds_a_tag_with_an_absent_word(
    case: tuple[str, list[str], list[str], str], spoiled: list[bool], data: st.DataObject
) -> None:
    """Through the whole harness: whatever else it judges, an answer is valid only when no
    tag holds a word its cited blocks lack."""
    language, blocks, _, absent = case
    inp = EnrichmentInput(
        title="t",
        subtitle=None,
        language=language,
        entity=Entity(qid="Q1", name="x"),
        blocks=[EvidenceBlock(id=f"p{n}", text=text) for n, text in enumerate(blocks, 1)],
    )
    tags: list[dict[str, object]] = []
    seen: set[str] = set()
    for spoil in spoiled:
        block = data.draw(st.sampled_from(inp.blocks))
        words = data.draw(st.lists(st.sampled_from(block.text.rstrip(".").split(" ")),
                                   min_size=1, max_size=3, unique=True))  # fmt: skip
        assume(" ".join(words).casefold() not in seen)
        seen.add(" ".join(words).casefold())
        tags.append({"tag": " ".join([*words, absent] if spoil else words),
                     "evidence_block_ids": [block.id]})  # fmt: skip
    verdict = validate_enrichment({"sentiment": "neutral", "tags": tags}, inp)
    event(f"valid: {verdict.report.valid}; reason: {verdict.report.reason}")
    if verdict.report.valid:
        assert not any(spoiled)
