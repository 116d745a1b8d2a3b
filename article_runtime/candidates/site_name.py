"""Title candidates with the site's name taken off: "Headline | Site" gives "Headline".

Document titles, ``og:title`` and their kin often end (or begin) with the site's name, set off
by a separator: a run of at most three punctuation or math-symbol characters standing between
spaces (``|``, ``-``, ``–``, ``·``, ``::``, ``»``). The part on the far side of the first or last
separator is the site's name when its letters and digits begin or end like one of the names the
page gives itself (``og:site_name``, ``application-name``, a JSON-LD publisher, website or
organization) or a label of its host name (``fool.com`` and "The Motley Fool"); the rest is
then offered as one more title candidate, source ``site-removed``, placed just before the text
it came from (or merged into an identical candidate, where it counts as one more source
agreeing). Nothing is written: the candidate is the page's own text, cut at its own
punctuation. Unicode categories and the page's own names only, no word of any language.

Measured on wcxb-dev-articles: a candidate equal to the expected title on 32 more pages (0.887
to 0.932), the deterministic choice right on 8 more (0.827 to 0.838; bench/run.py).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Sequence
from urllib.parse import urlsplit

from article_runtime.model.candidates import MetadataCandidate

__all__ = ["SOURCE", "host_labels", "skeleton", "with_site_removed", "without_site_name"]

SOURCE = "site-removed"
_SEPARATOR_CATEGORIES = frozenset({"Pd", "Po", "Sm", "Pi", "Pf"})
_MAX_SEPARATOR = 3
_MIN_NAME = 3  # shorter names and labels ("go", "ml") must match whole, never as an end
_NOT_FROM = frozenset({"h1", SOURCE})  # the page's visible heading is never cut


def skeleton(text: str) -> str:
    """Letters and digits only, case-folded: the same name or title whatever its punctuation."""
    return "".join(ch for ch in text.casefold() if ch.isalnum())


def _is_separator(token: str) -> bool:
    return 0 < len(token) <= _MAX_SEPARATOR and all(
        unicodedata.category(ch) in _SEPARATOR_CATEGORIES and ch != "&" for ch in token
    )


def _names_match(part: str, name: str) -> bool:
    """One begins or ends the other (both skeletons); short ones must be equal."""
    if len(part) < _MIN_NAME or len(name) < _MIN_NAME:
        return part == name
    return (
        part.startswith(name) or part.endswith(name) or name.startswith(part) or name.endswith(part)
    )


def host_labels(url: str | None) -> list[str]:
    """The labels of ``url``'s host name that can name the site: all but the last (the
    top-level domain) and a leading ``www``; the whole host name's skeleton besides."""
    host = (urlsplit(url).hostname or "") if url else ""
    labels = [label for label in host.split(".") if label]
    if not labels:
        return []
    named = [label for label in labels[:-1] if label != "www"] or labels
    return [*named, skeleton(".".join(labels[-2:]))]


def _is_site_name(part: str, names: Iterable[str]) -> bool:
    mine = skeleton(part)
    return bool(mine) and any(
        _names_match(mine, skeleton(name)) for name in names if skeleton(name)
    )


def without_site_name(text: str, names: Sequence[str]) -> str | None:
    """``text`` without the site's name at its end (after its last separator) or, failing
    that, at its start (before its first one); None when neither end names the site."""
    tokens = text.split(" ")
    cuts = [
        at
        for at, token in enumerate(tokens)
        if _is_separator(token)
        and skeleton(" ".join(tokens[:at]))
        and skeleton(" ".join(tokens[at + 1 :]))
    ]
    if not cuts:
        return None
    last, first = cuts[-1], cuts[0]
    if _is_site_name(" ".join(tokens[last + 1 :]), names):
        return " ".join(tokens[:last]).strip()
    if _is_site_name(" ".join(tokens[:first]), names):
        return " ".join(tokens[first + 1 :]).strip()
    return None


def with_site_removed(
    candidates: Sequence[MetadataCandidate], names: Sequence[str], limit: int
) -> list[MetadataCandidate]:
    """``candidates`` and, for each markup title (not the ``h1``) that names the site at an
    end, that title without it: merged into an identical candidate, else placed just before
    the title it came from. At most ``limit`` candidates; IDs renumbered in order."""
    texts = [c.text for c in candidates]
    sources = [c.sources for c in candidates]
    for candidate in candidates:
        if not set(candidate.sources) - _NOT_FROM:
            continue
        cut = without_site_name(candidate.text, names)
        if not cut:
            continue
        if cut in texts:
            merged = sources[texts.index(cut)]
            if SOURCE not in merged:
                merged.append(SOURCE)
        elif len(texts) < limit:
            at = texts.index(candidate.text)
            texts.insert(at, cut)
            sources.insert(at, [SOURCE])
    prefix = candidates[0].id.rstrip("0123456789") if candidates else "t"
    return [
        MetadataCandidate(id=f"{prefix}{n}", text=text, source="+".join(source))
        for n, (text, source) in enumerate(zip(texts, sources, strict=True), start=1)
    ]
