"""How long a valid answer can be: the output schema's bounds, with the article's own counts.

Every part of a valid answer is bounded: an array by its ``maxItems`` or, for the ID lists the
schema cannot bound (``kept_block_ids``...), by the candidates of that kind in this article; a
string by its ``maxLength``; an ID by the longest ID the article has. The longest valid answer
gives two limits, both derived here so they cannot drift from the schema:

- in characters, the most a valid answer can hold, whitespace aside (every character written
  as the longest JSON escape): a longer answer is refused before it is parsed;
- in tokens, the output cap sent with each request: the longest answer pretty-printed (the
  wider of the two layouts models write), its free text counted at the densest tokens per
  character of the article's own text, which repairs quote.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from article_runtime.errors import ContractError
from article_runtime.model import CandidateSet
from article_runtime.tokens import count_tokens

__all__ = [
    "ESCAPED_CHARACTER",
    "AnswerBounds",
    "answer_tokens",
    "hygiene_bounds",
    "is_id",
    "list_overflow",
    "longest_answer_length",
]

ESCAPED_CHARACTER = 12
"""JSON characters one string character can take: a surrogate pair ``\\ud83d\\ude00``; a
character of the Basic Multilingual Plane takes at most six (``\\u00e9``)."""


@dataclass(frozen=True, slots=True)
class AnswerBounds:
    """What bounds an answer for one article besides its schema.

    ``lists``: for each top-level array the schema leaves unbounded, the values it may hold
    (its candidates' IDs): at most that many items. ``ids``: every ID the answer may name (the
    longest fills each ID field). ``texts``: the article text its strings may quote.
    """

    lists: Mapping[str, Sequence[str]]
    ids: Sequence[str]
    texts: Sequence[str] = field(default=())

    @property
    def longest_id(self) -> str:
        return max(self.ids, key=len, default="")


def is_id(node: Mapping[str, Any]) -> bool:
    """An ID field: a string of 1 to 16 characters, as every output schema writes IDs."""
    types = node.get("type")
    names = types if isinstance(types, list) else [types]
    return "string" in names and node.get("minLength") == 1 and node.get("maxLength") == 16


def hygiene_bounds(candidates: CandidateSet) -> AnswerBounds:
    """The hygiene answer's per-article bounds: its ID lists hold at most every candidate of
    their kind, and a block's removal reason at most once per block."""
    m = candidates.metadata_candidates
    metadata = [*m.title, *m.subtitle, *m.author]
    blocks = [b.id for b in candidates.blocks]
    return AnswerBounds(
        lists={
            "kept_block_ids": blocks,
            "kept_link_ids": [ln.id for ln in candidates.links],
            "kept_image_ids": [im.id for im in candidates.images],
            "removed_block_reasons": blocks,
        },
        ids=[*blocks, *(c.id for c in metadata)],
        texts=[*(b.text for b in candidates.blocks), *(c.text for c in metadata)],
    )


def list_overflow(data: object, bounds: AnswerBounds) -> str | None:
    """``name: maxItems N`` for the first bounded list that holds more items than its
    article has candidates, or None."""
    if not isinstance(data, dict):
        return None
    for name, values in bounds.lists.items():
        held = data.get(name)
        if isinstance(held, list) and len(held) > len(values):
            return f"{name}: maxItems {len(values)}"
    return None


class _Walk:
    """One pass over a schema building the longest valid answer."""

    def __init__(self, schema: Mapping[str, Any], bounds: AnswerBounds) -> None:
        self.definitions: Mapping[str, Any] = schema.get("definitions") or {}
        self.bounds = bounds
        self.free: list[int] = []  # maxLength of every string of free text in the answer

    def node(self, node: Mapping[str, Any], name: str | None) -> Any:
        ref = node.get("$ref")
        if ref is not None:
            return self.node(self.definitions[str(ref).rsplit("/", 1)[-1]], name)
        if "enum" in node:
            return max(node["enum"], key=lambda value: len(json.dumps(value)))
        types = node.get("type")
        names = [str(t) for t in (types if isinstance(types, list) else [types])]
        for kind in ("object", "array", "string"):  # the longest a union admits
            if kind in names:
                return getattr(self, kind)(node, name)
        if "boolean" in names:
            return False
        if names == ["null"]:
            return None
        raise ContractError("malformed_schema", f"no length bound for {names}")

    def object(self, node: Mapping[str, Any], _name: str | None) -> dict[str, Any]:
        return {key: self.node(sub, key) for key, sub in (node.get("properties") or {}).items()}

    def array(self, node: Mapping[str, Any], name: str | None) -> list[Any]:
        items: Mapping[str, Any] = node.get("items") or {}
        if "maxItems" in node:
            return [self.node(items, None) for _ in range(int(node["maxItems"]))]
        values = self.bounds.lists.get(name or "")
        if values is None:
            raise ContractError(
                "malformed_schema", f"array {name!r} has no maxItems and no per-article bound"
            )
        if is_id(items):
            return list(values)
        return [self.node(items, None) for _ in values]

    def string(self, node: Mapping[str, Any], _name: str | None) -> str:
        if is_id(node):
            return self.bounds.longest_id or "x" * int(node["maxLength"])
        if "maxLength" not in node:
            raise ContractError("malformed_schema", "a string of free text has no maxLength")
        self.free.append(int(node["maxLength"]))
        return ""


def _longest(schema: Mapping[str, Any], bounds: AnswerBounds) -> tuple[Any, list[int]]:
    walk = _Walk(schema, bounds)
    return walk.node(schema, None), walk.free


def _length(value: Any) -> int:
    """Characters of ``value`` as compact JSON with every string character escaped at most."""
    if isinstance(value, dict):
        inner = sum(_length(key) + 1 + _length(item) for key, item in value.items())
        return 2 + inner + max(len(value) - 1, 0)
    if isinstance(value, list):
        return 2 + sum(_length(item) for item in value) + max(len(value) - 1, 0)
    if isinstance(value, str):  # a key, an ID or an enum value: known characters
        return 2 + sum(ESCAPED_CHARACTER if ord(ch) > 0xFFFF else 6 for ch in value)
    return len(json.dumps(value))  # null, false


def longest_answer_length(schema: Mapping[str, Any], bounds: AnswerBounds) -> int:
    """The most characters, outside JSON whitespace, a valid answer can hold.

    Raises:
        ContractError: ``malformed_schema`` when some part of the schema is unbounded.
    """
    value, free = _longest(schema, bounds)  # free text left empty: add its longest
    return _length(value) + ESCAPED_CHARACTER * sum(free)


def densest(texts: Sequence[str], width: int, encoding: str) -> float:
    """The most tokens per character among the ``width``-character pieces the article's text
    (``texts`` one a line) cuts into, each written as a JSON string (quotes, escapes); the
    whole text's when it is shorter, and one per character when there is none."""
    whole = "\n".join(texts)
    if not whole:
        return 1.0
    if len(whole) < width:
        return _string_tokens(whole, encoding) / len(whole)
    pieces = (whole[at : at + width] for at in range(0, len(whole) - width + 1, width))
    return max(_string_tokens(piece, encoding) for piece in pieces) / width


def _string_tokens(text: str, encoding: str) -> int:
    return count_tokens(json.dumps(text, ensure_ascii=False), encoding)


def answer_tokens(
    schema: Mapping[str, Any],
    bounds: AnswerBounds,
    encoding: str,
    *,
    density: Callable[[Sequence[str], int, str], float] = densest,
) -> int:
    """The tokens of the longest valid answer in ``encoding``: its structure and IDs counted
    exactly as pretty-printed JSON, each free-text string as ``maxLength`` characters at the
    densest tokens per character of the article's text.

    Raises:
        ContractError: ``malformed_schema`` when some part of the schema is unbounded.
    """
    value, free = _longest(schema, bounds)
    structure = count_tokens(json.dumps(value, ensure_ascii=False, indent=2), encoding)
    if not free:
        return structure
    per_character = density(bounds.texts, min(free), encoding)
    return structure + sum(math.ceil(length * per_character) for length in free)
