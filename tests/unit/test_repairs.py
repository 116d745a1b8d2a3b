"""Repair review (spec 7, 8.2, 8.3, 11.2): the cases the spec says must pass or must fail.

Every expected reason below is written by hand from the rule it exercises.
"""

from __future__ import annotations

import pytest

from article_runtime.errors import ArticleRuntimeError
from article_runtime.harness import repair_checks
from article_runtime.harness.repairs import ReviewedRepair, apply_repairs, review_repairs
from article_runtime.model.proposal import RepairCategory
from tests.factories import mojibake, repair

PT = {
    "p1": (
        f"A prefeitura de {mojibake('São Paulo')} anunciou o plano ontem. O trânsito ficou "
        "rápido.. O time venceu por 3-1 em 12.05.2024, diante de 1.500 torcedores, e chegou a "
        "2:0 no intervalo. A gente viu tudo."
    ),
    "p2": (
        "Segundo o técnico João Silva, o resultado foi um fracasso. Ele disse: “Foi um jogo "
        "difícli,, mas justo” e saiu,, depois. O presidente falou com a gente ontem. Fim?."
    ),
    "p3": "A inform\u200bação chegou ao brasil e Ⅻ equipes x² responderam. Cafe\u0301 forte.",
    "title": "Prefeitura anuncia plano",
}
EN = {
    "e1": "The govenrment said it would recieve the report  on Monday. Officials form a panel.",
    "e2": "A spokesman for the government declined to comment. The gover nment plan , he said.",
    "e3": "We will decide in the form of a vote. Mueller said the panel met.",
}
DE = {"d1": "Der Trainer Mueller sagte in Mu\u0308nchen, das Spiel sei hart gewesen."}
ES = {"s1": "El gobier\u00adno anunció el plan. La gente estaba contenta."}
FR = {"f1": f"Le {mojibake('café était fermé', 'latin-1')} ce matin. Elle a dit « oui » , puis."}
RU = {"r1": "Министр сказал, что сегодян решение примут. Москва ждёт."}
EL = {"g1": "Ο υπουργός είπε ότι η κυβρένηση θα αποφασίσει στην Αθήνα."}
JA = {"j1": "「東京\u200bで会った」と彼は言った。。大阪の天気は晴れ。"}
AR = {"a1": "قال الوزير ﻣﺮﺣﺒﺎ للجميع."}

ALL: dict[str, dict[str, str]] = {
    "pt": PT,
    "en": EN,
    "de": DE,
    "es": ES,
    "fr": FR,
    "ru": RU,
    "el": EL,
    "ja": JA,
    "ar": AR,
}

# (locale, target, original, replacement, category, expected reason)
CASES: list[tuple[str, str, str, str, RepairCategory, str]] = [
    # --- must be accepted -----------------------------------------------------------------
    ("pt", "p1", mojibake("São Paulo"), "São Paulo", "encoding", "accepted_encoding"),
    (
        "fr",
        "f1",
        mojibake("café était fermé", "latin-1"),
        "café était fermé",
        "encoding",
        "accepted_encoding",
    ),
    ("pt", "p3", "inform\u200bação", "informação", "unicode", "accepted_unicode"),
    ("pt", "p3", "Cafe\u0301", "Café", "unicode", "accepted_unicode"),
    ("es", "s1", "gobier\u00adno", "gobierno", "unicode", "accepted_unicode"),
    ("de", "d1", "Mu\u0308nchen", "München", "unicode", "accepted_unicode"),
    ("ja", "j1", "東京\u200bで", "東京で", "unicode", "accepted_unicode"),
    ("en", "e2", "gover nment", "government", "spacing", "accepted_spacing"),
    ("en", "e2", "plan ,", "plan,", "spacing", "accepted_spacing"),
    ("en", "e1", "report  on", "report on", "spacing", "accepted_spacing"),
    ("fr", "f1", "» ,", "»,", "spacing", "accepted_spacing"),
    ("pt", "p2", "saiu,,", "saiu,", "punctuation_corruption", "accepted_punctuation_corruption"),
    ("pt", "p2", "saiu,,", "saiu,", "punctuation_corruption", "accepted_punctuation_corruption"),
    ("en", "e1", "govenrment", "government", "obvious_typo", "accepted_obvious_typo"),
    # misspellings common enough to be in frequency lists, which a dictionary rejects
    ("en", "e1", "recieve", "receive", "obvious_typo", "accepted_obvious_typo"),
    ("el", "g1", "κυβρένηση", "κυβέρνηση", "obvious_typo", "accepted_obvious_typo"),
    ("ru", "r1", "сегодян", "сегодня", "obvious_typo", "accepted_obvious_typo"),
    # --- must be rejected: meaning changes (spec 11.2) ------------------------------------
    ("pt", "p1", "rápido", "veloz", "obvious_typo", "typo_too_large"),  # synonym
    ("pt", "p2", "fracasso", "revés", "obvious_typo", "typo_too_large"),  # tone
    (
        "pt",
        "p1",
        "anunciou o plano ontem",
        "divulgou ontem o plano",
        "obvious_typo",
        "not_single_word_typo",
    ),  # paraphrase
    (
        "pt",
        "title",
        "anuncia plano",
        "anuncia novo plano",
        "spacing",
        "not_spacing_only",
    ),  # title "improvement"
    (
        "pt",
        "p2",
        "presidente",
        "vice-presidente",
        "obvious_typo",
        "not_single_word_typo",
    ),  # factual correction
    ("de", "d1", "Mueller", "Müller", "obvious_typo", "protected_name"),
    ("en", "e3", "Mueller", "Muller", "obvious_typo", "real_word_swap"),  # sentence start
    ("pt", "p2", "João", "Joao", "obvious_typo", "real_word_swap"),
    ("pt", "p2", "João", "Joao", "unicode", "not_unicode_fix"),
    ("el", "g1", "Αθήνα", "Αθηνα", "obvious_typo", "real_word_swap"),
    ("ru", "r1", "Москва", "Масква", "obvious_typo", "real_word_swap"),  # sentence start
    ("pt", "p1", "3-1", "3-2", "obvious_typo", "protected_score"),
    ("pt", "p1", "2:0", "2-0", "punctuation_corruption", "protected_score"),
    ("pt", "p1", "12.05.2024", "13.05.2024", "obvious_typo", "protected_date"),
    ("pt", "p1", "1.500", "1.600", "obvious_typo", "protected_number"),
    ("pt", "p1", "1.500 ", "1,500 ", "punctuation_corruption", "protected_number"),
    ("pt", "p3", "Ⅻ", "XII", "unicode", "protected_number"),
    ("pt", "p3", "x²", "x2", "unicode", "protected_number"),
    ("pt", "p2", "difícli", "difícil", "obvious_typo", "protected_quotation"),
    ("pt", "p2", "difícli,,", "difícli,", "punctuation_corruption", "protected_quotation"),
    ("pt", "p2", "jogo difícli", "partida difícil", "obvious_typo", "protected_quotation"),
    ("pt", "p2", "disse: “Foi", "disse: Foi", "punctuation_corruption", "protected_quotation"),
    # --- must be rejected: wrong category or not a defect ---------------------------------
    ("pt", "p1", mojibake("São Paulo"), "São Paulo", "obvious_typo", "not_single_word_typo"),
    ("pt", "p1", mojibake("São Paulo"), "São Paulo", "spacing", "not_spacing_only"),
    ("pt", "p1", mojibake("São Paulo"), "São Paulo", "unicode", "not_unicode_fix"),
    ("pt", "p1", mojibake("São Paulo"), "San Paulo", "encoding", "encoding_fix_mismatch"),
    ("pt", "p2", "Silva", "Sílva", "encoding", "not_mojibake"),
    ("en", "e2", "gover nment", "governmant", "spacing", "not_spacing_only"),
    ("pt", "p1", "A gente", "Agente", "spacing", "spacing_changes_words"),
    ("pt", "p2", "Fim?.", "Fim.", "punctuation_corruption", "sentence_terminal_changed"),
    ("pt", "p1", "rápido..", "rápido!", "punctuation_corruption", "punctuation_introduced"),
    ("pt", "p2", "Fim?.", "Fim", "punctuation_corruption", "sentence_terminal_changed"),
    # tone: doubled terminals and ellipses are the writer's (spec 7.4, 11.2)
    ("pt", "p1", "rápido..", "rápido.", "punctuation_corruption", "sentence_terminal_changed"),
    ("ja", "j1", "。。", "。", "punctuation_corruption", "sentence_terminal_changed"),
    ("pt", "p1", "rápido..", "rápida.", "punctuation_corruption", "letters_or_numbers_changed"),
    ("en", "e3", "form of", "from of", "obvious_typo", "real_word_swap"),
    ("pt", "p3", "brasil", "Brasil", "obvious_typo", "case_changed"),
    ("ja", "j1", "大阪", "大坂", "obvious_typo", "typo_not_alphabetic"),
    ("en", "e3", "panel met", "panle mte", "obvious_typo", "not_single_word_typo"),
    ("ru", "r1", "решение", "рещенеи", "obvious_typo", "real_word_swap"),
    # --- must be rejected: the conservative answer where evidence is thin ------------------
    ("ar", "a1", "ﻣﺮﺣﺒﺎ", "مرحبا", "unicode", "not_unicode_fix"),  # presentation forms stay
    # --- must be rejected: location --------------------------------------------------------
    ("pt", "p1", "o", "0", "obvious_typo", "original_ambiguous"),
    ("pt", "p1", "Rio de Janeiro", "Rio", "spacing", "original_not_found"),
    ("pt", "nope", "plano", "plano", "spacing", "unknown_target"),
    ("pt", "p1", "plano", "plano", "spacing", "no_change"),
    ("pt", "p3", "Cafe", "Café", "unicode", "splits_character"),
]


@pytest.mark.parametrize(
    ("locale", "target", "original", "replacement", "category", "expected"),
    CASES,
    ids=[f"{c[0]}-{c[4]}-{c[2]}->{c[3]}" for c in CASES],
)
def test_each_repair_gets_its_reason(
    locale: str,
    target: str,
    original: str,
    replacement: str,
    category: RepairCategory,
    expected: str,
) -> None:
    proposed = repair(target, original, replacement, category)
    [reviewed] = review_repairs([proposed], ALL[locale], locale=locale)
    assert reviewed.reason == expected
    assert reviewed.accepted is expected.startswith("accepted_")
    assert reviewed.repair is proposed


def test_start_is_the_python_offset_after_emoji() -> None:
    text = "🎉🎉 Festa  em Lisboa"
    [reviewed] = review_repairs([repair("b", "Festa  em", "Festa em", "spacing")], {"b": text})
    assert reviewed.start == 3  # two astral emoji are two Python characters, then a space


def test_one_result_per_repair_in_input_order_and_overlaps_rejected() -> None:
    repairs = [
        repair("e1", "report  on", "report on", "spacing"),
        repair("e1", "report  ", "report ", "spacing"),  # overlaps the accepted one
        repair("missing", "x", "y", "spacing"),
        repair("e1", "govenrment", "government", "obvious_typo"),
    ]
    reviewed = review_repairs(repairs, EN, locale="en")
    assert [r.repair for r in reviewed] == repairs
    assert [r.reason for r in reviewed] == [
        "accepted_spacing",
        "overlapping_repair",
        "unknown_target",
        "accepted_obvious_typo",
    ]


def test_a_repair_at_offset_0_overlaps_another_there() -> None:
    """The same fix of the block's first character proposed twice: applied once."""
    text = {"b": "\u200bgover nment said it."}
    debris = repair("b", "\u200b", "", "unicode")
    reviewed = review_repairs([debris, debris], text, locale="en")
    assert [r.reason for r in reviewed] == ["accepted_unicode", "overlapping_repair"]
    assert apply_repairs(text["b"], reviewed) == "gover nment said it."


def test_an_original_found_twice_overlapping_is_ambiguous() -> None:
    """``,,`` in a run of three commas names either pair: the model must say which."""
    text = {"b": "Eles se encontraram,,, ontem."}
    [reviewed] = review_repairs([repair("b", ",,", ",", "punctuation_corruption")], text)
    assert reviewed.reason == "original_ambiguous"
    assert apply_repairs(text["b"], [reviewed]) == text["b"]


def test_overlap_only_counts_accepted_repairs() -> None:
    repairs = [
        repair("e1", "govenrment", "gov", "obvious_typo"),  # rejected: blocks nothing
        repair("e1", "govenrment", "government", "obvious_typo"),
    ]
    reasons = [r.reason for r in review_repairs(repairs, EN, locale="en")]
    assert reasons == ["typo_too_large", "accepted_obvious_typo"]


def test_a_repair_may_not_cross_a_link_edge() -> None:
    text = "Leia a reportagem  completa aqui."
    proposed = repair("b", "reportagem  completa", "reportagem completa", "spacing")
    edges = {"b": [7, 17]}  # the anchor is "reportagem"
    [crossing] = review_repairs([proposed], {"b": text}, boundaries=edges)
    assert crossing.reason == "crosses_link_boundary"
    [inside] = review_repairs([proposed], {"b": text}, boundaries={"b": [0, 7]})
    assert inside.reason == "accepted_spacing"


def test_a_repair_may_end_or_start_at_a_link_edge() -> None:
    text = "Leia a reportagem  completa aqui."
    proposed = repair("b", "reportagem  completa", "reportagem completa", "spacing")
    end = text.index("completa") + len("completa")
    for edges in ([end, len(text) - 1], [0, text.index("reportagem")]):
        [reviewed] = review_repairs([proposed], {"b": text}, boundaries={"b": edges})
        assert reviewed.reason == "accepted_spacing", edges


def test_a_title_case_headline_keeps_its_words() -> None:
    title = {"t": "Governo Anuncia Novo Pacote Econômico"}
    proposed = repair("t", "Anuncia", "Anunica", "obvious_typo")
    [reviewed] = review_repairs([proposed], title, locale="pt")
    assert reviewed.reason == "real_word_swap"


def test_a_capitalized_typo_needs_its_fix_written_elsewhere_in_the_article() -> None:
    """A capitalized non-word may be a name: it becomes a word only the article itself uses."""
    title = {"t": "Governo Anuncai Novo Pacote Econômico"}
    proposed = repair("t", "Anuncai", "Anuncia", "obvious_typo")
    [alone] = review_repairs([proposed], title, locale="pt")
    assert alone.reason == "protected_name"
    body = {**title, "b": "O governo anuncia hoje o pacote."}
    [attested] = review_repairs([proposed], body, locale="pt")
    assert attested.reason == "accepted_obvious_typo"


def test_a_typo_copied_into_several_candidates_is_still_a_typo() -> None:
    targets = {
        "og": "Govenrment approves the budget",
        "h1": "Govenrment approves the budget",
        "b1": "The government met on Monday.",
    }
    [reviewed] = review_repairs(
        [repair("og", "Govenrment", "Government", "obvious_typo")], targets, locale="en"
    )
    assert reviewed.reason == "accepted_obvious_typo"


def test_apply_several_repairs_after_emoji() -> None:
    text = f"🎉🎉 O govreno  anunciou,, em 😀 {mojibake('São Paulo')} e no Rio."
    repairs = [
        repair("b", mojibake("São Paulo"), "São Paulo", "encoding"),
        repair("b", "govreno", "governo", "obvious_typo"),
        repair("b", "governo  anunciou", "governo anunciou", "spacing"),  # not found
        repair("b", "  anunciou", " anunciou", "spacing"),
        repair("b", ",,", ",", "punctuation_corruption"),
    ]
    reviewed = review_repairs(repairs, {"b": text}, locale="pt")
    assert [r.accepted for r in reviewed] == [True, True, False, True, True]
    assert apply_repairs(text, reviewed) == ("🎉🎉 O governo anunciou, em 😀 São Paulo e no Rio.")


def test_rejected_repairs_leave_the_text_as_it_was() -> None:
    text = "O técnico Mueller venceu por 3-1."
    repairs = [
        repair("b", "Mueller", "Müller", "obvious_typo"),
        repair("b", "3-1", "3-2", "obvious_typo"),
    ]
    reviewed = review_repairs(repairs, {"b": text}, locale="pt")
    assert [r.accepted for r in reviewed] == [False, False]
    assert apply_repairs(text, reviewed) == "O técnico Mueller venceu por 3-1."


def test_apply_refuses_repairs_reviewed_against_another_text() -> None:
    stale = ReviewedRepair(
        repair("b", "fim..", "fim.", "punctuation_corruption"),
        True,
        "accepted_punctuation_corruption",
        4,
    )
    with pytest.raises(ArticleRuntimeError) as caught:
        apply_repairs("era fim.", [stale])
    assert caught.value.reason == "repair_offset_mismatch"


def test_apply_refuses_overlapping_repairs() -> None:
    first = ReviewedRepair(repair("b", "ab", "x", "spacing"), True, "accepted_spacing", 0)
    second = ReviewedRepair(repair("b", "bc", "y", "spacing"), True, "accepted_spacing", 1)
    with pytest.raises(ArticleRuntimeError) as caught:
        apply_repairs("abc", [first, second])
    assert caught.value.reason == "overlapping_repair"


def test_a_review_that_raises_costs_that_repair_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """A bug in one category's check rejects its repair (``review_failed``), never applies it,
    and the other repairs are judged as usual."""

    def broken(*_: object) -> str | None:
        raise RuntimeError("a bug in the check")

    monkeypatch.setitem(repair_checks.CATEGORY_CHECKS, "spacing", broken)
    reviewed = review_repairs(
        [
            repair("e1", "report  on", "report on", "spacing"),
            repair("e1", "govenrment", "government", "obvious_typo"),
        ],
        EN,
        locale="en",
    )
    assert [(r.accepted, r.reason) for r in reviewed] == [
        (False, "review_failed"),
        (True, "accepted_obvious_typo"),
    ]
    assert "report  on" in apply_repairs(EN["e1"], reviewed)
