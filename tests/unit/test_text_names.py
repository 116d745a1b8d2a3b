"""The name heuristic: capitals that sentence position does not explain."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from article_runtime.text import word_tokens
from article_runtime.text.names import has_upper, inner_upper, name_keys, word_key
from article_runtime.text.segments import Token, graphemes
from article_runtime.text.sentences import sentence_bounds
from article_runtime.text.vocabulary import Vocabulary


def _names(text: str, locale: str = "root") -> list[str]:
    keys = name_keys(text, locale)
    tokens = word_tokens(text, locale, keep_spaces=True)
    return [t.text for t in tokens if t.kind == "letter" and word_key(t.text) in keys]


def test_mid_sentence_capitals_and_inner_capitals_are_names() -> None:
    assert _names("O técnico João Silva falou. Depois a NASA e o iPhone.") == [
        "João",
        "Silva",
        "NASA",
        "iPhone",
    ]


def test_a_lowercase_spelling_of_a_name_used_elsewhere_is_protected() -> None:
    assert _names("Ele viu João. Depois joão saiu.") == ["João", "joão"]


def test_sentence_starts_are_not_names_by_themselves() -> None:
    assert _names("Governo falou. Ontem choveu.") == []


def test_uncased_scripts_get_no_name_protection() -> None:
    assert _names("彼は東京で田中さんに会った。", "ja") == []


def test_vocabulary_counts_distinct_sentences_once() -> None:
    vocabulary = Vocabulary(["Govenrment acts", "Govenrment acts", "The government acted."])
    assert vocabulary.count("govenrment") == 1
    assert vocabulary.count("GOVERNMENT") == 1


# --- the one-pass reading agrees with the token-by-token definition --------------------------


def _oracle(tokens: list[Token], text: str, locale: str) -> set[int]:
    """The definition, token by token: a capital no sentence start explains, an inner
    capital, or the key of such a word."""
    words = [t for t in tokens if t.kind != "none"]
    initial: set[int] = set()
    index = 0
    for start in sentence_bounds(text, locale):
        while index < len(words) and words[index].start < start:
            index += 1
        if index < len(words):
            initial.add(words[index].start)
    letters = [t for t in tokens if t.kind == "letter"]

    def inner(text: str) -> bool:
        return any(ch.isupper() for ch in "".join(graphemes(text)[1:]))

    names = {
        t.start
        for t in letters
        if inner(t.text) or (any(ch.isupper() for ch in t.text) and t.start not in initial)
    }
    capitalized = {word_key(t.text) for t in letters if t.start in names}
    names.update(t.start for t in letters if word_key(t.text) in capitalized)
    return names


PIECES = (
    "Ana",
    "ana",
    "NASA",
    "iPhone",
    "ǅemal",
    "Ǆ",
    "𝐀bc",
    "Éva",
    "e\u0301Va",
    "東京",
    " ",
    ". ",
    "? ",
    "! ",
    "\n",
    "“",
    "”",
    "etc. ",
    "U.S. ",
    "3. ",
    "a",
    "The",
    "the",
    "ß",
    "İz",
)


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    st.one_of(
        st.lists(st.sampled_from(PIECES), max_size=30).map("".join),
        st.text(st.characters(categories=["L", "Zs", "P", "M", "Nd"]), max_size=40),
    ),
    st.sampled_from(["root", "en", "pt", "de", "tr"]),
)
def test_name_keys_name_exactly_the_words_the_definition_names(text: str, locale: str) -> None:
    tokens = word_tokens(text, locale, keep_spaces=True)
    keys = name_keys(text, locale)
    found = {t.start for t in tokens if t.kind == "letter" and word_key(t.text) in keys}
    assert found == _oracle(tokens, text, locale)


@given(st.text(max_size=12))
def test_the_fast_case_tests_agree_with_the_character_tests(word: str) -> None:
    assert has_upper(word) == any(ch.isupper() for ch in word)
    assert inner_upper(word) == any(ch.isupper() for ch in "".join(graphemes(word)[1:]))
