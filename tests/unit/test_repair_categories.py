"""Each repair category accepts the real defects of its kind and nothing else, in en, pt, es, fr
and de (issue 9, section 1): what may change is named per category, and where a fix can be
computed the replacement must equal it.

Every expected reason is written by hand from the rule it exercises.
"""

from __future__ import annotations

import pytest

from article_runtime.harness.repair_edit import TargetRole
from article_runtime.harness.repairs import apply_repairs, review_repairs
from article_runtime.model.proposal import RepairCategory
from tests.factories import mojibake, repair

TEXTS: dict[str, dict[str, str]] = {
    "en": {
        "b": (
            f"The govenrment said on Monday that the {mojibake('café')} tax,, approved by 52% "
            "of members, would cost $12 million. The spokes man declined to com\u00adment . "
            "Officials were nowhere to be seen, and the colour of the flag changed. "
            "Temperatures fell to -15 degrees, up +3 from the week before. The spokesm an left."
        ),
        "c": (
            "The government met again. A second com\u200bmittee report  came out. The hoise "
            "burned, a wierd sight. The govern-ment sent an e-mail on a well-known "
            "rule: fees changed,costs fell."
        ),
    },
    "pt": {
        "b": (
            f"A prefietura anunciou a {mojibake('informação')} nesta segunda-feira. O "
            "orçamento de R$ 3 milhões foi aprovado por 35% dos vereadores.. A gente viu "
            "tudo,, disse o agente. A cida\u200bde ganha nova praça e a prefei tura promete "
            "obras."
        ),
    },
    "es": {
        "b": (
            f"El gobeirno anunció el {mojibake('presupuesto del año')} y el oficialismo "
            "consiguió emitir dictámenes de mayoría;; la oposición pidió más tiempo. El "
            "plan cuesta 12 millones de pesos y la infla ción bajó al 3%. La gober\u00adnación "
            "respondió ."
        ),
    },
    "fr": {
        "b": (
            f"Le gouvernemnt a présenté la {mojibake('réforme')} des retraites,, au Sénat !! "
            "Les sénateurs ont voté par 195 voix contre 112, soit 63 % des suffrages. Le "
            "budget de l'État est une clé du débat et un événement, a dit la minis tre le "
            "jour sui\u00advant."
        ),
    },
    "de": {
        "b": (
            f"Die Regierugn hat den Haushalt {mojibake('für')} das nächste Jahr beschlossen,, "
            "sagte ein Sprecher. Die Regierung plant Ausgaben von 5 Millionen Euro, ein Plus "
            "von 4 %. Die Abstim mung im Parla\u00adment folgt am Montag, sagte er, dass die "
            "Bundesregierung zustim mt und die Geographie egal ist."
        ),
    },
}

# (language, target, original, replacement, category, expected reason)
ACCEPTED: list[tuple[str, str, str, str, RepairCategory, str]] = [
    ("en", "b", mojibake("café"), "café", "encoding", "accepted_encoding"),
    ("en", "b", "com\u00adment", "comment", "unicode", "accepted_unicode"),
    ("en", "c", "com\u200bmittee", "committee", "unicode", "accepted_unicode"),
    ("en", "b", "spokesm an", "spokesman", "spacing", "accepted_spacing"),
    ("en", "b", "ment .", "ment.", "spacing", "accepted_spacing"),
    ("en", "c", "report  came", "report came", "spacing", "accepted_spacing"),
    ("en", "c", "changed,costs", "changed, costs", "spacing", "accepted_spacing"),
    # a mark stuck inside a word the dictionary accepts without it
    (
        "en",
        "c",
        "govern-ment",
        "government",
        "punctuation_corruption",
        "accepted_punctuation_corruption",
    ),
    ("en", "b", "tax,,", "tax,", "punctuation_corruption", "accepted_punctuation_corruption"),
    ("en", "b", "govenrment", "government", "obvious_typo", "accepted_obvious_typo"),
    ("pt", "b", mojibake("informação"), "informação", "encoding", "accepted_encoding"),
    ("pt", "b", "cida\u200bde", "cidade", "unicode", "accepted_unicode"),
    ("pt", "b", "prefei tura", "prefeitura", "spacing", "accepted_spacing"),
    ("pt", "b", "tudo,,", "tudo,", "punctuation_corruption", "accepted_punctuation_corruption"),
    ("pt", "b", "prefietura", "prefeitura", "obvious_typo", "accepted_obvious_typo"),
    (
        "es",
        "b",
        mojibake("presupuesto del año"),
        "presupuesto del año",
        "encoding",
        "accepted_encoding",
    ),
    ("es", "b", "gober\u00adnación", "gobernación", "unicode", "accepted_unicode"),
    ("es", "b", "infla ción", "inflación", "spacing", "accepted_spacing"),
    ("es", "b", "respondió .", "respondió.", "spacing", "accepted_spacing"),
    (
        "es",
        "b",
        "mayoría;;",
        "mayoría;",
        "punctuation_corruption",
        "accepted_punctuation_corruption",
    ),
    ("es", "b", "gobeirno", "gobierno", "obvious_typo", "accepted_obvious_typo"),
    ("fr", "b", mojibake("réforme"), "réforme", "encoding", "accepted_encoding"),
    ("fr", "b", "sui\u00advant", "suivant", "unicode", "accepted_unicode"),
    ("fr", "b", "minis tre", "ministre", "spacing", "accepted_spacing"),
    (
        "fr",
        "b",
        "retraites,,",
        "retraites,",
        "punctuation_corruption",
        "accepted_punctuation_corruption",
    ),
    ("fr", "b", "gouvernemnt", "gouvernement", "obvious_typo", "accepted_obvious_typo"),
    ("de", "b", mojibake("für"), "für", "encoding", "accepted_encoding"),
    ("de", "b", "Parla\u00adment", "Parlament", "unicode", "accepted_unicode"),
    ("de", "b", "zustim mt", "zustimmt", "spacing", "accepted_spacing"),
    (
        "de",
        "b",
        "beschlossen,,",
        "beschlossen,",
        "punctuation_corruption",
        "accepted_punctuation_corruption",
    ),
    # A German noun is capitalized like a name: the fix must be a word the article writes.
    ("de", "b", "Regierugn", "Regierung", "obvious_typo", "accepted_obvious_typo"),
]

SENTENCE_TERMINAL = "sentence_terminal_changed"
REJECTED: list[tuple[str, str, str, str, RepairCategory, str]] = [
    # encoding: only ftfy's own fix
    ("en", "b", mojibake("café"), "cafe", "encoding", "encoding_fix_mismatch"),
    ("pt", "b", "anunciou", "anunciou!", "encoding", "not_mojibake"),
    # unicode: NFC minus invisible debris, nothing added, no script change, no compat form;
    # what the replacement writes is judged first, as written (section 2)
    ("en", "b", "com\u00adment", "com\u202ement", "unicode", "hidden_character_added"),
    ("en", "b", "com\u00adment", "comment\U000e0041", "unicode", "hidden_character_added"),
    ("en", "b", "com\u00adment", "comment\x07", "unicode", "hidden_character_added"),
    ("en", "b", "com\u00adment", "ｃomment", "unicode", "unicode_fix_mismatch"),
    ("pt", "b", "cida\u200bde", "cidаde", "unicode", "mixed_script_added"),  # Cyrillic а
    ("fr", "b", "sui\u00advant", "suivant\u2066", "unicode", "hidden_character_added"),
    ("de", "b", "Parla\u00adment", "Parla\u200bment", "unicode", "hidden_character_added"),
    ("es", "b", "emitir", "emi\u200btir", "unicode", "hidden_character_added"),
    # a typo fix may not slip an invisible character into its word
    ("en", "b", "govenrment", "govern\u200bment", "obvious_typo", "hidden_character_added"),
    ("en", "b", "govenrment", "govern\u2060ment", "obvious_typo", "hidden_character_added"),
    ("en", "b", "govenrment", "government\ufe0f", "obvious_typo", "hidden_character_added"),
    # spacing: neither side may read as different real words; no line break, no odd space
    ("en", "b", "nowhere", "now here", "spacing", "spacing_changes_words"),
    ("en", "b", "spokes man", "spokesman", "spacing", "spacing_changes_words"),  # a phrase
    ("de", "b", "Abstim mung", "Abstimmung", "spacing", "protected_name"),  # capitalized
    ("pt", "b", "A gente", "Agente", "spacing", "spacing_changes_words"),
    ("pt", "b", "o agente", "o a gente", "spacing", "spacing_changes_words"),
    ("es", "b", "emitir dictámenes", "emitirdictámenes", "spacing", "spacing_changes_words"),
    ("fr", "b", "une clé", "une cl é", "spacing", "spacing_changes_words"),
    ("de", "b", "egal ist", "egalist", "spacing", "spacing_changes_words"),
    ("en", "b", "the colour", "the\ncolour", "spacing", "hidden_character_added"),
    ("en", "b", "the colour", "the\u2028colour", "spacing", "not_spacing_only"),
    ("en", "b", "the colour", "the\u00a0colour", "spacing", "not_spacing_only"),
    ("en", "b", "the colour", "the  colour", "spacing", "not_spacing_only"),
    ("en", "b", "spokes man", "spokesmen", "spacing", "not_spacing_only"),
    # punctuation: duplicated or stray marks only; signs and units belong to their number
    ("en", "b", "-15", "15", "punctuation_corruption", "protected_number"),
    ("en", "b", "+3", "3", "punctuation_corruption", "protected_number"),
    ("en", "b", "$12", "12", "punctuation_corruption", "protected_number"),
    ("en", "b", "52%", "52", "punctuation_corruption", "protected_number"),
    ("pt", "b", "35%", "35", "punctuation_corruption", "protected_number"),
    ("pt", "b", "R$ 3", "R 3", "punctuation_corruption", "protected_number"),
    ("es", "b", "3%", "3", "punctuation_corruption", "protected_number"),
    ("fr", "b", "63 %", "63", "punctuation_corruption", "protected_number"),
    ("de", "b", "4 %", "4", "punctuation_corruption", "protected_number"),
    ("en", "b", "-15", "- 15", "spacing", "protected_number"),
    ("en", "b", "members,", "members", "punctuation_corruption", "not_duplicated_or_stray"),
    ("en", "b", "members,", "members;", "punctuation_corruption", "punctuation_introduced"),
    ("fr", "b", "Sénat !!", "Sénat", "punctuation_corruption", "sentence_terminal_changed"),
    ("fr", "b", "Sénat !!", "Sénat !", "punctuation_corruption", "sentence_terminal_changed"),
    ("pt", "b", "vereadores..", "vereadores.", "punctuation_corruption", SENTENCE_TERMINAL),
    ("fr", "b", "Sénat !!", "Sénat .", "punctuation_corruption", "punctuation_introduced"),
    ("es", "b", "mayoría;;", "mayoría", "punctuation_corruption", "not_duplicated_or_stray"),
    # obvious_typo: a real word never becomes another; variants are no typos (spec 7.4)
    ("es", "b", "emitir", "omitir", "obvious_typo", "real_word_swap"),
    ("en", "b", "million", "billion", "obvious_typo", "real_word_swap"),
    ("en", "b", "colour", "color", "obvious_typo", "real_word_swap"),
    ("en", "b", "declined", "decline", "obvious_typo", "real_word_swap"),  # tense
    ("pt", "b", "milhões", "bilhões", "obvious_typo", "real_word_swap"),
    ("pt", "b", "aprovado", "reprovado", "obvious_typo", "real_word_swap"),
    ("es", "b", "millones", "billones", "obvious_typo", "real_word_swap"),
    ("fr", "b", "événement", "évènement", "obvious_typo", "real_word_swap"),
    ("de", "b", "dass", "daß", "obvious_typo", "typo_too_large"),
    ("de", "b", "Millionen", "Milliarden", "obvious_typo", "typo_too_large"),
    ("de", "b", "Geographie", "Geografie", "obvious_typo", "real_word_swap"),
    ("en", "b", "govenrment", "gоvernment", "obvious_typo", "mixed_script_added"),  # о
    # a word one edit away, but not what the dictionary makes of the typo (house, weird)
    ("en", "c", "hoise", "noise", "obvious_typo", "not_dictionary_fix"),
    # a compound the dictionary knows keeps its spacing and its marks
    ("en", "c", "well-known", "well -known", "spacing", "spacing_changes_words"),
    ("en", "c", "e-mail", "email", "punctuation_corruption", "not_duplicated_or_stray"),
    ("en", "c", "wierd", "wired", "obvious_typo", "not_dictionary_fix"),
    ("pt", "b", "prefietura", "prefeiturx", "obvious_typo", "replacement_not_a_word"),
    ("fr", "b", "gouvernemnt", "gouvernemant", "obvious_typo", "replacement_not_a_word"),
]


@pytest.mark.parametrize(
    ("language", "target", "original", "replacement", "category", "expected"),
    ACCEPTED + REJECTED,
    ids=[f"{c[0]}-{c[4]}-{c[2]!r}->{c[3]!r}" for c in ACCEPTED + REJECTED],
)
def test_each_category_accepts_its_defects_and_nothing_else(
    language: str,
    target: str,
    original: str,
    replacement: str,
    category: RepairCategory,
    expected: str,
) -> None:
    proposed = repair(target, original, replacement, category)
    [reviewed] = review_repairs([proposed], TEXTS[language], locale=language)
    assert reviewed.reason == expected
    assert reviewed.accepted is expected.startswith("accepted_")


def test_every_category_is_shown_accepting_in_every_language() -> None:
    shown = {(c[0], c[4]) for c in ACCEPTED}
    categories = ("encoding", "unicode", "spacing", "punctuation_corruption", "obvious_typo")
    assert shown == {(language, c) for language in TEXTS for c in categories}


def test_a_language_without_a_dictionary_gets_no_typo_or_word_change() -> None:
    """Finnish has no dictionary in debian-packages.txt (Debian packs none for Hunspell)."""
    text = {"b": "Hallitus päätti budjetista. Halltius kokoontuu maanantaina."}
    typo = repair("b", "Halltius", "Hallitus", "obvious_typo")
    join = repair("b", "päätti budjetista", "päättibudjetista", "spacing")
    reasons = [r.reason for r in review_repairs([typo, join], text, locale="fi")]
    assert reasons == ["language_not_covered", "language_not_covered"]
    [none] = review_repairs([typo], text, locale=None)
    assert none.reason == "language_not_covered"


# --- judged together --------------------------------------------------------------------------


def test_a_forbidden_punctuation_change_split_in_pieces_is_refused_whole() -> None:
    """Each piece keeps one mark of ``,,`` and passes; together they delete the run."""
    text = {"b": "Os vereadores,, aprovaram o plano."}
    first = repair("b", "vereadores,", "vereadores", "punctuation_corruption")
    second = repair("b", ", aprovaram", " aprovaram", "punctuation_corruption")
    alone = [r.reason for r in review_repairs([second], text, locale="pt")]
    assert alone == ["accepted_punctuation_corruption"]
    reviewed = review_repairs([first, second], text, locale="pt")
    assert [r.reason for r in reviewed] == [
        "accepted_punctuation_corruption",
        "combined_not_duplicated_or_stray",
    ]
    assert apply_repairs(text["b"], reviewed) == "Os vereadores, aprovaram o plano."


def test_a_forbidden_change_split_in_pieces_is_refused_whichever_piece_comes_first() -> None:
    """The same two pieces as above, the later one proposed first: the run of commas still
    keeps one."""
    text = {"b": "Os vereadores,, aprovaram o plano."}
    first = repair("b", "vereadores,", "vereadores", "punctuation_corruption")
    second = repair("b", ", aprovaram", " aprovaram", "punctuation_corruption")
    reviewed = review_repairs([second, first], text, locale="pt")
    assert [r.reason for r in reviewed] == [
        "accepted_punctuation_corruption",
        "combined_not_duplicated_or_stray",
    ]
    assert apply_repairs(text["b"], reviewed) == "Os vereadores, aprovaram o plano."


def test_two_typo_fixes_of_one_word_are_judged_as_one_edit() -> None:
    """``gouvernemnt``: Hunspell's first suggestion is ``gouvernent`` (drop the m), the most
    frequent of its closest is ``gouvernement`` (add an e); each half alone is a fix, together
    they make ``gouverneent``."""
    text = {"b": "Le gouvernemnt a parlé."}
    drop = repair("b", "rnem", "rne", "obvious_typo")
    add = repair("b", "nt a", "ent a", "obvious_typo")
    alone = [review_repairs([r], text, locale="fr")[0].reason for r in (drop, add)]
    assert alone == ["accepted_obvious_typo", "accepted_obvious_typo"]
    reviewed = review_repairs([drop, add], text, locale="fr")
    assert [r.reason for r in reviewed] == [
        "accepted_obvious_typo",
        "combined_replacement_not_a_word",
    ]
    assert apply_repairs(text["b"], reviewed) == "Le gouvernent a parlé."


def test_repairs_far_apart_in_one_block_are_judged_apart() -> None:
    text = {"b": "The govenrment and the comittee met,, on Monday."}
    repairs = [
        repair("b", "govenrment", "government", "obvious_typo"),
        repair("b", "comittee", "committee", "obvious_typo"),
        repair("b", "met,,", "met,", "punctuation_corruption"),
    ]
    reviewed = review_repairs(repairs, text, locale="en")
    assert all(r.accepted for r in reviewed)
    assert apply_repairs(text["b"], reviewed) == "The government and the committee met, on Monday."


def test_repairs_far_apart_are_judged_apart_in_any_order() -> None:
    """The later typo proposed first: the earlier one is still judged on its own word."""
    text = {"b": "The govenrment and the comittee met on Monday."}
    repairs = [
        repair("b", "comittee", "committee", "obvious_typo"),
        repair("b", "govenrment", "government", "obvious_typo"),
    ]
    reviewed = review_repairs(repairs, text, locale="en")
    assert [r.reason for r in reviewed] == ["accepted_obvious_typo", "accepted_obvious_typo"]
    assert apply_repairs(text["b"], reviewed) == "The government and the committee met on Monday."


def test_repairs_linked_through_a_third_are_judged_together() -> None:
    """Three runs of commas, each fix touching the next: the first and last never touch, but
    all three together remove three marks, one more than punctuation may."""
    text = {"b": "Foi,, um,, jogo,, bom."}
    first = repair("b", ",, um", ", um", "punctuation_corruption")
    middle = repair("b", ",, jogo", ", jogo", "punctuation_corruption")
    last = repair("b", ",, bom", ", bom", "punctuation_corruption")
    reviewed = review_repairs([last, middle, first], text, locale="pt")
    assert [r.reason for r in reviewed] == [
        "accepted_punctuation_corruption",
        "accepted_punctuation_corruption",
        "combined_too_many_punctuation_changes",
    ]
    assert apply_repairs(text["b"], reviewed) == "Foi,, um, jogo, bom."
    apart = review_repairs([first, last], text, locale="pt")  # not linked: judged apart
    assert all(r.accepted for r in apart)


@pytest.mark.parametrize("first_at_0_first", [True, False])
def test_two_fixes_side_by_side_from_offset_0_are_judged_as_one(first_at_0_first: bool) -> None:
    """One category on touching tokens, the first at the block's start: judged together, the
    joint edit starts at offset 0 too."""
    text = {"b": "Report  on  Monday it said."}
    head = repair("b", "Report  on", "Report on", "spacing")
    tail = repair("b", "  Monday", " Monday", "spacing")
    reviewed = review_repairs([head, tail] if first_at_0_first else [tail, head], text, locale="en")
    assert [r.reason for r in reviewed] == ["accepted_spacing", "accepted_spacing"]
    assert apply_repairs(text["b"], reviewed) == "Report on Monday it said."


def test_encoding_fixes_judged_together_are_read_over_their_own_span() -> None:
    """Two touching encoding fixes agree with ftfy over the text they cover; mojibake left
    earlier in the block is not theirs to fix."""
    text = {
        "b": f"{mojibake('São Paulo')} e a {mojibake('informação')} {mojibake('educação')} hoje."
    }
    first = repair("b", mojibake("informação"), "informação", "encoding")
    second = repair("b", " " + mojibake("educação"), " educação", "encoding")
    reviewed = review_repairs([first, second], text, locale="pt")
    assert [r.reason for r in reviewed] == ["accepted_encoding", "accepted_encoding"]
    assert apply_repairs(text["b"], reviewed).endswith(" e a informação educação hoje.")


def test_a_fix_beside_another_is_judged_on_quotes_where_they_stand() -> None:
    """The comma fix is judged in the text the debris fix left: the quotation after it is
    where it was, not moved by the debris fix's offset."""
    text = {"b": "o presidente\u200b,, que “o juiz falou sim senhor” e saiu."}
    debris = repair("b", "\u200b", "", "unicode")
    comma = repair("b", ",, que", ", que", "punctuation_corruption")
    reviewed = review_repairs([debris, comma], text, locale="pt")
    assert [r.reason for r in reviewed] == ["accepted_unicode", "accepted_punctuation_corruption"]
    assert apply_repairs(text["b"], reviewed).startswith("o presidente, que “o juiz")


def test_a_fix_after_another_is_judged_on_quotes_where_they_stand() -> None:
    """A typo after a spacing fix is judged on the quotations of the text the spacing fix
    left, found where they are: outside every quotation it is fixed, even in a block that
    opens with one (read from the wrong place, the typo looked quoted)."""
    opening = "“Every word here is what the mayor said,” said the mayor. "
    space = repair("b", "said the  ", "said the ", "spacing")
    typo = repair("b", "goverment", "government", "obvious_typo")
    outside = {"b": opening + "Officials said the  goverment was late."}
    reviewed = review_repairs([space, typo], outside, locale="en")
    assert [r.reason for r in reviewed] == ["accepted_spacing", "accepted_obvious_typo"]


@pytest.mark.parametrize("typo_first", [True, False])
def test_a_typo_beside_a_double_space_both_hold(typo_first: bool) -> None:
    """Different categories side by side: the second is judged on the text the first left,
    and the typo where it stands when the fix after it in the text came first."""
    text = {"b": "The govenrment  announced the plan."}
    typo = repair("b", "govenrment", "government", "obvious_typo")
    space = repair("b", "  announced", " announced", "spacing")
    order = [typo, space] if typo_first else [space, typo]
    reviewed = review_repairs(order, text, locale="en")
    expected = ["accepted_obvious_typo", "accepted_spacing"]
    assert [r.reason for r in reviewed] == (expected if typo_first else expected[::-1])
    assert apply_repairs(text["b"], reviewed) == "The government announced the plan."


@pytest.mark.parametrize("typo_first", [True, False])
def test_a_join_and_a_typo_that_each_pass_cannot_make_a_non_word_together(
    typo_first: bool,
) -> None:
    """``to gether``: joining gives ``together``, the typo fix gives ``gather``; each alone is a
    fix, both together make ``togather``. Whichever comes second is judged on the text the
    first left, and fails there."""
    text = {"b": "They met to gether on Monday."}
    join = repair("b", "to g", "tog", "spacing")
    typo = repair("b", "eth", "ath", "obvious_typo")
    alone = [review_repairs([r], text, locale="en")[0].reason for r in (join, typo)]
    assert alone == ["accepted_spacing", "accepted_obvious_typo"]
    order = [typo, join] if typo_first else [join, typo]
    reviewed = review_repairs(order, text, locale="en")
    expected = "combined_spacing_changes_words" if typo_first else "combined_real_word_swap"
    assert [r.accepted for r in reviewed] == [True, False]
    assert reviewed[1].reason == expected
    assert "togather" not in apply_repairs(text["b"], reviewed)


def test_an_encoding_fix_and_a_spacing_fix_side_by_side_both_hold() -> None:
    text = {"b": f"A {mojibake('informação')}  chegou ontem."}
    fix = repair("b", mojibake("informação"), "informação", "encoding")
    space = repair("b", "  chegou", " chegou", "spacing")
    reviewed = review_repairs([fix, space], text, locale="pt")
    assert [r.reason for r in reviewed] == ["accepted_encoding", "accepted_spacing"]
    assert apply_repairs(text["b"], reviewed) == "A informação chegou ontem."


@pytest.mark.parametrize("block", ["\u200bgover nment said it.", "gover nment\u200b said it."])
@pytest.mark.parametrize("unicode_first", [True, False])
def test_a_fix_at_offset_0_and_one_beside_it_both_hold(block: str, unicode_first: bool) -> None:
    """A repair at offset 0 is located like any other (0 is a place, not "none")."""
    text = {"b": block}
    debris = repair("b", "\u200b", "", "unicode")
    join = repair("b", "gover nment", "government", "spacing")
    order = [debris, join] if unicode_first else [join, debris]
    reviewed = review_repairs(order, text, locale="en")
    assert all(r.accepted for r in reviewed), [r.reason for r in reviewed]
    assert apply_repairs(text["b"], reviewed) == "government said it."


# --- roles: author and title lines read as names, code is verbatim ----------------------------


def test_author_and_title_words_are_never_joined_split_or_retyped() -> None:
    """``Nora`` at a sentence start is no name by capitals, but an author line is names;
    a title's capitalized words are too (title case capitalizes names and words alike)."""
    targets = {"a1": "Nora Blaek", "t1": "Newbudget plan approved"}
    roles: dict[str, TargetRole] = {"a1": "author", "t1": "title"}
    proposed = [
        repair("a1", "Nora Blaek", "NoraBlaek", "spacing"),
        repair("t1", "Newbudget", "New budget", "spacing"),
        repair("a1", "Blaek", "Blake", "obvious_typo"),
    ]
    reviewed = review_repairs(proposed, targets, locale="en", roles=roles)
    assert [r.reason for r in reviewed] == ["protected_name", "protected_name", "protected_name"]
    [plain] = review_repairs([proposed[1]], {"t1": targets["t1"]}, locale="en")
    assert plain.reason == "accepted_spacing"  # the same split at the start of running text


def test_a_code_block_takes_computed_fixes_only_and_keeps_its_layout() -> None:
    code = "def fee(x):\n    retrun x,, 2  # cafe\u200b"
    roles: dict[str, TargetRole] = {"b": "code"}
    proposed = [
        repair("b", "retrun", "return", "obvious_typo"),
        repair("b", "x,,", "x,", "punctuation_corruption"),
        repair("b", ":\n    r", ":\n  r", "spacing"),
        repair("b", "cafe\u200b", "cafe", "unicode"),
    ]
    reviewed = review_repairs(proposed, {"b": code}, locale="en", roles=roles)
    assert [r.reason for r in reviewed] == [
        "verbatim_block",
        "verbatim_block",
        "verbatim_block",
        "accepted_unicode",
    ]


def test_a_punctuation_mark_of_another_script_is_no_letter_of_it() -> None:
    """Issue 35 section 2 refuses "a letter of another script". ICU joins Tai Tham's sign kaan
    (U+1AA8, punctuation) to the Latin word before it, so dropping the ``!`` of ``!᪨`` writes
    one word ``tempo᪨``: it is still tone (a terminal goes), not a foreign letter; a Cyrillic
    letter or a Devanagari vowel sign written into the word is one."""
    text = {"b": "Chegou o tempo!\u1aa8 A casa ficou."}
    proposed = [
        repair("b", "tempo!\u1aa8", "tempo\u1aa8", "punctuation_corruption"),
        repair("b", "tempo!\u1aa8", "temp\u043e!\u1aa8", "obvious_typo"),  # Cyrillic о
        repair("b", "tempo!\u1aa8", "tempo\u093e!\u1aa8", "obvious_typo"),  # vowel sign aa
    ]
    reasons = [review_repairs([p], text, locale="pt")[0].reason for p in proposed]
    assert reasons == [SENTENCE_TERMINAL, "mixed_script_added", "mixed_script_added"]


def test_a_word_of_one_language_can_be_a_misspelling_in_another() -> None:
    """``dias`` is Portuguese, and in Spanish a common web misspelling of ``días`` (wordfreq
    lists it among the 2000 commonest Spanish words): es_ES rejects it and suggests ``días``
    first, so the fix is made in a Spanish article (like ``definately``, issue 35) and refused in
    a Portuguese one, whose dictionaries know the word."""
    fix = repair("b", "os dias", "os días", "obvious_typo")
    [es] = review_repairs([fix], {"b": "Pasaron los dias de lluvia."}, locale="es")
    [pt] = review_repairs([fix], {"b": "Passaram os dias de chuva."}, locale="pt")
    assert (es.reason, pt.reason) == ("accepted_obvious_typo", "real_word_swap")


def test_a_word_of_a_foreign_phrase_is_no_typo() -> None:
    """``and`` is one edit from French ``ans`` and ``the`` from Spanish ``te``, and each
    dictionary suggests just that; beside ``Roll`` and ``best``, which they reject too, they
    are words of an English phrase the article quotes, left as written."""
    cases = [
        ("fr", "Le groupe a joué Rock and Roll toute la nuit.", "and", "ans"),
        ("es", "El grupo tocó the best canciones del año.", "the", "te"),
    ]
    for language, text, original, replacement in cases:
        fix = repair("b", original, replacement, "obvious_typo")
        [reviewed] = review_repairs([fix], {"b": text}, locale=language)
        assert reviewed.reason == "foreign_word", (language, original)
    # alone among words of the language, the same kind of word is a typo the dictionary fixes
    alone = repair("b", "dias", "días", "obvious_typo")
    [reviewed] = review_repairs([alone], {"b": "Pasaron los dias de lluvia."}, locale="es")
    assert reviewed.reason == "accepted_obvious_typo"
