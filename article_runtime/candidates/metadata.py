"""Title, subtitle and author candidates, plus the deterministic date and source URL.

Candidates are gathered from markup conventions (JSON-LD, Open Graph, Twitter cards,
microdata, microformats, ``rel=author``, common ``byline``/``author`` class names) and the
feed, never from words of a language. Each list is ordered by measured reliability so the
first candidate is the best deterministic pick; the model may choose another one, never
write its own.

Orders measured on WCXB dev articles (first candidate = truth, case/punctuation folded):
title 597/711 (h1 first beat every permutation of the other sources and an agreement vote),
author 411/553 (the class-name byline is noisy, so it goes last), date 477/588 same day.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import islice
from typing import Any

from selectolax.lexbor import LexborHTMLParser, LexborNode

from article_runtime.candidates.dates import date_from_html, normalize_date
from article_runtime.candidates.jsonld import article_objects, jsonld_objects, person_names, texts
from article_runtime.candidates.segment import visible_text
from article_runtime.candidates.site_name import host_labels, with_site_removed
from article_runtime.candidates.urls import absolute_url, is_url
from article_runtime.model.candidates import (
    Decisions,
    FeedMetadata,
    MetadataCandidate,
    MetadataCandidates,
)
from article_runtime.text.segments import nfc, normalize_space

__all__ = ["extract_metadata", "published_candidates"]

MAX_CANDIDATES = 8  # per list: enough for every distinct source, small in the context
MAX_TEXT = 400  # longer is body text, not a title, dek or byline; dropped, never truncated
MAX_AUTHOR_TEXT = 120  # a longer "author" element is a bio box
MAX_PER_SOURCE = 64  # values read from one source: a page repeating a byline 10 000 times
# (each looked into for its name) would cost seconds and add nothing past the first few


@dataclass(frozen=True)
class _Page:
    tree: LexborHTMLParser
    objects: list[dict[str, Any]]
    articles: list[dict[str, Any]]
    metas: dict[str, list[str]]
    root: LexborNode | None  # the article's container, when the markup names one
    feed: FeedMetadata


Source = Callable[[_Page], Iterable[str]]


def extract_metadata(
    tree: LexborHTMLParser, page_url: str | None, feed: FeedMetadata | None
) -> tuple[MetadataCandidates, Decisions]:
    """Candidates for the model to choose from, and the decisions it may not change."""
    page = _page(tree, feed)
    published_at, published_source = _published(page, page_url)
    source_url, url_source = _source_url(page, page_url)
    titles = _collect("t", page, _TITLE_ORDER, MAX_TEXT)
    names = [*_site_names(page), *host_labels(page_url or source_url)]
    candidates = MetadataCandidates(
        title=with_site_removed(titles, names, MAX_CANDIDATES),
        subtitle=_collect("s", page, _SUBTITLE_ORDER, MAX_TEXT),
        author=_collect("a", page, _AUTHOR_ORDER, MAX_AUTHOR_TEXT),
    )
    decisions = Decisions(
        published_at=published_at,
        published_at_source=published_source,
        source_url=source_url,
        source_url_source=url_source,
    )
    return candidates, decisions


def _page(tree: LexborHTMLParser, feed: FeedMetadata | None) -> _Page:
    objects = jsonld_objects(tree)
    return _Page(
        tree=tree,
        objects=objects,
        articles=article_objects(objects),
        metas=_metas(tree),
        root=tree.css_first("article") or tree.css_first("main"),
        feed=feed or FeedMetadata(),
    )


def _collect(
    prefix: str, page: _Page, order: tuple[tuple[str, Source], ...], limit: int
) -> list[MetadataCandidate]:
    """Run the sources in order; identical texts merge into the first, sources joined by ``+``.

    The merged source names tell the model (and a reader of the trace) how many independent
    places agree on a text, which is the best evidence of a real title or byline.
    """
    texts_seen: list[str] = []
    sources: dict[str, list[str]] = {}
    for name, source in order:
        for raw in islice(source(page), MAX_PER_SOURCE):
            text = nfc(normalize_space(raw))
            if not text or len(text) > limit:
                continue
            if text in sources:
                if name not in sources[text]:
                    sources[text].append(name)
                continue
            if len(texts_seen) < MAX_CANDIDATES:
                texts_seen.append(text)
                sources[text] = [name]
    return [
        MetadataCandidate(id=f"{prefix}{n}", text=text, source="+".join(sources[text]))
        for n, text in enumerate(texts_seen, start=1)
    ]


# --- page access -------------------------------------------------------------------------


def _metas(tree: LexborHTMLParser) -> dict[str, list[str]]:
    """``<meta>`` contents keyed by lower-cased name, property, itemprop or http-equiv."""
    found: dict[str, list[str]] = {}
    for node in tree.css("meta"):
        attrs = node.attributes
        content = attrs.get("content")
        if not content:
            continue
        for attr in ("name", "property", "itemprop", "http-equiv"):
            key = (attrs.get(attr) or "").strip().lower()
            if key:
                found.setdefault(key, []).append(content)
    return found


def _text(node: LexborNode) -> str:
    """What a reader sees: ``content``/``datetime`` for void elements, else the element's
    text as the page's blocks give it (``visible_text``)."""
    for attr in ("content", "datetime"):
        value = node.attributes.get(attr)
        if value:
            return value
    return visible_text(node)


def _meta(*keys: str) -> Source:
    def source(page: _Page) -> Iterable[str]:
        for key in keys:
            yield from page.metas.get(key, [])

    return source


def _css(selector: str, *, scoped: bool = False, first: bool = False) -> Source:
    """Texts of matching elements, inside the article container first when ``scoped``."""

    def source(page: _Page) -> Iterable[str]:
        roots = [page.root] if scoped and page.root is not None else []
        if page.tree.root is not None:
            roots.append(page.tree.root)
        for root in roots:
            nodes = root.css(selector)
            for node in nodes[:1] if first else nodes:
                yield _text(node)
            if nodes and first:
                return

    return source


def _jsonld(key: str, *, articles_only: bool = True) -> Source:
    def source(page: _Page) -> Iterable[str]:
        for obj in page.articles if articles_only else page.objects:
            yield from texts(obj.get(key))

    return source


def _feed(field: str) -> Source:
    def source(page: _Page) -> Iterable[str]:
        value = getattr(page.feed, field)
        return [value] if isinstance(value, str) else []

    return source


# --- titles ------------------------------------------------------------------------------

_TITLE_ORDER: tuple[tuple[str, Source], ...] = (
    ("h1", _css("h1", scoped=True, first=True)),
    ("json-ld:headline", _jsonld("headline")),
    ("og:title", _meta("og:title")),
    ("feed:title", _feed("title")),
    ("itemprop:headline", _css("[itemprop~=headline]")),
    ("twitter:title", _meta("twitter:title")),
    ("json-ld:name", _jsonld("name")),
    ("title", _css("head title", first=True)),
)

_SITE_TYPES = frozenset({"WebSite", "Organization", "NewsMediaOrganization", "Corporation"})


def _site_names(page: _Page) -> Iterator[str]:
    """The names the page gives its site: ``og:site_name`` and kin, then JSON-LD websites,
    organizations and article publishers (schema.org types, no word of a language)."""
    for key in ("og:site_name", "application-name", "apple-mobile-web-app-title"):
        yield from page.metas.get(key, [])
    for obj in islice(page.objects, MAX_PER_SOURCE):
        kinds = obj.get("@type")
        kinds = kinds if isinstance(kinds, list) else [kinds]
        if any(isinstance(kind, str) and kind in _SITE_TYPES for kind in kinds):
            yield from texts(obj.get("name"))
        publisher = obj.get("publisher")
        if isinstance(publisher, dict):
            yield from texts(publisher.get("name"))


# --- subtitles ---------------------------------------------------------------------------


def _dek(page: _Page) -> Iterable[str]:
    """The ``h2``/``p`` right after the article's ``h1``, inside its header: the standfirst."""
    scope = page.root if page.root is not None else page.tree.root
    if scope is None:
        return
    h1 = scope.css_first("h1")
    if h1 is None or not (_inside(h1, "header") or _inside(h1, "hgroup")):
        return
    sibling = h1.next
    while sibling is not None and sibling.tag in ("-text", "_comment", "-comment"):
        sibling = sibling.next
    if sibling is not None and sibling.tag in ("h2", "p"):
        yield _text(sibling)


def _inside(node: LexborNode, tag: str) -> bool:
    parent = node.parent
    while parent is not None:
        if parent.tag == tag:
            return True
        parent = parent.parent
    return False


_SUBTITLE_ORDER: tuple[tuple[str, Source], ...] = (
    ("json-ld:alternativeHeadline", _jsonld("alternativeHeadline")),
    ("itemprop:alternativeHeadline", _css("[itemprop~=alternativeHeadline]")),
    ("header-dek", _dek),
    ("p-summary", _css(".p-summary", scoped=True)),
    ("og:description", _meta("og:description")),
    ("description", _meta("description")),
    ("json-ld:description", _jsonld("description")),
    ("itemprop:description", _css("[itemprop~=description]", scoped=True)),
    ("twitter:description", _meta("twitter:description")),
    ("feed:subtitle", _feed("subtitle")),
)

# --- authors -----------------------------------------------------------------------------


def _jsonld_authors(*, people: bool) -> Source:
    """Authors of the first article object that names any.

    Several people give first one candidate joining them with ``, `` (the article's whole
    byline, punctuation only, no word of any language), then one candidate per person.
    """

    def source(page: _Page) -> Iterable[str]:
        for obj in page.articles:
            names = [
                name
                for name in person_names(obj.get("author"), page.objects, people=people)
                if name.strip() and not is_url(name)
            ]
            if names:
                if len(names) > 1:
                    yield ", ".join(normalize_space(name) for name in names)
                yield from names
                return

    return source


def _meta_authors(page: _Page) -> Iterable[str]:
    keys = ("author", "article:author", "dc.creator", "dcterms.creator", "parsely-author")
    for key in keys:
        yield from (value for value in page.metas.get(key, []) if not is_url(value))


def _itemprop_authors(page: _Page) -> Iterable[str]:
    scope = page.root if page.root is not None else page.tree.root
    if scope is None:
        return
    for node in scope.css("[itemprop~=author]"):
        named = node.css_first("[itemprop~=name]")
        yield _text(named if named is not None else node)


def _hcard_authors(page: _Page) -> Iterable[str]:
    for node in page.tree.css(".p-author, .h-card"):
        named = node.css_first(".p-name")
        yield _text(named if named is not None else node)


_BYLINE_PARTS = ("[class*=byline i]", "[class*=author i]")  # markup conventions, any casing
_BYLINE = ", ".join(_BYLINE_PARTS)


def _bylines(page: _Page) -> Iterable[str]:
    """Innermost elements whose class says byline or author, in the article first.

    An element whose class says both (``post-author__byline``) is left out: on WCXB these
    are labels ("Posted by:") or wrappers, and the name sits in a sibling (measured: 2 more
    right authors; the earlier quadratic version left them out by counting their double
    match as a descendant).
    """
    roots = [page.root, page.tree.root] if page.root is not None else [page.tree.root]
    for root in roots:
        if root is None:
            continue
        for node in innermost(root.css(_BYLINE)):
            if not all(node.css_matches(part) for part in _BYLINE_PARTS):
                yield visible_text(node)


def innermost(matches: list[LexborNode]) -> Iterator[LexborNode]:
    """The matches that hold no other match, in order, in time linear in the tree.

    Asking each match for matches inside it was quadratic in nested bylines (150 levels of
    200 bylines: 1.2 s). Instead each match marks its ancestors, and a walk up stops at the
    first node an earlier walk already marked, so every node is visited once.
    """
    matched = {node.mem_id for node in matches}
    seen: set[int] = set()
    holders: set[int] = set()
    for node in matches:
        parent = node.parent
        while parent is not None and parent.mem_id not in seen:
            seen.add(parent.mem_id)
            if parent.mem_id in matched:
                holders.add(parent.mem_id)
            parent = parent.parent
    return (node for node in matches if node.mem_id not in holders)


_AUTHOR_ORDER: tuple[tuple[str, Source], ...] = (
    ("json-ld:author", _jsonld_authors(people=True)),
    ("meta:author", _meta_authors),
    ("feed:author", _feed("author")),
    ("itemprop:author", _itemprop_authors),
    ("rel-author", _css("a[rel~=author]", scoped=True)),
    ("p-author", _hcard_authors),
    ("author-link", _css("a[href*='/author/' i], a[href*='/authors/' i]", scoped=True)),
    ("json-ld:author-org", _jsonld_authors(people=False)),
    ("byline", _bylines),
)

# --- decisions ---------------------------------------------------------------------------

_DATE_ORDER: tuple[tuple[str, Source], ...] = (
    ("json-ld:datePublished", _jsonld("datePublished")),
    ("article:published_time", _meta("article:published_time")),
    ("itemprop:datePublished", _css("[itemprop~=datePublished]")),
    ("time", _css("time[datetime]", scoped=True, first=True)),
    (
        "meta:date",
        _meta(
            "pubdate",
            "publishdate",
            "date",
            "dc.date",
            "dc.date.issued",
            "dcterms.date",
            "dcterms.issued",
            "sailthru.date",
            "parsely-pub-date",
            "citation_publication_date",
        ),
    ),
    ("json-ld:page-datePublished", _jsonld("datePublished", articles_only=False)),
    ("feed:published_at", _feed("published_at")),
)


def _published(page: _Page, page_url: str | None) -> tuple[str | None, str | None]:
    """Declared dates first; htmldate (URL patterns, visible dates) only when none parses."""
    return next(_dates(page, page_url, guess=False), None) or _guessed(page, page_url)


def _dates(page: _Page, page_url: str | None, *, guess: bool) -> Iterator[tuple[str, str]]:
    """Every declared date that parses, in the order of ``_DATE_ORDER``, then htmldate's
    guess when ``guess``."""
    for name, source in _DATE_ORDER:
        for raw in islice(source(page), MAX_PER_SOURCE):
            iso = normalize_date(raw)
            if iso is not None:
                yield iso, name
    if guess:
        found = _guessed(page, page_url)
        if found[0] is not None and found[1] is not None:
            yield found[0], found[1]


def _guessed(page: _Page, page_url: str | None) -> tuple[str | None, str | None]:
    guessed = date_from_html(page.tree.html or "", page_url)
    return (guessed, "htmldate") if guessed is not None else (None, None)


def published_candidates(tree: LexborHTMLParser, page_url: str | None) -> list[tuple[str, str]]:
    """Every date the page declares, with its source, and htmldate's guess: what a choice
    among dates could reach (the benchmark's 'best source'); the decision is the first."""
    return list(_dates(_page(tree, None), page_url, guess=True))


def _source_url(page: _Page, page_url: str | None) -> tuple[str | None, str | None]:
    """Canonical, then ``og:url``, then where ingestion fetched it, then the feed's link."""
    canonical = [
        node.attributes.get("href") or ""
        for node in page.tree.css("link[rel*=canonical i]")  # a superset, filtered exactly
        if "canonical" in (node.attributes.get("rel") or "").lower().split()
    ]
    tried = (
        ("canonical", canonical),
        ("og:url", page.metas.get("og:url", [])),
        ("page_url", [page_url or ""]),
        ("feed:url", [page.feed.url or ""]),
    )
    for name, values in tried:
        for value in values:
            absolute = absolute_url(value, page_url)
            if absolute is not None:
                return absolute, name
    return None, None
