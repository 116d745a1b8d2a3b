"""The name heuristic: capitals that sentence position does not explain."""

from article_runtime.text import word_tokens
from article_runtime.text.names import name_starts
from article_runtime.text.vocabulary import Vocabulary


def _names(text: str, locale: str = "root") -> list[str]:
    tokens = word_tokens(text, locale, keep_spaces=True)
    starts = name_starts(tokens, text, locale)
    return [t.text for t in tokens if t.start in starts]


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
