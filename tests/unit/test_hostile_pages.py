"""Whole pages built from hostile pieces: candidates and the harness raise nothing but
InputError, and every URL in the candidate set is in normal form (issue 9, section 4).

Valid URLs are mixed in (absolute ones built from RFC 3986's parts, and relative ones under
a valid base), so that links and images do reach the candidate set and the normal-form check
runs on them: ``hypothesis.event`` shows how often, and the test checks both occur."""

from __future__ import annotations

from collections import Counter

import hypothesis
from hypothesis import given, settings
from hypothesis import strategies as st

from article_runtime.candidates import build_candidates
from article_runtime.candidates.urls import normalize_url
from article_runtime.deterministic import deterministic_proposal
from article_runtime.errors import InputError
from article_runtime.harness.pipeline import run_hygiene_harness

LABEL = st.text("abcdefghijklmnopqrstuvwxyz0123456789-", min_size=1, max_size=12)
SEGMENT = st.text(
    st.characters(categories=["L", "N", "Zs"]) | st.sampled_from("-._~!$&'()*+,;=:@%"),
    max_size=12,
)
VALID_ABSOLUTE = st.builds(
    "{}://{}.{}/{}".format,
    st.sampled_from(["http", "https", "HTTPS"]),
    st.lists(LABEL, min_size=1, max_size=3).map(".".join),
    st.sampled_from(["org", "com", "example", "xn--p1ai"]),
    st.lists(SEGMENT, max_size=3).map("/".join),
)
VALID_RELATIVE = st.lists(SEGMENT, min_size=1, max_size=3).map("/".join)
HOSTILE_URLS = st.sampled_from(
    ["http://[::1", "https://[v1.x]/", "https://ex\uff03ample.org/", "https://x.org/a\nb\tc",
     "//[bad/x", "\\\\evil.example/x", "https://x.org:99999/", "HTTPS://X.ORG/Ü ü", "/rel path",
     "javascript:alert(1)", "", "#top", "https://u:p@x.org/"]
) | st.text(max_size=20)  # fmt: skip
URLS = VALID_ABSOLUTE | VALID_RELATIVE | HOSTILE_URLS
WIDTHS = st.integers(1, 4000).map(str)
VALUES = st.sampled_from(
    ["²²", "9" * 5000, "2024-01-01T10:00:00+99:00", "Mon, 01 Jan 2024 10:00:00 +9999", "base64",
     "x-no-such", "[" * 3000, '{"a":' * 2000]
) | st.text(max_size=20)  # fmt: skip
PROSE = "The quay opens next spring after two years of delays, the harbour authority said. " * 3


def _attr(value: str) -> str:
    return value.replace("&", "&amp;").replace("'", "&#39;")


@st.composite
def pages(draw: st.DrawFn) -> str:
    href, src, base, canonical, og = (draw(URLS) for _ in range(5))
    date, charset, jsonld, author = (draw(VALUES) for _ in range(4))
    width = draw(WIDTHS | VALUES)
    return (
        f"<html><head><meta charset='{_attr(charset)}'><base href='{_attr(base)}'>"
        f"<link rel=canonical href='{_attr(canonical)}'><meta property='og:url' "
        f"content='{_attr(og)}'><meta name=author content='{_attr(author)}'>"
        f"<meta property='article:published_time' content='{_attr(date)}'>"
        f"<script type='application/ld+json'>{jsonld}</script></head><body><article>"
        f"<h1>Quay opens</h1><p>{PROSE}<a href='{_attr(href)}'>the plan</a></p>"
        f"<img src='{_attr(src)}' width='{_attr(width)}'><p>{PROSE}</p></article></body></html>"
    )


SEEN: Counter[str] = Counter()


@settings(max_examples=400, deadline=None)
@given(pages(), URLS)
def test_hostile_pages_never_crash_and_keep_urls_normal(page: str, url: str) -> None:
    raw = page.encode("utf-8", errors="surrogatepass")
    try:
        candidates = build_candidates(raw, url=url)
    except InputError:
        hypothesis.event("refused")
        return
    found_urls = {"link": [link.href for link in candidates.links]}
    found_urls["image"] = [image.src for image in candidates.images]
    for kind, urls in found_urls.items():
        hypothesis.event(f"{kind}s: {'some' if urls else 'none'}")
        SEEN[kind] += len(urls)
        for found in urls:
            assert normalize_url(found) == found
    source_url = candidates.decisions.source_url
    assert source_url is None or normalize_url(source_url) == source_url
    result = run_hygiene_harness(
        candidates, deterministic_proposal(candidates), source_html=raw, path="primary", source="x"
    )
    if result.article is not None:
        result.article.model_dump_json()  # printable


def test_the_hostile_pages_property_reached_links_and_images() -> None:
    """Run after the property (same module, file order): both halves of its URL check ran."""
    if not SEEN:
        test_hostile_pages_never_crash_and_keep_urls_normal()
    assert SEEN["link"] > 0 and SEEN["image"] > 0, SEEN
