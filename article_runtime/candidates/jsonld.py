"""JSON-LD as publishers actually write it: ``@graph``, lists, nesting, ``@id`` references.

Malformed blocks are skipped, never fatal: metadata is a hint, the article still stands.
Strings are HTML-unescaped: CMSs (WordPress above all) write ``&#8211;`` and ``&amp;`` into
JSON-LD, where the browser would never decode them.
"""

from __future__ import annotations

import html
from collections.abc import Iterator
from typing import Any

from selectolax.lexbor import LexborHTMLParser

from article_runtime import bounded_json

__all__ = [
    "JSONLD_SCRIPTS",
    "article_objects",
    "jsonld_objects",
    "parse_jsonld",
    "person_names",
    "texts",
]

_MAX_DEPTH = 12  # nesting beyond this is not metadata
_MAX_OBJECTS = 500  # a page's structured data, bounded
# Every script whose type could be JSON-LD (the exact type check follows): pages carry dozens
# of other scripts whose attributes need not be read.
JSONLD_SCRIPTS = "script[type*='ld+json' i]"

# schema.org type names (vocabulary of the format, not of a language) that carry an article.
_ARTICLE_SUFFIXES = ("Article", "Posting")
_ARTICLE_TYPES = frozenset({"Report", "Review", "LiveBlogPosting", "Recipe", "HowTo"})


def jsonld_objects(tree: LexborHTMLParser) -> list[dict[str, Any]]:
    """Every typed object in the page's JSON-LD, in document order, flattened."""
    found: list[dict[str, Any]] = []
    for script in tree.css(JSONLD_SCRIPTS):
        kind = (script.attributes.get("type") or "").strip().lower()
        if kind != "application/ld+json":
            continue
        data = parse_jsonld(script.text(deep=True))
        for obj in _walk(data, 0):
            found.append(obj)
            if len(found) >= _MAX_OBJECTS:
                return found
    return found


def parse_jsonld(text: str) -> Any:
    """One script's JSON, or None when it is malformed or nested past ``bounded_json``'s
    limit (whose bound also keeps the recursive readers below safe)."""
    try:
        return bounded_json.loads(text, strict=False)  # CMSs put raw newlines in strings
    except ValueError:
        return None


def _walk(node: object, depth: int) -> Iterator[dict[str, Any]]:
    if depth > _MAX_DEPTH:
        return
    if isinstance(node, list):
        for item in node:
            yield from _walk(item, depth + 1)
    elif isinstance(node, dict):
        if "@type" in node:
            yield node
        for key, value in node.items():
            if isinstance(value, dict | list) and key != "@context":
                yield from _walk(value, depth + 1)


def _types(obj: dict[str, Any]) -> list[str]:
    kind = obj.get("@type")
    items = kind if isinstance(kind, list) else [kind]
    return [item.rsplit("/", 1)[-1] for item in items if isinstance(item, str)]


def article_objects(objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The objects typed as an article (Article, NewsArticle, BlogPosting and kin)."""
    return [
        obj
        for obj in objects
        if any(t.endswith(_ARTICLE_SUFFIXES) or t in _ARTICLE_TYPES for t in _types(obj))
    ]


def texts(value: object) -> list[str]:
    """Plain strings of a schema.org text value: a string, ``{"@value": ...}`` or a list."""
    if isinstance(value, str):
        return [html.unescape(value)]
    if isinstance(value, dict) and isinstance(value.get("@value"), str):
        return [html.unescape(value["@value"])]
    if isinstance(value, list):
        return [text for item in value[:_MAX_OBJECTS] for text in texts(item)]
    return []


def person_names(value: object, objects: list[dict[str, Any]], *, people: bool) -> list[str]:
    """Names in an ``author`` value: strings, typed objects, ``@id`` references, lists of them.

    ``people`` selects persons (and untyped names) or, when False, organizations: a brand
    named as author is a weaker byline than the person the page shows.
    """
    if isinstance(value, list):
        return [
            name
            for item in value[:_MAX_OBJECTS]
            for name in person_names(item, objects, people=people)
        ]
    if isinstance(value, str):
        return texts(value) if people else []
    if not isinstance(value, dict):
        return []
    target = value
    if "name" not in value and isinstance(value.get("@id"), str):
        for obj in objects:
            if obj.get("@id") == value["@id"] and obj is not value:
                target = obj
                break
    kinds = _types(target)
    is_person = not kinds or "Person" in kinds
    return texts(target.get("name")) if is_person == people else []
