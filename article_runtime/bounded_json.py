"""JSON from outside (model answers, recorded proposals, JSON-LD): bounded nesting, valid text.

``json.loads`` recurses once per nesting level and raises ``RecursionError`` near Python's
limit, and everything that walks the result afterwards (pydantic, jsonschema-rs, trace
masking) recurses too. So nesting is measured before parsing, by one linear scan over the
structural characters, and a document nested deeper than any contract needs is refused.
JSON's ``\\ud800`` escapes decode to lone surrogates, which no UTF-8 output can carry (an
answer echoed to stdout or Kafka would fail there), so strings are checked after parsing.
Model answers are held to two more rules: an object may not hold one key twice (``json.loads``
keeps the last value silently, so what the model meant is unknown), and a document longer than
the caller's bound is refused before it is parsed (parsing 12 MB of IDs takes seconds).
Every refusal is a ``ValueError``, like every other malformed JSON.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = [
    "MAX_DEPTH",
    "BoundedJSONError",
    "DuplicateKeyError",
    "TooLongError",
    "loads",
    "nesting_depth",
    "shown_key",
    "significant_length",
]

MAX_DEPTH = 32
"""Deepest nesting accepted. Our contracts need 4 (proposal, list, repair, string); JSON-LD
in the wild stays under 12."""

# Outside strings, valid JSON holds only these besides brackets and quotes: deleted at C speed
# before the Python loop looks at what is left.
_SCALARS = str.maketrans("", "", " \t\r\n,:0123456789.-+eEtrufalsn")


_WHITESPACE = " \t\n\r"  # JSON's insignificant whitespace (RFC 8259, section 2)
_SHOWN_KEY_LENGTH = 40


class BoundedJSONError(ValueError):
    """Nested deeper than allowed, or a string holding a lone surrogate."""


class DuplicateKeyError(BoundedJSONError):
    """An object holds one key twice (after escapes are decoded: ``"a"`` and ``"\\u0061"``)."""


class TooLongError(BoundedJSONError):
    """Longer, whitespace aside, than the caller's bound: refused before parsing."""


def shown_key(key: str) -> str:
    """A key as an error message may show it: a field name (ASCII identifier, short) as
    itself, anything else only by its length, so no text the key holds reaches a log."""
    if key.isascii() and key.isidentifier() and len(key) <= _SHOWN_KEY_LENGTH:
        return repr(key)
    return f"<a key of {len(key)} characters>"


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``object_pairs_hook`` refusing an object that holds a key twice."""
    result = dict(pairs)
    if len(result) == len(pairs):
        return result
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            raise DuplicateKeyError(f"an object holds the key {shown_key(key)} twice")
        seen.add(key)
    raise AssertionError("unreachable: fewer keys than pairs means a repeated key")


def significant_length(text: str) -> int:
    """``text``'s length without JSON whitespace: what no layout of the same value changes
    (spaces inside strings are left out too, which only makes the count smaller)."""
    return len(text) - sum(text.count(space) for space in _WHITESPACE)


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


def loads(
    raw: str | bytes | bytearray,
    *,
    max_depth: int = MAX_DEPTH,
    strict: bool = True,
    unique_keys: bool = False,
    max_length: int | None = None,
) -> Any:
    """``json.loads`` that never recurses past ``max_depth`` and never returns a lone surrogate.

    ``strict=False`` lets control characters stand inside strings, as ``json.loads`` does.
    ``unique_keys`` refuses an object holding a key twice; ``max_length`` refuses, before
    parsing, a document whose characters outside JSON whitespace are more than that.

    Raises:
        ValueError: malformed JSON (``json.JSONDecodeError``), undecodable bytes
            (``UnicodeDecodeError``) or ``BoundedJSONError`` (``DuplicateKeyError``,
            ``TooLongError``).
    """
    text = raw if isinstance(raw, str) else bytes(raw).decode(json.detect_encoding(raw))
    if max_length is not None and (length := significant_length(text)) > max_length:
        raise TooLongError(f"{length} characters, whitespace aside, > {max_length}")
    # No document holding at most max_depth brackets in all can nest deeper: the scan below
    # (a Python step per string) is needed only past that, which a long list of IDs is not.
    brackets = text.count("[") + text.count("{")
    if brackets > max_depth and nesting_depth(text, max_depth) > max_depth:
        raise BoundedJSONError(f"JSON nested deeper than {max_depth} levels")
    hook = _unique_keys if unique_keys else None
    data = json.loads(text, strict=strict, object_pairs_hook=hook)
    if _has_lone_surrogate(data):
        raise BoundedJSONError("JSON string holds a lone surrogate (an unpaired \\ud800-\\udfff)")
    return data
