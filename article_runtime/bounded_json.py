"""JSON from outside (model answers, recorded proposals, JSON-LD): bounded nesting, valid text.

``json.loads`` recurses once per nesting level and raises ``RecursionError`` near Python's
limit, and everything that walks the result afterwards (pydantic, jsonschema-rs, trace
masking) recurses too. So nesting is measured before parsing, by one linear scan over the
structural characters, and a document nested deeper than any contract needs is refused.
JSON's ``\\ud800`` escapes decode to lone surrogates, which no UTF-8 output can carry (an
answer echoed to stdout or Kafka would fail there), so strings are checked after parsing.
Both refusals are ``ValueError``s, like every other malformed JSON.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["MAX_DEPTH", "BoundedJSONError", "loads", "nesting_depth"]

MAX_DEPTH = 32
"""Deepest nesting accepted. Our contracts need 4 (proposal, list, repair, string); JSON-LD
in the wild stays under 12."""

# Outside strings, valid JSON holds only these besides brackets and quotes: deleted at C speed
# before the Python loop looks at what is left.
_SCALARS = str.maketrans("", "", " \t\r\n,:0123456789.-+eEtrufalsn")


class BoundedJSONError(ValueError):
    """Nested deeper than allowed, or a string holding a lone surrogate."""


def nesting_depth(text: str, limit: int = MAX_DEPTH) -> int:
    """The deepest ``[``/``{`` nesting of ``text`` outside strings, counted up to ``limit + 1``.

    Linear: strings are skipped with ``str.find`` (an escaped quote is one preceded by an odd
    run of backslashes), and only brackets are looked at one by one.
    """
    depth = deepest = 0
    pos, end = 0, len(text)
    while pos < end:
        quote = text.find('"', pos)
        stop = end if quote < 0 else quote
        for ch in text[pos:stop].translate(_SCALARS):
            if ch in "[{":
                depth += 1
                if depth > deepest:
                    deepest = depth
                    if deepest > limit:
                        return deepest
            elif ch in "]}" and depth:
                depth -= 1
        if quote < 0:
            break
        pos = _string_end(text, quote + 1)
    return deepest


def _string_end(text: str, pos: int) -> int:
    """The index after the quote that closes the string starting at ``pos``."""
    while True:
        quote = text.find('"', pos)
        if quote < 0:
            return len(text)  # unterminated: json.loads will say so
        backslashes = 0
        while text[quote - 1 - backslashes] == "\\":
            backslashes += 1
        if backslashes % 2 == 0:
            return quote + 1
        pos = quote + 1


def _has_lone_surrogate(value: Any) -> bool:
    if isinstance(value, str):
        if value.isascii():
            return False
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return True
        return False
    if isinstance(value, dict):
        return any(_has_lone_surrogate(k) or _has_lone_surrogate(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_has_lone_surrogate(item) for item in value)
    return False


def loads(raw: str | bytes | bytearray, *, max_depth: int = MAX_DEPTH, strict: bool = True) -> Any:
    """``json.loads`` that never recurses past ``max_depth`` and never returns a lone surrogate.

    ``strict=False`` lets control characters stand inside strings, as ``json.loads`` does.

    Raises:
        ValueError: malformed JSON (``json.JSONDecodeError``), undecodable bytes
            (``UnicodeDecodeError``) or ``BoundedJSONError``.
    """
    text = raw if isinstance(raw, str) else bytes(raw).decode(json.detect_encoding(raw))
    depth = nesting_depth(text, max_depth)
    if depth > max_depth:
        raise BoundedJSONError(f"JSON nested deeper than {max_depth} levels")
    data = json.loads(text, strict=strict)
    if _has_lone_surrogate(data):
        raise BoundedJSONError("JSON string holds a lone surrogate (an unpaired \\ud800-\\udfff)")
    return data
