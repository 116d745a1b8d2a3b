"""extract_metadata on handcrafted pages, plus a check against three real WCXB pages."""

from __future__ import annotations

import gzip
import json
import unicodedata
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from selectolax.lexbor import LexborHTMLParser

from article_runtime.candidates.dates import normalize_date
from article_runtime.candidates.decode import decode_html
from article_runtime.candidates.metadata import extract_metadata
from article_runtime.model.candidates import FeedMetadata, MetadataCandidate, MetadataCandidates

BENCH = Path(__file__).parents[2].parent / "shared" / "bench"


def run(
    html: str, url: str | None = "https://news.example.com/a/1", feed: FeedMetadata | None = None
) -> tuple[MetadataCandidates, dict[str, str | None]]:
    candidates, decisions = extract_metadata(LexborHTMLParser(html), url, feed)
    return candidates, decisions.model_dump()


def ld(obj: object) -> str:
    return f'<script type="application/ld+json">{json.dumps(obj)}</script>'


def texts(items: list[MetadataCandidate]) -> list[str]:
    return [item.text for item in items]


GRAPH = {
    "@context": "https://schema.org",
    "@graph": [
        {"@type": "WebSite", "@id": "#site", "name": "Daily Example"},
        {"@type": "Person", "@id": "#ana", "name": "Ana Souza"},
        {
            "@type": "NewsArticle",
            "headline": "Rain floods &amp; closes the old bridge",
            "alternativeHeadline": "Third closure this year",
            "author": [{"@id": "#ana"}, {"@type": "Person", "name": "Rui Lima"}],
            "datePublished": "2024-03-05T08:30:00-03:00",
        },
    ],
}


def test_jsonld_graph_title_authors_and_date() -> None:
    cands, dec = run(f"<html><head>{ld(GRAPH)}</head><body><p>x</p></body></html>")
    assert [(c.id, c.text, c.source) for c in cands.title] == [
        ("t1", "Rain floods & closes the old bridge", "json-ld:headline")
    ]
    assert texts(cands.author) == ["Ana Souza, Rui Lima", "Ana Souza", "Rui Lima"]
    assert [c.id for c in cands.author] == ["a1", "a2", "a3"]
    assert texts(cands.subtitle) == ["Third closure this year"]
    assert dec["published_at"] == "2024-03-05T08:30:00-03:00"
    assert dec["published_at_source"] == "json-ld:datePublished"


def test_jsonld_list_and_string_author_and_organization_last() -> None:
    data = [
        {
            "@type": "BlogPosting",
            "headline": "H",
            "author": {"@type": "Organization", "name": "Org"},
        },
    ]
    html = f'<head>{ld(data)}</head><body><a rel="author" href="/u/p">Paula Reis</a></body>'
    cands, _ = run(html)
    assert texts(cands.author) == ["Paula Reis", "Org"]
    assert [c.source for c in cands.author] == ["rel-author", "json-ld:author-org"]


def test_malformed_jsonld_does_not_crash() -> None:
    html = (
        '<head><script type="application/ld+json">{"@type": "Article", "headline": </script>'
        '<script type="application/ld+json">[1, "x", null, {"@graph": 5}]</script>'
        "<title>Only the title</title></head><body></body>"
    )
    cands, _ = run(html)
    assert texts(cands.title) == ["Only the title"]
    assert cands.author == []


def test_title_order_h1_in_article_first_and_duplicates_merge() -> None:
    html = (
        "<head><title>Bridge closed | Daily Example</title>"
        '<meta property="og:title" content="Bridge closed">'
        '<meta name="twitter:title" content="Bridge  closed">'
        "</head><body><header><h1>Daily Example</h1></header>"
        "<article><h1>Bridge closed</h1></article></body>"
    )
    cands, _ = run(html)
    assert [(c.text, c.source) for c in cands.title] == [
        ("Bridge closed", "h1+og:title+twitter:title+site-removed"),  # the <title> agrees too
        ("Bridge closed | Daily Example", "title"),
    ]


def test_entities_decoded_text_verbatim_no_prefix_stripping() -> None:
    html = (
        '<head><meta name="author" content="Por Jo&atilde;o Silva"></head>'
        "<body><article><h1>Caf&eacute; &amp; <em>p&atilde;o</em></h1>"
        '<p class="byline">By <a href="/author/ann">ANN LEE</a></p></article></body>'
    )
    cands, _ = run(html)
    assert texts(cands.title) == ["Café & pão"]
    assert texts(cands.author) == ["Por João Silva", "ANN LEE", "By ANN LEE"]
    assert [c.source for c in cands.author] == ["meta:author", "author-link", "byline"]


def test_article_author_url_is_not_a_candidate() -> None:
    html = (
        '<head><meta property="article:author" content="https://facebook.com/someone">'
        '</head><body><span itemprop="author" itemscope><span itemprop="name">Eva Z</span>'
        "</span></body>"
    )
    cands, _ = run(html)
    assert texts(cands.author) == ["Eva Z"]


def test_subtitle_sources_and_header_dek() -> None:
    html = (
        '<head><meta name="description" content="SEO text">'
        '<meta property="og:description" content="Social text"></head>'
        "<body><article><header><h1>Title</h1><p>The standfirst.</p></header>"
        "<p>Body.</p></article></body>"
    )
    cands, _ = run(html)
    assert [(c.text, c.source) for c in cands.subtitle] == [
        ("The standfirst.", "header-dek"),
        ("Social text", "og:description"),
        ("SEO text", "description"),
    ]


def test_lists_are_capped_and_long_texts_dropped() -> None:
    heads = "".join(f'<meta property="og:title" content="Title {n}">' for n in range(20))
    long = "x" * 500
    cands, _ = run(f'<head>{heads}<meta name="twitter:title" content="{long}"></head><body>')
    assert len(cands.title) == 8
    assert all(len(c.text) <= 400 for c in cands.title)


def test_relative_canonical_resolved_against_page_url() -> None:
    html = '<head><link rel="canonical" href="/news/bridge?id=7"></head><body></body>'
    _, dec = run(html, url="https://news.example.com/amp/bridge")
    assert dec["source_url"] == "https://news.example.com/news/bridge?id=7"
    assert dec["source_url_source"] == "canonical"


def test_non_http_canonical_rejected_then_og_url_then_page_then_feed() -> None:
    bad = '<link rel="canonical" href="javascript:alert(1)">'
    og = '<meta property="og:url" content="https://news.example.com/og">'
    _, dec = run(f"<head>{bad}{og}</head>")
    assert (dec["source_url"], dec["source_url_source"]) == (
        "https://news.example.com/og",
        "og:url",
    )
    _, dec = run(f"<head>{bad}</head>", url="https://news.example.com/p")
    assert (dec["source_url"], dec["source_url_source"]) == (
        "https://news.example.com/p",
        "page_url",
    )
    feed = FeedMetadata(url="https://feed.example.com/item")
    _, dec = run(f"<head>{bad}</head>", url=None, feed=feed)
    assert (dec["source_url"], dec["source_url_source"]) == (
        "https://feed.example.com/item",
        "feed:url",
    )
    _, dec = run("<head></head>", url="ftp://x.example.com/file")
    assert dec["source_url"] is None


@pytest.mark.parametrize(
    ("markup", "expected", "source"),
    [
        ('<meta property="article:published_time" content="2023-11-02T10:00:00Z">',
         "2023-11-02T10:00:00+00:00", "article:published_time"),
        ('<meta itemprop="datePublished" content="2023-11-02">', "2023-11-02",
         "itemprop:datePublished"),
        ('<meta name="parsely-pub-date" content="2023-11-02T10:00:00">', "2023-11-02T10:00:00",
         "meta:date"),
        ('<meta name="date" content="Thu, 02 Nov 2023 10:00:00 +0100">',
         "2023-11-02T10:00:00+01:00", "meta:date"),
    ],
)  # fmt: skip
def test_declared_date_formats(markup: str, expected: str, source: str) -> None:
    _, dec = run(f"<head>{markup}</head><body></body>", url=None)
    assert (dec["published_at"], dec["published_at_source"]) == (expected, source)


def test_time_inside_article_beats_time_elsewhere() -> None:
    html = (
        '<body><aside><time datetime="2020-01-01">old</time></aside>'
        '<article><time datetime="2022-06-30T12:00:00+02:00">x</time></article></body>'
    )
    _, dec = run(html, url=None)
    assert (dec["published_at"], dec["published_at_source"]) == (
        "2022-06-30T12:00:00+02:00",
        "time",
    )


def test_feed_fallback_for_everything() -> None:
    feed = FeedMetadata(
        title="Feed title", subtitle="Feed dek", author="Feed Author",
        published_at="2021-02-03", url="https://f.example.com/x",
    )  # fmt: skip
    cands, dec = run("<html><body><p>nothing</p></body></html>", url=None, feed=feed)
    assert [(c.text, c.source) for c in cands.title] == [("Feed title", "feed:title")]
    assert texts(cands.subtitle) == ["Feed dek"]
    assert texts(cands.author) == ["Feed Author"]
    assert (dec["published_at"], dec["published_at_source"]) == ("2021-02-03", "feed:published_at")


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("2024-03-05", "2024-03-05"),
        ("2024-03-05T08:30:00.000-0300", "2024-03-05T08:30:00-03:00"),
        ("September 4, 2025", "2025-09-04"),
        ("04/09/2025", None),  # April or September: refused
        ("25/09/2025", "2025-09-25"),
        ("Sep 2025", None),  # no day: refused, not completed
        ("soon", None),
        ("1066-10-14", None),
    ],
)
def test_normalize_date(raw: str, expected: str | None) -> None:
    assert normalize_date(raw) == expected


WCXB = BENCH / "wcxb-dev-articles"
REAL_PAGES = ["0001", "0015", "0026"]  # dates from JSON-LD, <time>, htmldate


@pytest.mark.bench
@pytest.mark.skipif(not WCXB.is_dir(), reason="../shared/bench is absent")
@pytest.mark.parametrize("page_id", REAL_PAGES)
def test_real_pages_title_and_date(page_id: str) -> None:
    record = json.loads((WCXB / "ground-truth" / f"{page_id}.json").read_text())
    truth = record["ground_truth"]
    raw = gzip.decompress((WCXB / "html" / f"{page_id}.html.gz").read_bytes())
    cands, dec = extract_metadata(LexborHTMLParser(decode_html(raw)), record["url"], None)
    assert cands.title[0].text == truth["title"]
    assert dec.published_at is not None
    assert dec.published_at[:10] == truth["publish_date"]


# Word boundaries a reader sees in markup: white space, a line break, a block of its own.
_SEPARATORS = st.sampled_from([" ", "\n", "<br>", "<br/>", " <br> ", ""])
_WORDS = st.lists(
    st.text(st.characters(categories=["Lu", "Ll", "Lo", "Nd"]), min_size=1, max_size=8),
    min_size=1,
    max_size=6,
)
_WRAPPERS = st.sampled_from(
    ["{}", "<b>{}</b>", "<span>{}</span>", '<a href="/x">{}</a>', "<div>{}</div>", "<p>{}</p>"]
)


def _markup(words: list[str], separators: list[str], wrappers: list[str]) -> str:
    out = wrappers[0].format(words[0])
    for word, sep, wrap, before in zip(words[1:], separators, wrappers[1:], wrappers, strict=False):
        if not sep and not any(w.startswith(("<div>", "<p>")) for w in (wrap, before)):
            sep = " "  # inline neighbours need a separator of their own
        out += sep + wrap.format(word)
    return out


@given(
    _WORDS,
    st.lists(_SEPARATORS, min_size=6, max_size=6),
    st.lists(_WRAPPERS, min_size=6, max_size=6),
)
def test_element_texts_keep_the_words_a_reader_sees_apart(
    words: list[str], separators: list[str], wrappers: list[str]
) -> None:
    """A heading or byline broken by ``<br>`` or a block is read word by word, never glued."""
    inner = _markup(words, separators, wrappers)
    page = (
        f"<html><body><article><h1>{inner}</h1>"
        f'<div class="byline">{inner}</div><p>Some text of the article.</p></article></body></html>'
    )
    candidates, _ = run(page)
    assert candidates.title[0].source == "h1"
    seen = [unicodedata.normalize("NFC", word) for word in words]  # the candidates are NFC
    assert candidates.title[0].text.split() == seen
    bylines = [c for c in candidates.author if c.source == "byline"]
    assert all(c.text.split() == seen for c in bylines)


def test_element_texts_leave_out_what_a_reader_does_not_see() -> None:
    page = (
        "<html><body><h1>Flood<script>var x = 1</script> closes <span hidden>SEO bait</span>"
        "the <ruby>橋<rt>はし</rt></ruby></h1></body></html>"
    )
    candidates, _ = run(page)
    assert texts(candidates.title) == ["Flood closes the 橋"]


def test_an_element_hidden_for_machines_is_still_read_as_metadata() -> None:
    """A ``rel=author`` link kept out of sight is metadata, as a ``<meta>`` is; what is hidden
    inside a chosen element is not."""
    page = (
        '<html><body><article><a rel="author" href="/a/ana" style="display:none">Ana '
        '<span style="display:none">(admin)</span>Souza</a><p>Text.</p></article></body></html>'
    )
    candidates, _ = run(page)
    assert "Ana Souza" in texts(candidates.author)
