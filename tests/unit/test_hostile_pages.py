"""Whole pages built from hostile pieces: candidates and the harness raise nothing but
InputError, and every URL in the candidate set is in normal form (issue 9, section 4)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from article_runtime.candidates import build_candidates
from article_runtime.candidates.urls import normalize_url
from article_runtime.deterministic import deterministic_proposal
from article_runtime.errors import InputError
from article_runtime.harness.pipeline import run_hygiene_harness

URLS = st.sampled_from(
    ["http://[::1", "https://[v1.x]/", "https://ex\uff03ample.org/", "https://x.org/a\nb\tc",
     "//[bad/x", "\\\\evil.example/x", "https://x.org:99999/", "HTTPS://X.ORG/Ü ü", "/rel path",
     "javascript:alert(1)", "", "#top", "https://u:p@x.org/"]
) | st.text(max_size=20)  # fmt: skip
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
    width, date, charset, jsonld, author = (draw(VALUES) for _ in range(5))
    return (
        f"<html><head><meta charset='{_attr(charset)}'><base href='{_attr(base)}'>"
        f"<link rel=canonical href='{_attr(canonical)}'><meta property='og:url' "
        f"content='{_attr(og)}'><meta name=author content='{_attr(author)}'>"
        f"<meta property='article:published_time' content='{_attr(date)}'>"
        f"<script type='application/ld+json'>{jsonld}</script></head><body><article>"
        f"<h1>Quay opens</h1><p>{PROSE}<a href='{_attr(href)}'>the plan</a></p>"
        f"<img src='{_attr(src)}' width='{_attr(width)}'><p>{PROSE}</p></article></body></html>"
    )


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pages(), URLS)
def test_hostile_pages_never_crash_and_keep_urls_normal(page: str, url: str) -> None:
    raw = page.encode("utf-8", errors="surrogatepass")
    try:
        candidates = build_candidates(raw, url=url)
    except InputError:
        return
    for found in [link.href for link in candidates.links] + [i.src for i in candidates.images]:
        assert normalize_url(found) == found
    source_url = candidates.decisions.source_url
    assert source_url is None or normalize_url(source_url) == source_url
    result = run_hygiene_harness(
        candidates, deterministic_proposal(candidates), source_html=raw, path="primary", source="x"
    )
    if result.article is not None:
        result.article.model_dump_json()  # printable
