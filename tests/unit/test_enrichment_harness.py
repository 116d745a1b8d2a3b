"""The enrichment harness accepts grounded answers and names the first broken rule (spec 9.4).

Articles, answers and expected reasons are written by hand; each failing answer breaks one rule.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from article_runtime import contracts
from article_runtime.enrichment.harness import validate_enrichment
from article_runtime.enrichment.model import EnrichmentInput, Entity, EvidenceBlock
from article_runtime.enrichment.steps import MAX_TAGS, MIN_TAGS, STEP_NAMES
from article_runtime.enrichment.tag_language import cited_names, without_names
from article_runtime.text.collation import same_text
from article_runtime.text.scripts import is_unspaced, letter_scripts

PT = EnrichmentInput(
    title="Rio anuncia plano contra enchentes",
    subtitle=None,
    language="pt",
    entity=Entity(qid="Q1353924", name="Eduardo Paes", identity="prefeito do Rio de Janeiro"),
    blocks=[
        EvidenceBlock(id="p1", text="Plano contra enchentes"),
        EvidenceBlock(
            id="p2",
            text=(
                "A prefeitura do Rio de Janeiro anunciou nesta segunda-feira um plano de "
                "R$ 1,2 bilhão para conter enchentes na zona norte."
            ),
        ),
        EvidenceBlock(
            id="p3",
            text=(
                "O prefeito Eduardo Paes disse que as obras de drenagem começam em março "
                "e terminam até 2026."
            ),
        ),
        EvidenceBlock(id="p4", text="Piscinões na Tijuca\nDragagem do canal do Mangue"),
    ],
)

JA = EnrichmentInput(
    title="トヨタ、新型EVを発表",
    subtitle=None,
    language="ja",
    entity=Entity(qid="Q53268", name="トヨタ自動車"),
    blocks=[
        EvidenceBlock(id="p1", text="トヨタ自動車は東京で新型の電気自動車を発表した。"),
        EvidenceBlock(id="p2", text="販売は来年の春に始まる予定だ。"),
        EvidenceBlock(id="p3", text="同社の社長は記者会見で自信を示した。"),
        EvidenceBlock(id="p4", text="東京都知事も歓迎の意を表明した。"),
    ],
)


def tag(text: str, *ids: str) -> dict[str, Any]:
    return {"tag": text, "evidence_block_ids": list(ids)}


def pt_answer(**overrides: Any) -> dict[str, Any]:
    answer: dict[str, Any] = {
        "sentiment": "positive",
        "tags": [
            tag("enchentes", "p1", "p2"),
            tag("Rio de Janeiro", "p2"),
            tag("Eduardo Paes", "p3"),
            tag("obras de drenagem", "p3"),
            tag("canal do mangue", "p4"),  # case folds: the article writes "Canal do Mangue"
            tag("piscinões", "p4"),  # case folds: the article writes "Piscinões"
        ],
    }
    return answer | overrides


def ja_answer(*tags: dict[str, Any]) -> dict[str, Any]:
    return {"sentiment": "neutral", "tags": list(tags)}


def failed(raw: Any, inp: EnrichmentInput = PT) -> tuple[str | None, str | None, str | None]:
    """(reason, failing step, detail); every step after it must be skipped."""
    verdict = validate_enrichment(raw, inp)
    assert verdict.proposal is None
    assert not verdict.report.valid
    failing = [s for s in verdict.report.steps if s.outcome == "failed"]
    assert len(failing) == 1
    after = verdict.report.steps[failing[0].step :]
    assert all(s.outcome == "skipped" for s in after)
    return verdict.report.reason, failing[0].name, failing[0].detail


def test_steps_are_the_eight_of_the_spec_in_order() -> None:
    assert STEP_NAMES == (
        "json_parseable",
        "schema_valid",
        "sentiment_enum",
        "tag_cardinality",
        "duplicate_tags",
        "evidence_ids",
        "tag_language",
        "no_body_text",
    )


def test_tag_count_limits_match_the_schema() -> None:
    tags = contracts.load_schema(contracts.ENRICHMENT_OUTPUT)["properties"]["tags"]
    assert (tags["minItems"], tags["maxItems"]) == (MIN_TAGS, MAX_TAGS)


def test_valid_portuguese_answer_passes_as_text_bytes_or_mapping() -> None:
    answer = pt_answer()
    for raw in (json.dumps(answer), json.dumps(answer).encode(), answer):
        verdict = validate_enrichment(raw, PT)
        assert verdict.report.valid, verdict.report
        assert [s.outcome for s in verdict.report.steps] == ["passed"] * 8
        assert verdict.proposal is not None
        assert verdict.proposal.sentiment == "positive"
        assert [t.tag for t in verdict.proposal.tags][:2] == ["enchentes", "Rio de Janeiro"]


def test_valid_japanese_answer_passes() -> None:
    answer = ja_answer(
        tag("トヨタ自動車", "p1"),
        tag("新型電気自動車", "p1"),  # 新型 / 電気 / 自動車: each found in p1's text
        tag("東京", "p1"),
        tag("記者会見", "p3"),
        tag("東京都知事", "p4"),  # ICU cuts the tag 東京 / 都 / 知事 and p4 東京 / 都知事
    )
    verdict = validate_enrichment(answer, JA)
    assert verdict.report.valid, verdict.report
    assert verdict.proposal is not None


def test_unparseable_json_fails_first() -> None:
    assert failed('{"sentiment": "positive", "tags": [')[:2] == ("invalid_json", "json_parseable")
    assert failed(b"\xff\xfe{")[:2] == ("invalid_json", "json_parseable")


def test_extra_summary_field_is_a_schema_violation() -> None:
    reason, step, detail = failed(pt_answer(summary="A prefeitura anunciou um plano."))
    assert (reason, step) == ("schema_violation", "schema_valid")
    assert detail is not None and "summary" in detail


def test_extra_body_field_inside_a_tag_is_a_schema_violation() -> None:
    tags = pt_answer()["tags"]
    tags[0] = tags[0] | {"body": "texto"}
    assert failed(pt_answer(tags=tags))[:2] == ("schema_violation", "schema_valid")


def test_a_non_object_answer_is_a_schema_violation() -> None:
    assert failed("[]")[:2] == ("schema_violation", "schema_valid")


def test_sentiment_outside_the_enum_fails() -> None:
    assert failed(pt_answer(sentiment="mixed")) == ("invalid_sentiment", "sentiment_enum", "mixed")


def test_sentiment_of_the_wrong_type_is_a_schema_violation() -> None:
    assert failed(pt_answer(sentiment=1))[:2] == ("schema_violation", "schema_valid")


def test_two_tags_are_too_few() -> None:
    answer = pt_answer(tags=pt_answer()["tags"][:2])
    assert failed(answer) == ("too_few_tags", "tag_cardinality", "2 < 3")


def test_nine_tags_are_too_many() -> None:
    nine = [*pt_answer()["tags"], tag("Tijuca", "p4"), tag("zona norte", "p2"), tag("2026", "p3")]
    assert failed(pt_answer(tags=nine)) == ("too_many_tags", "tag_cardinality", "9 > 8")


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("São Paulo", "SAO PAULO"),
        ("Zürich", "zurich"),
        ("e-commerce", "ecommerce"),
        ("Москва", "МОСКВА"),
        ("Αθήνα", "ΑΘΗΝΑ"),
        ("とうきょう", "トウキョウ"),
        ("ＥＶ", "EV"),
    ],
)
def test_duplicates_fold_case_accents_punctuation_and_width(first: str, second: str) -> None:
    answer = pt_answer(tags=[tag(first, "p2"), tag("enchentes", "p2"), tag(second, "p3")])
    reason, step, detail = failed(answer)
    assert (reason, step) == ("duplicate_tag", "duplicate_tags")
    assert detail == f"{first!r} = {second!r}"


def test_mueller_is_not_a_duplicate_of_mueller_with_umlaut() -> None:
    answer = pt_answer(tags=[tag("Müller", "p2"), tag("Mueller", "p2"), tag("enchentes", "p2")])
    verdict = validate_enrichment(answer, PT)
    by_name = {s.name: s.outcome for s in verdict.report.steps}
    assert by_name["duplicate_tags"] == "passed"
    assert verdict.report.reason is not None  # neither name is in the article


def test_invented_evidence_id_fails() -> None:
    tags = pt_answer()["tags"]
    tags[2] = tag("Eduardo Paes", "p3", "p99")
    assert failed(pt_answer(tags=tags)) == ("unknown_evidence_id", "evidence_ids", "p99")


def test_english_tags_on_a_portuguese_article_are_another_language() -> None:
    answer = pt_answer(
        tags=[tag("flood control", "p2"), tag("city hall", "p2"), tag("drainage works", "p3")]
    )
    reason, step, detail = failed(answer)
    assert (reason, step) == ("tag_language_mismatch", "tag_language")
    assert detail == "tags read as en, not pt"


PT_NAMES = PT.model_copy(
    update={
        "blocks": [
            *PT.blocks,
            EvidenceBlock(
                id="p5",
                text=(
                    "Segundo o Wall Street Journal, o banco Goldman Sachs financia as obras "
                    "com a prefeitura."
                ),
            ),
        ]
    }
)


def test_name_only_tags_from_the_evidence_are_not_read_for_language() -> None:
    """Names read as their origin's language ("Goldman Sachs" reads as English)."""
    names = [tag("Wall Street Journal", "p5"), tag("Goldman Sachs", "p5"), tag("Tijuca", "p4")]
    assert validate_enrichment(pt_answer(tags=names), PT_NAMES).report.valid


def test_capitalised_words_are_no_names_unless_the_evidence_writes_them_so() -> None:
    """Title case earns no exemption: these words are not names in the article."""
    titled = [tag("Dam Collapse", "p5"), tag("Mining Company", "p5"), tag("Street Fines", "p5")]
    reason, step, detail = failed(pt_answer(tags=titled), PT_NAMES)
    assert (reason, step, detail) == ("tag_language_mismatch", "tag_language",
                                      "tags read as en, not pt")  # fmt: skip


def test_only_the_names_of_a_tag_are_left_out_of_what_the_detector_reads() -> None:
    evidence = ["Segundo a Folha de S.Paulo, a Vale dam collapsed, disse o jornal."]
    names = cited_names(evidence, "pt")
    assert without_names("Folha de S.Paulo", evidence, names, "pt") == "de"
    assert without_names("Vale dam collapsed", evidence, names, "pt") == "dam collapsed"
    assert without_names("Folha Vale", ["folha e vale"], names, "pt") == "Folha Vale"


def test_a_name_not_written_in_the_evidence_is_not_name_only() -> None:
    """The same names, cited from a block that does not write them, are read as words."""
    names = [tag("Wall Street Journal", "p2"), tag("Goldman Sachs", "p2"), tag("Tijuca", "p4")]
    assert failed(pt_answer(tags=names), PT_NAMES)[0] == "tag_language_mismatch"


def test_a_tag_equal_to_a_heading_is_not_body_text() -> None:
    """p1 is the section heading "Plano contra enchentes": a tag may name that topic."""
    blocks = [EvidenceBlock(id="p1", text="Plano contra enchentes", heading=True), *PT.blocks[1:]]
    inp = PT.model_copy(update={"blocks": blocks})
    tags = pt_answer()["tags"]
    tags[0] = tag("plano contra enchentes", "p1")
    verdict = validate_enrichment(pt_answer(tags=tags), inp)
    assert verdict.report.reason != "tag_is_body_text"
    as_paragraph = PT.model_copy(update={"blocks": [blocks[0].model_copy(update={"heading": False}),
                                                    *blocks[1:]]})  # fmt: skip
    assert validate_enrichment(pt_answer(tags=tags), as_paragraph).report.reason == (
        "tag_is_body_text"
    )


def test_an_invented_topic_is_not_grounded() -> None:
    tags = pt_answer()["tags"]
    tags[1] = tag("eleições municipais", "p2")
    reason, _, detail = failed(pt_answer(tags=tags))
    assert reason == "tag_not_grounded"
    assert detail is not None and "eleições municipais" in detail


def test_a_tag_must_be_grounded_in_its_own_evidence_blocks() -> None:
    tags = pt_answer()["tags"]
    tags[2] = tag("Eduardo Paes", "p4")  # the name is in p3, not in the cited p4
    assert failed(pt_answer(tags=tags))[0] == "tag_not_grounded"


def test_latin_tags_on_a_japanese_article_are_a_script_mismatch() -> None:
    answer = ja_answer(tag("Toyota", "p1"), tag("electric vehicle", "p1"), tag("東京", "p1"))
    reason, step, detail = failed(answer, JA)
    assert (reason, step) == ("tag_script_mismatch", "tag_language")
    assert detail == "'Toyota': Latn"


def test_an_invented_japanese_topic_is_not_grounded() -> None:
    answer = ja_answer(tag("トヨタ自動車", "p1"), tag("大阪", "p1"), tag("東京", "p1"))
    assert failed(answer, JA)[:2] == ("tag_not_grounded", "tag_language")


def test_a_long_phrase_from_the_body_is_body_text() -> None:
    tags = pt_answer()["tags"]
    tags[3] = tag("obras de drenagem começam em março e terminam", "p3")
    reason, step, detail = failed(pt_answer(tags=tags))
    assert (reason, step) == ("tag_is_body_text", "no_body_text")
    assert detail is not None and detail.endswith("8 words > 6")


def test_a_tag_equal_to_a_whole_block_is_body_text() -> None:
    tags = pt_answer()["tags"]
    tags[0] = tag("plano contra enchentes!", "p1")  # p1 up to case and punctuation
    reason, _, detail = failed(pt_answer(tags=tags))
    assert reason == "tag_is_body_text"
    assert detail is not None and detail.endswith("is block p1")


def test_collation_equality_and_scripts() -> None:
    assert same_text("São Paulo", "sao-paulo", "pt")
    assert not same_text("Müller", "Mueller", "de")
    assert not same_text("Malmö", "Malmo", "sv")  # Swedish keeps ö a letter of its own
    assert letter_scripts("トヨタ自動車は2026年") == {"Kana", "Hani", "Hira"}
    assert letter_scripts("R$ 1,2 — ok") == {"Latn"}
    assert is_unspaced("自動車") and is_unspaced("ประเทศ") and not is_unspaced("enchentes")


def test_a_tag_needs_every_word_in_its_evidence_not_half() -> None:
    tags = pt_answer()["tags"]
    tags[1] = tag("Rio de Janeiro cancela", "p2")  # three words of four: a fact added
    reason, _, detail = failed(pt_answer(tags=tags))
    assert reason == "tag_not_grounded"
    assert detail == "'Rio de Janeiro cancela' in ['p2']: 'cancela'"


def test_accents_are_letters_not_decoration() -> None:
    tags = pt_answer()["tags"]
    tags[5] = tag("piscinoes", "p4")  # the article writes "Piscinões"
    assert failed(pt_answer(tags=tags))[0] == "tag_not_grounded"


def test_an_inflected_form_of_an_evidence_word_is_supported() -> None:
    """Portuguese Snowball: enchente/enchentes and anunciadas/anunciou share a stem."""
    tags = pt_answer()["tags"]
    tags[0] = tag("enchente", "p2")  # p2 writes "enchentes"
    tags[3] = tag("obras de drenagem anunciadas", "p2", "p3")  # p2 writes "anunciou"
    assert validate_enrichment(pt_answer(tags=tags), PT).report.valid


def test_a_japanese_word_inside_another_evidence_word_is_not_supported() -> None:
    """p4 reads 東京 / 都知事: 京都 (Kyoto) straddles the two, 知事 is only part of 都知事."""
    for invented in ("京都", "知事"):
        answer = ja_answer(tag("トヨタ自動車", "p1"), tag(invented, "p4"), tag("東京", "p1"))
        reason, _, detail = failed(answer, JA)
        assert reason == "tag_not_grounded"
        assert detail == f"{invented!r} in ['p4']: {invented!r}"
