"""decide_language: declaration against detection."""

from __future__ import annotations

import pytest
from selectolax.lexbor import LexborHTMLParser

from article_runtime.candidates.language import (
    decide_language,
    declared_language,
    primary_subtag,
)

PT = (
    "O governo anunciou nesta terça-feira um novo pacote de medidas para conter a inflação. "
    "Segundo o ministro, os preços dos alimentos devem cair nos próximos meses, mas os "
    "economistas ouvidos pela reportagem estão divididos sobre os efeitos no emprego."
)
EN = (
    "The government announced a new package of measures on Tuesday to curb inflation. "
    "According to the minister, food prices should fall in the coming months, but the "
    "economists interviewed for this report are divided over the effects on employment."
)
JA = (
    "政府は火曜日、インフレを抑えるための新たな対策を発表した。"
    "大臣によると、食料品の価格は今後数か月で下がる見通しだという。"
)


def tree(head: str = "", lang: str | None = None) -> str | None:
    """The language the page declares (what ``decide_language`` weighs detection against)."""
    attr = f' lang="{lang}"' if lang is not None else ""
    page = LexborHTMLParser(f"<html{attr}><head>{head}</head><body><p>x</p></body></html>")
    return declared_language(page)


def test_declared_and_detected_agree() -> None:
    assert decide_language(tree(lang="pt-BR"), PT) == ("pt", "pt", "pt")


def test_confident_detector_overrules_template_declaration() -> None:
    assert decide_language(tree(lang="en"), PT) == ("pt", "en", "pt")


def test_no_declaration_uses_detection() -> None:
    assert decide_language(tree(), EN) == ("en", None, "en")


def test_tiny_sample_keeps_declaration() -> None:
    assert decide_language(tree(lang="es_AR"), "Hola") == ("es", "es", None)


def test_tiny_sample_and_no_declaration_is_unknown() -> None:
    assert decide_language(tree(), "  OK  ") == (None, None, None)


def test_japanese_text() -> None:
    assert decide_language(tree(lang="ja"), JA) == ("ja", "ja", "ja")


@pytest.mark.parametrize(
    ("head", "expected"),
    [
        ('<meta property="og:locale" content="pt_BR">', "pt"),
        ('<meta http-equiv="Content-Language" content="de-AT">', "de"),
        ('<script type="application/ld+json">{"@graph": [{"inLanguage": "fr-CA"}]}</script>', "fr"),
        ('<script type="application/ld+json">{"inLanguage": </script>', None),
    ],
)
def test_other_declarations(head: str, expected: str | None) -> None:
    assert decide_language(tree(head), "")[1] == expected


@pytest.mark.parametrize(
    ("tag", "expected"),
    [
        ("pt-BR", "pt"),
        ("PT_br", "pt"),
        ("zh-Hant-TW", "zh"),
        ("x", None),
        ("", None),
        ("1234", None),
    ],
)
def test_primary_subtag(tag: str, expected: str | None) -> None:
    assert primary_subtag(tag) == expected


def test_identifier_is_built_once() -> None:
    """Loading the model costs over a second: every call must reuse the same identifier."""
    from article_runtime.candidates import language

    decide_language(tree(), EN)
    first = language._identifier()
    decide_language(tree(), EN * 20)
    assert language._identifier() is first
