"""URLs from pages: never an exception, always the normal form (issue 9, sections 2 and 4)."""

from __future__ import annotations

from urllib.parse import urljoin, urlsplit

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from article_runtime.candidates import urls
from article_runtime.candidates.urls import (
    absolute_url,
    document_base,
    is_url,
    normalize_url,
    split_url,
    url_host,
)

# Characters that break parsers and Markdown: brackets, NFKC-special forms, whitespace of every
# kind, controls, bidi and zero-width marks, percent signs, backslashes, quotes.
NASTY = "[]:@%\\/?#.\t\n\r \x00\x1f\x7f\u200b\u202e\u2028\uff03\uff0f\ufe13\u2100ü日\"'<>`{}|^()"
PIECES = st.text(alphabet=st.sampled_from(NASTY) | st.characters(), max_size=30)
SCHEMES = st.sampled_from(["http://", "https://", "HTTP://", "hTTps://", "//", "/", "", "ftp://"])
HOSTS = st.sampled_from(
    ["example.org", "EXAMPLE.org", "[::1]", "[::1", "[v1.x]", "bücher.de", "ex\uff03ample.org",
     "a:80", "a:443", "a:0080", "a:99999", "a:x", "u:p@h", "", "a..b", "xn--bcher-kva.de"]
)  # fmt: skip
URLISH = st.builds(lambda s, h, p: s + h + p, SCHEMES, HOSTS, PIECES) | PIECES
BASES = st.sampled_from(
    [None, "https://news.example.org/a/b?q=1", "http://news.example.org:8080/x/", "https://[::1]/"]
)


def _is_normal(url: str) -> bool:
    return (
        url.isascii()
        and url.isprintable()
        and " " not in url
        and url.split("://", 1)[0] in ("http", "https")
        and bool(urlsplit(url).hostname)
    )


@settings(max_examples=3000)
@given(URLISH, BASES)
@example("http://[::1", None)
@example("https://quay\uff03example.org/plan", None)
@example("https://x.org/the\nplan\t2025", None)
@example("//[bad/x", "https://news.example.org/")
@example("\\\\evil.example/x", "https://news.example.org/")
def test_absolute_url_never_raises_and_is_normal(raw: str, base: str | None) -> None:
    result = absolute_url(raw, base)
    if result is not None:
        assert _is_normal(result), result
        assert normalize_url(result) == result  # idempotent
        assert absolute_url(result, None) == result


@settings(max_examples=3000)
@given(URLISH, BASES)
def test_fast_paths_equal_the_general_path(raw: str, base: str | None) -> None:
    cleaned = raw.translate({9: None, 10: None, 13: None}).strip("".join(map(chr, range(33))))
    if not cleaned or cleaned.startswith("#"):
        return
    assert absolute_url(raw, base) == urls._resolve(cleaned, base)


@given(URLISH)
def test_parsing_helpers_never_raise(text: str) -> None:
    split_url(text)
    url_host(text)
    is_url(text)
    document_base(text, "https://news.example.org/")


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("HTTP://Example.ORG:80/a b/ü?q=ü#f g", "http://example.org/a%20b/%C3%BC?q=%C3%BC#f%20g"),
        ("https://bücher.de:443/", "https://xn--bcher-kva.de/"),
        ("https://[0:0::1]:8443/x", "https://[::1]:8443/x"),
        ("http:\\\\example.org\\a\\b?c\\d", "http://example.org/a/b?c%5Cd"),
        ("https://example.org/the\nplan\t2025", "https://example.org/theplan2025"),
        ("  https://example.org/a\u200bb ", "https://example.org/a%E2%80%8Bb"),
        ("https://user:pw@example.org/", None),
        ("https://example.org:99999/", None),
        ("https://[::1/", None),
        ("https://[v1.x]/", None),
        ("https://ex\uff03ample.org/", None),
        ("javascript:alert(1)", None),
        ("mailto:a@example.org", None),
    ],
)
def test_normal_form(raw: str, expected: str | None) -> None:
    assert normalize_url(raw) == expected


def test_relative_references_resolve_against_the_normal_base() -> None:
    base = "https://news.example.org/dir/page.html"
    assert absolute_url("rel/x y", base) == "https://news.example.org/dir/rel/x%20y"
    assert absolute_url("/root", base) == "https://news.example.org/root"
    assert absolute_url("//cdn.example.org/i.jpg", base) == "https://cdn.example.org/i.jpg"
    assert absolute_url("../up", base) == urljoin(base, "../up")
    assert absolute_url("#top", base) is None
    assert absolute_url("//[bad/x", base) is None
    assert document_base("http://[bad/", base) == base


def test_url_shaped_text_that_does_not_parse_still_reads_as_a_url() -> None:
    assert is_url("http://[quay") and is_url("https://example.org/x")
    assert not is_url("Ann Lee") and not is_url("www.example.org")
