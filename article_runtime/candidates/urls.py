"""Resolve hrefs and srcs to absolute http(s) URLs, or reject them."""

from __future__ import annotations

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
        return raw if urlsplit(raw).netloc else None  # already absolute: skip urljoin
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
