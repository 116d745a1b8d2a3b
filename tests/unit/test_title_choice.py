"""The deterministic title choice: the h1, unless it is plainly a site or section name."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from article_runtime.model.candidates import Block, MetadataCandidate
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


def _headings(*texts: str) -> list[Block]:
    return [
        Block(id=f"b{n}", type="heading", text=t, level=2, container_id="c1", extractors=[])
        for n, t in enumerate(texts, 1)
    ]


def test_a_metadata_title_shown_above_the_h1_wins() -> None:
    """The page shows the story's headline first; its h1 labels a section further down."""
    titles = _titles(("h1", "Security updates"), ("og:title+title", "Cloud security, autumn 2025"))
    got = choose_title(titles, _headings("Cloud security, autumn 2025", "Security updates"))
    assert got is not None and got.id == "t2"
    # the same texts in the other order: the h1 comes first and stays
    got = choose_title(titles, _headings("Security updates", "Cloud security, autumn 2025"))
    assert got is not None and got.id == "t1"


def test_a_metadata_title_shown_only_below_the_h1_changes_nothing() -> None:
    """json-ld headlines of the list items a roundup shows as its sections."""
    titles = _titles(
        ("h1", "Die besten Kameras 2025"), ("json-ld:headline", "Kameras für Einsteiger")
    )
    got = choose_title(titles, _headings("Die besten Kameras 2025", "Kameras für Einsteiger"))
    assert got is not None and got.id == "t1"


def test_a_headline_shown_as_a_paragraph_above_the_h1_wins() -> None:
    """A code-hosting page: the repository's name as h1 below the post's title in a <p>."""
    titles = _titles(("h1", "Notes"), ("og:title", "Notes on running Postgres at home"))
    shown = Block(
        id="b9",
        type="paragraph",
        text="Notes on running Postgres at home",
        container_id="c2",
        extractors=[],
    )
    got = choose_title(titles, [shown, *_headings("Notes")])
    assert got is not None and got.id == "t2"


def test_a_shown_heading_does_not_override_an_agreed_h1() -> None:
    titles = _titles(("h1+og:title", "Ein Titel"), ("json-ld:headline", "Ein anderer Titel"))
    got = choose_title(titles, _headings("Ein anderer Titel", "Ein Titel"))
    assert got is not None and got.id == "t1"


def test_no_usable_candidate() -> None:
    assert choose_title(_titles(("h1", "  "))) is None
    assert choose_title([]) is None


def test_an_h1_in_capitals_yields_to_the_same_headline_as_typed() -> None:
    for h1, typed in (
        ("SUPPORTING GAAP COMPLIANCE", "GAAP Compliance: Applying Best Practices"),
        ("WAHLERGEBNISSE AUS BERLIN", "Wahlergebnisse aus Berlin am Sonntag"),
        ("ИТОГИ ГОДА", "Итоги года: что изменилось"),
    ):
        got = choose_title(_titles(("h1", h1), ("json-ld:headline", "x"), ("og:title", typed)))
        assert got is not None and got.text == typed, h1


def test_an_h1_in_capitals_stays_without_a_typed_form_or_in_a_caseless_script() -> None:
    for h1, other in (
        ("BRIDGE CLOSED", "BRIDGE CLOSED | DAILY"),  # the other is in capitals too
        ("橋が閉鎖された", "橋が閉鎖された理由"),  # no case at all: never "in capitals only"
        ("Bridge closed", "Bridge closed on Monday"),  # not in capitals
    ):
        got = choose_title(_titles(("h1", h1), ("og:title", other)))
        assert got is not None and got.id == "t1", h1


def test_a_label_before_another_candidate_in_the_h1_yields() -> None:
    for h1 in ("Blog: Best agencies of 2025", "News — Best agencies of 2025"):
        got = choose_title(_titles(("h1", h1), ("og:title+title", "Best agencies of 2025")))
        assert got is not None and got.text == "Best agencies of 2025", h1


def test_a_longer_lead_or_one_without_punctuation_keeps_the_h1() -> None:
    for h1 in (
        "The best agencies in the country, ranked: Agencies 2025",  # the lead is longer
        "Dec 18 2025 Best agencies of 2025",  # no punctuation before the candidate
        "The Best agencies of 2025",  # a word of the headline, not a label
    ):
        other = h1.split(": ")[-1] if ": " in h1 else "Best agencies of 2025"
        got = choose_title(_titles(("h1", h1), ("og:title", other)))
        assert got is not None and got.id == "t1", h1


def test_the_spelling_more_sources_give_wins_among_typographic_twins() -> None:
    got = choose_title(
        _titles(
            ("h1", "Why Hasn\u2019t Tutoring Worked?"),
            ("json-ld:headline+og:title+title", "Why Hasn't Tutoring Worked?"),
        )
    )
    assert got is not None and got.id == "t2"
    for other in ("og:title", "og:title+title"):  # as many sources or fewer: the choice stays
        got = choose_title(
            _titles(
                ("h1+json-ld:headline", "\u00abBridge\u00bb closed"), (other, '"Bridge" closed')
            )
        )
        assert got is not None and got.id == "t1", other


def test_twins_differ_only_in_typography() -> None:
    """A rewording is no twin, however many sources give it."""
    got = choose_title(
        _titles(
            ("h1", "Why Hasn\u2019t Tutoring Worked?"),
            ("og:title+title+json-ld:name", "Why Tutoring Failed"),
        )
    )
    assert got is not None and got.id == "t1"


_QUOTES = st.sampled_from(["'", "\u2018", "\u2019", "\u201b", "\u2032"])


@given(
    st.lists(st.text(alphabet="abcxyz ", min_size=1, max_size=6), min_size=1, max_size=4),
    _QUOTES,
    _QUOTES,
)
def test_any_quote_spelling_of_a_title_is_its_twin(
    parts: list[str], mine: str, theirs: str
) -> None:
    h1, other = mine.join(parts) + "!", theirs.join(parts) + "!"
    got = choose_title(_titles(("h1", h1), ("og:title+twitter:title", other)))
    assert got is not None and got.text == other


def test_a_markup_title_taken_over_the_h1_yields_to_its_cut_form() -> None:
    """The h1 is a vote count, passed over; og:title carries the site's name."""
    got = choose_title(
        _titles(
            ("h1", "94"),
            ("og:title+twitter:title", "Scalable Interpretability — Example Forum"),
            ("site-removed", "Scalable Interpretability"),
        )
    )
    assert got is not None and got.text == "Scalable Interpretability"


def test_a_chosen_h1_never_yields_to_a_cut_form() -> None:
    got = choose_title(
        _titles(
            ("h1+json-ld:headline", "Spice Data Accelerator | Spice AI"),
            ("site-removed", "Spice Data Accelerator"),
        )
    )
    assert got is not None and got.id == "t1"


def test_dashes_make_typographic_twins_too() -> None:
    got = choose_title(
        _titles(
            ("h1", "Brains Are Not Required\u2014Cells Can Do It"),
            ("json-ld:headline+og:title+twitter:title", "Brains Are Not Required--Cells Can Do It"),
        )
    )
    assert got is not None and got.id == "t2"
    got = choose_title(
        _titles(
            ("h1+json-ld:headline", "Bread Machines \u2013 My Favorites!"),
            ("og:title", "Bread Machines - My Favorites!"),
        )
    )
    assert got is not None and got.id == "t1"
