"""Decide whether an ``<img>`` is a common (editorial) image and where its real source is.

Structural signals only: declared size, URI scheme, file type, ARIA role. Pixels, icons and
inline data never reach the model: they cost tokens and are never article content.
"""

from __future__ import annotations

from collections.abc import Mapping

from article_runtime.candidates.urls import absolute_url, split_url

PIXEL_MAX = 2  # width or height at or below this: a tracking pixel
ICON_MAX = 40  # both sides declared and at or below this: an icon or avatar badge
_ICON_SUFFIXES = (".ico", ".svg", ".cur")
_LAZY_ATTRS = ("data-src", "data-lazy-src", "data-original", "data-url")

Attrs = Mapping[str, str | None]


def _first_srcset(value: str | None) -> str | None:
    if not value:
        return None
    first = value.strip().split(",")[0].strip()
    return first.split()[0] if first else None


def raw_source(attrs: Attrs) -> str | None:
    """The image's real source: lazy-loading attributes win over a placeholder ``src``."""
    for name in _LAZY_ATTRS:
        value = attrs.get(name)
        if value and not value.strip().lower().startswith("data:"):
            return value
    src = attrs.get("src")
    if src and not src.strip().lower().startswith("data:"):
        return src
    return _first_srcset(attrs.get("srcset")) or _first_srcset(attrs.get("data-srcset"))


_SIZE_DIGITS = 7  # more digits than this is no real size: read as "huge", never parsed whole


def _size(value: str | None) -> int | None:
    """The leading ASCII digits of a width/height attribute (``"16px"`` -> 16), like browsers.

    Only ASCII digits count: ``str.isdigit`` accepts ``²`` and other digits ``int`` refuses.
    """
    if not value:
        return None
    text = value.strip()
    end = 0
    while end < len(text) and "0" <= text[end] <= "9":
        end += 1
    if not end:
        return None
    digits = text[:end].lstrip("0") or "0"
    return int(digits) if len(digits) <= _SIZE_DIGITS else 10**_SIZE_DIGITS


def is_decorative(attrs: Attrs) -> bool:
    """Pixels, icons, presentation-only images."""
    if (attrs.get("role") or "").strip().lower() in {"presentation", "none"}:
        return True
    width, height = _size(attrs.get("width")), _size(attrs.get("height"))
    if any(side is not None and side <= PIXEL_MAX for side in (width, height)):
        return True
    return width is not None and height is not None and width <= ICON_MAX and height <= ICON_MAX


def image_url(attrs: Attrs, base: str | None) -> str | None:
    """Absolute source of a common image, or None when the image is not a candidate."""
    if is_decorative(attrs):
        return None
    url = absolute_url(raw_source(attrs), base)
    if url is None:
        return None
    parts = split_url(url)
    path = parts.path.lower() if parts is not None else ""
    if path.endswith(_ICON_SUFFIXES):
        return None
    return url
