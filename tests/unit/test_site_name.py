"""Title candidates without the site's name: cut at the page's own punctuation, never written."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from article_runtime.candidates import build_candidates
from article_runtime.candidates.site_name import host_labels, with_site_removed, without_site_name
from article_runtime.model.candidates import MetadataCandidate

SEPARATORS = ("|", "-", "–", "—", "·", "•", "»", "::", "/")


def test_a_trailing_site_name_is_cut_in_any_script() -> None:
    cases = (
        ("Bridge closed | The Daily Example", ["The Daily Example"], "Bridge closed"),
        ("Die Brücke ist gesperrt – Tagesblatt", ["Tagesblatt"], "Die Brücke ist gesperrt"),
        ("Мост закрыт · Вечерние новости", ["Вечерние новости"], "Мост закрыт"),
        ("橋が閉鎖 | 毎日新聞", ["毎日新聞"], "橋が閉鎖"),
        ("毎日新聞 | 橋が閉鎖", ["毎日新聞"], "橋が閉鎖"),  # a leading name
    )
    for text, names, headline in cases:
        assert without_site_name(text, names) == headline, text


def test_cases_cut_exactly() -> None:
    assert without_site_name("Best Cloud Stocks of 2025 | The Motley Fool", ["fool"]) == (
        "Best Cloud Stocks of 2025"
    )
    assert without_site_name("Example News: Bridge closed today", ["Example News:"]) is None
    assert without_site_name("Example News » Bridge closed today", ["examplenews"]) == (
        "Bridge closed today"
    )
    # the name is on neither end: nothing to cut
    assert without_site_name("Bridge closed | Part 2 | Example", ["Other Site"]) is None
    # a joining ampersand or a word's own hyphen is no separator
    assert without_site_name("Cross-Country & Long-Distance Movers", ["movers"]) is None
    # short names must be the whole part: "go" does not end "Lego"
    assert without_site_name("Bricks for kids - Lego", ["go"]) is None
    assert without_site_name("Defer and recover - Go", ["go"]) == "Defer and recover"


def test_host_labels() -> None:
    assert host_labels("https://www.fool.com/investing/x") == ["fool", "foolcom"]
    assert host_labels("https://blog.example.co.uk/a") == ["blog", "example", "co", "couk"]
    assert host_labels(None) == []


def test_with_site_removed_merges_or_places_before_its_source() -> None:
    cands = [
        MetadataCandidate(id="t1", text="Bridge closed", source="h1"),
        MetadataCandidate(id="t2", text="Bridge reopens | Daily", source="og:title"),
        MetadataCandidate(id="t3", text="Bridge closed | Daily", source="title"),
        MetadataCandidate(id="t4", text="Daily | Home", source="h1"),  # an h1 is never cut
    ]
    got = with_site_removed(cands, ["Daily"], limit=8)
    assert [(c.id, c.text, c.source) for c in got] == [
        ("t1", "Bridge closed", "h1+site-removed"),
        ("t2", "Bridge reopens", "site-removed"),
        ("t3", "Bridge reopens | Daily", "og:title"),
        ("t4", "Bridge closed | Daily", "title"),
        ("t5", "Daily | Home", "h1"),
    ]
    assert len(with_site_removed(cands, ["Daily"], limit=4)) == 4


def test_the_builder_offers_the_document_title_without_the_site_name() -> None:
    html = (
        "<html><head><title>Tide tables for the coming week — Harbour Gazette</title>"
        '<meta property="og:site_name" content="Harbour Gazette"></head>'
        "<body><header><h1>Harbour Gazette</h1></header><main><p>"
        + "The tide tables for the coming week show unusually low water on Tuesday. " * 5
        + "</p></main></body></html>"
    )
    titles = build_candidates(html, url="https://gazette.example/tides").metadata_candidates.title
    assert [(c.text, c.source) for c in titles][:2] == [
        ("Harbour Gazette", "h1"),
        ("Tide tables for the coming week", "site-removed"),
    ]


_WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyzäöüßабвгдежзαβγδ", min_size=1, max_size=8)
_PHRASE = st.lists(_WORD, min_size=1, max_size=6).map(" ".join)


@given(_PHRASE, _PHRASE, st.sampled_from(SEPARATORS))
def test_a_headline_joined_to_the_site_name_comes_back_whole(
    headline: str, site: str, separator: str
) -> None:
    text = f"{headline} {separator} {site}"
    assert without_site_name(text, [site]) == headline


@given(
    st.text(min_size=0, max_size=60),
    st.lists(st.text(min_size=0, max_size=12), max_size=3),
)
def test_a_cut_title_is_always_the_page_s_own_text(text: str, names: list[str]) -> None:
    cut = without_site_name(text, names)
    assert cut is None or (cut and cut in text and len(cut) < len(text))
