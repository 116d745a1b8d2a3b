"""Stream cases made of real news pages: ``bench.stream_throughput``'s default (``--pages aeb``).

The synthetic cases (``tests.support.stream_cases``, ``--pages synthetic``) are pages of about
4 KB, where the work of an article (parsing, both model calls) is small beside what the stream
costs per message, which does not grow with the page. Real pages are tens to hundreds of KB of
raw HTML; these cases let the bench measure the ratio on them: the AEB set's raw pages
(``../shared/bench/aeb``), taken in turn, each with the case's marker written into its title
and at the start of every paragraph, so the scripted provider knows which case a request is
about, and with tag phrases read from the article's own text. Scenarios cycle as in the
synthetic cases (primary, fallback, deterministic, enrichment failure).

A page whose deterministic article fails the harness, or has too few phrases for three tags, is
skipped.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import islice

from article_runtime.candidates import build_candidates
from article_runtime.enrichment.blocks import build_enrichment_input
from article_runtime.errors import InputError, NoValidProposal
from article_runtime.extract import deterministic_article
from bench.run import aeb_pages
from tests.support.stream_cases import (
    _ENTITY,
    SCENARIOS,
    SENTIMENTS,
    CaseArticle,
    _marker,
    make_articles,
)

PAGE_SETS = ("synthetic", "aeb")
# The real pages: what both the stream bench and its yardstick run unless told.
DEFAULT_PAGES = "aeb"
TAG_WORDS = 2  # a tag phrase: two words read in a row from one block of the article
TAGS = 5
_NAME_ENDS = frozenset(b"> \t\r\n/")


def marked(html: bytes, marker: str) -> bytes:
    """``html`` with ``marker`` at the start of its first title's text and of every
    paragraph's (a ``>`` inside an attribute may put it inside the tag: harmless here)."""
    text = marker.encode("ascii") + b" "
    lowered = html.lower()
    out: list[bytes] = []
    start, titled = 0, False
    at = lowered.find(b"<")
    while at >= 0:
        name = _tag_name(lowered, at + 1)
        close = html.find(b">", at)
        if close < 0:
            break
        if name == b"p" or (name == b"title" and not titled):
            titled = titled or name == b"title"
            out += [html[start : close + 1], text]
            start = close + 1
        at = lowered.find(b"<", max(at + 1, start))
    out.append(html[start:])
    return b"".join(out)


def _tag_name(lowered: bytes, begin: int) -> bytes:
    end = begin
    while end < len(lowered) and lowered[end] not in _NAME_ENDS:
        end += 1
    return lowered[begin:end]


def phrases(html: bytes, url: str | None) -> tuple[str, ...]:
    """Up to ``TAGS`` two-word phrases from different blocks of the page's deterministic
    article (letters only, the marker left out), as an enrichment answer would cite them."""
    try:
        article = deterministic_article(
            build_candidates(html, url=url), html, source="", attempts=[]
        )
        blocks = build_enrichment_input(article, _ENTITY).blocks
    except (NoValidProposal, InputError):
        return ()
    found: list[str] = []
    seen: set[str] = set()
    for block in blocks:
        words = [w for w in block.text.split() if w.isalpha() and len(w) > 3]
        phrase = " ".join(words[1 : 1 + TAG_WORDS])
        if len(words) > TAG_WORDS and phrase in block.text and phrase.lower() not in seen:
            found.append(phrase)
            seen.add(phrase.lower())
        if len(found) == TAGS:
            break
    return tuple(found)


def page_articles(n: int, *, seed: int, pages: str) -> list[CaseArticle]:
    """``n`` cases of ``pages`` (``PAGE_SETS``): the synthetic ones, or the set's pages in turn.
    The same arguments give the same cases."""
    if pages == "synthetic":
        return make_articles(n, seed=seed)
    if pages != "aeb":
        raise ValueError(f"pages: one of {PAGE_SETS}")
    usable = list(islice(_usable_pages(seed), n))  # all of them when n is larger
    if not usable:
        raise RuntimeError("no usable page in ../shared/bench/aeb")
    cases = []
    for index in range(n):
        name, html, url, tags = usable[index % len(usable)]
        marker = _marker(seed, index)
        cases.append(
            CaseArticle(
                index=index,
                article_id=f"page-{seed}-{index:04d}-{name[:12]}",
                url=url,
                html=marked(html, marker),
                language="en",
                scenario=SCENARIOS[index % len(SCENARIOS)],
                marker=marker,
                title=marker,
                sentiment=SENTIMENTS[index % len(SENTIMENTS)],
                tag_phrases=tags,
            )
        )
    return cases


def _usable_pages(seed: int) -> Iterator[tuple[str, bytes, str, tuple[str, ...]]]:
    for page in aeb_pages(None):
        url = page.url or f"https://example.com/{page.name}"
        tags = phrases(marked(page.raw, _marker(seed, 0)), url)
        if len(tags) >= 3:
            yield page.name, page.raw, url, tags
