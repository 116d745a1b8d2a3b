"""The deterministic title choice: the h1, unless it is plainly a site or section name."""

from __future__ import annotations

from article_runtime.model.candidates import MetadataCandidate
from article_runtime.title_choice import choose_title


def _titles(*pairs: tuple[str, str]) -> list[MetadataCandidate]:
    return [MetadataCandidate(id=f"t{n}", text=t, source=s) for n, (s, t) in enumerate(pairs, 1)]


def test_the_h1_stays_when_it_shares_words_with_the_metadata() -> None:
    """The visible headline beats an SEO variant the metadata agrees on."""
    got = choose_title(
        _titles(
            ("h1", "Top 10 Health and Nutrition Trends to Watch"),
            ("json-ld:headline+og:title+twitter:title", "Nutrition Trends For 2026 - Example"),
        )
    )
    assert got is not None and got.id == "t1"


def test_a_section_name_h1_sharing_no_word_yields() -> None:
    for h1 in ("Blog", "Kontakt", "Actualités", "ブログ"):
        got = choose_title(
            _titles(("h1", h1), ("og:title+title", "Packing tips for a long journey abroad"))
        )
        assert got is not None and got.id == "t2", h1


def test_the_site_name_part_of_the_document_title_yields() -> None:
    """title = "Site's Blog: Headline", og:title = "Headline", h1 = "Site's Blog"."""
    got = choose_title(
        _titles(
            ("h1", "Roger's Blog"),
            ("og:title", "Advent of Code 2025 week 2"),
            ("title", "Roger's Blog: Advent of Code 2025 week 2"),
        )
    )
    assert got is not None and got.id == "t2"


def test_a_headline_h1_beside_a_short_site_name_stays() -> None:
    """The document title "Headline | Brand" and og:title "Brand": the h1 is the longer part."""
    got = choose_title(
        _titles(
            ("h1", "Which robotic lawnmower is suitable for which lawn size?"),
            ("og:title", "Robomow"),
            ("title", "Which robotic lawnmower is suitable for which lawn size? | Robomow"),
        )
    )
    assert got is not None and got.id == "t1"


def test_an_h1_other_sources_agree_on_is_never_passed_over() -> None:
    got = choose_title(_titles(("h1+og:title", "Blog"), ("twitter:title", "Something else")))
    assert got is not None and got.id == "t1"


def test_no_usable_candidate() -> None:
    assert choose_title(_titles(("h1", "  "))) is None
    assert choose_title([]) is None
