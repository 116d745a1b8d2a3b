"""Resolve hrefs and srcs to absolute http(s) URLs, or reject them."""

from __future__ import annotations

import functools
from urllib.parse import urljoin, urlsplit

_KEPT_SCHEMES = frozenset({"http", "https"})


def absolute_url(raw: str | None, base: str | None) -> str | None:
    """Absolute http(s) URL for ``raw``, or None for empty, fragment-only, script or mail links.

    ``mailto:``/``tel:`` are dropped on purpose: they are contact widgets far more often than
    editorial links, and they carry personal data into the model's context.
    """
    if raw is None:
        return None
    raw = raw.strip()
    if not raw or raw.startswith("#"):
        return None
    lowered = raw[:8].lower()
    if lowered.startswith(("http://", "https://")) and " " not in raw:
        return raw if _has_host(raw, lowered.index("//") + 2) else None  # skip urljoin
    if base:
        rooted = _join_rooted(raw, base)
        if rooted is not None:
            return rooted
    try:
        resolved = urljoin(base, raw) if base else raw
        parts = urlsplit(resolved)
    except ValueError:
        return None
    if parts.scheme.lower() not in _KEPT_SCHEMES or not parts.netloc:
        return None
    return resolved


def document_base(base_href: str | None, page_url: str | None) -> str | None:
    """What relative references resolve against: ``<base href>`` (resolved) or the page URL."""
    if base_href and base_href.strip():
        return absolute_url(base_href, page_url) or page_url
    return page_url


# Fast paths for the two most common hrefs, exact equivalents of ``urljoin``/``urlsplit``
# (checked against them on every href and src of the WCXB and AEB pages plus 200 000 fuzzed
# values). Measured: 0.3 µs instead of 3 to 12 µs, for most of a page's links.


def _plain(url: str) -> bool:
    """Printable ASCII without brackets: what ``urlsplit`` neither cleans (tabs, newlines)
    nor validates (IPv6 brackets, NFKC host checks)."""
    return url.isascii() and url.isprintable() and "[" not in url and "]" not in url


def _has_host(url: str, host_at: int) -> bool:
    """Whether ``urlsplit(url).netloc`` is non-empty, for ``url`` starting ``http(s)://``."""
    if _plain(url):
        return len(url) > host_at and url[host_at] not in "/?#"
    return bool(urlsplit(url).netloc)


def _join_rooted(raw: str, base: str) -> str | None:
    """``urljoin(base, raw)`` for a plain root-relative ``raw`` (``/a/b?q#f``); None when
    ``raw`` is anything else, so the caller asks ``urljoin``."""
    if raw[:1] != "/" or raw[:2] == "//" or not _plain(raw):
        return None
    if ";" in raw or "/." in raw or raw[-1] in "?#" or "?#" in raw:
        return None  # parameters, dot segments, an empty query or fragment: urljoin edits
    origin = _origin(base)
    return origin + raw if origin is not None else None


@functools.lru_cache(maxsize=64)
def _origin(base: str) -> str | None:
    """``scheme://host`` of an http(s) base with a plain host; None for any other base."""
    try:
        parts = urlsplit(base)
    except ValueError:
        return None
    if parts.scheme not in _KEPT_SCHEMES or not parts.netloc or "[" in parts.netloc:
        return None
    return f"{parts.scheme}://{parts.netloc}"
