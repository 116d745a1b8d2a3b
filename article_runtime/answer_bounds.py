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
from functools import cache
from typing import Any

from article_runtime import contracts
from article_runtime.errors import ContractError
from article_runtime.model import CandidateSet
from article_runtime.tokens import count_tokens, token_counter

__all__ = [
    "ESCAPED_CHARACTER",
    "AnswerBounds",
    "answer_shape",
    "answer_tokens",
    "compile_shape",
    "hygiene_bounds",
    "is_id",
    "list_overflow",
    "longest_answer_length",
    "shape_length",
    "shape_tokens",
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


@dataclass(frozen=True, slots=True)
class _Literal:
    value: Any  # the longest value an enum (or a boolean, or null) admits


@dataclass(frozen=True, slots=True)
class _Id:
    pass


@dataclass(frozen=True, slots=True)
class _Free:
    max_length: int


@dataclass(frozen=True, slots=True)
class _Object:
    fields: tuple[tuple[str, _Shape], ...]


@dataclass(frozen=True, slots=True)
class _Array:
    item: _Shape
    max_items: int | None  # None: bounded per article by ``AnswerBounds.lists[name]``
    name: str


_Shape = _Literal | _Id | _Free | _Object | _Array


def compile_shape(schema: Mapping[str, Any]) -> _Shape:
    """The longest answer ``schema`` admits, as a tree of bounded parts.

    Raises:
        ContractError: ``malformed_schema`` when some part has no bound (an array without
            ``maxItems`` is bounded per article by its property name; a string of free text
            needs ``maxLength``; a number has none).
    """
    definitions: Mapping[str, Any] = schema.get("definitions") or {}

    def shape(node: Mapping[str, Any], name: str) -> _Shape:
        ref = node.get("$ref")
        if ref is not None:
            return shape(definitions[str(ref).rsplit("/", 1)[-1]], name)
        if "enum" in node:
            return _Literal(max(node["enum"], key=lambda value: len(json.dumps(value))))
        types = node.get("type")
        names = [str(t) for t in (types if isinstance(types, list) else [types])]
        if "object" in names:  # the longest a union admits
            fields = (node.get("properties") or {}).items()
            return _Object(tuple((key, shape(sub, key)) for key, sub in fields))
        if "array" in names:
            limit = node.get("maxItems")
            item = shape(node.get("items") or {}, name)
            return _Array(item, None if limit is None else int(limit), name)
        if "string" in names:
            if is_id(node):
                return _Id()
            if "maxLength" not in node:
                raise ContractError("malformed_schema", f"string {name!r} has no maxLength")
            return _Free(int(node["maxLength"]))
        if "boolean" in names:
            return _Literal(False)
        if names == ["null"]:
            return _Literal(None)
        raise ContractError("malformed_schema", f"{name!r}: no length bound for {names}")

    return shape(schema, "")


@cache
def answer_shape(name: str) -> _Shape:
    """``compile_shape`` of the output schema ``name`` (``contracts.HYGIENE_OUTPUT``...)."""
    return compile_shape(contracts.load_schema(name))


def _escaped(text: str) -> int:
    """Characters of ``text`` as a JSON string with every character escaped."""
    if text.isascii():
        return 2 + 6 * len(text)
    return 2 + sum(ESCAPED_CHARACTER if ord(ch) > 0xFFFF else 6 for ch in text)


def _count(node: _Array, bounds: AnswerBounds) -> int:
    if node.max_items is not None:
        return node.max_items
    values = bounds.lists.get(node.name)
    if values is None:
        raise ContractError(
            "malformed_schema", f"array {node.name!r} has no maxItems and no per-article bound"
        )
    return len(values)


def _length(node: _Shape, bounds: AnswerBounds, longest_id: int) -> int:
    if isinstance(node, _Literal):
        value = node.value
        return _escaped(value) if isinstance(value, str) else len(json.dumps(value))
    if isinstance(node, _Id):
        return longest_id
    if isinstance(node, _Free):
        return 2 + ESCAPED_CHARACTER * node.max_length
    if isinstance(node, _Object):
        inner = sum(
            _escaped(key) + 1 + _length(sub, bounds, longest_id) for key, sub in node.fields
        )
        return 2 + inner + max(len(node.fields) - 1, 0)
    count = _count(node, bounds)
    if isinstance(node.item, _Id) and node.max_items is None:
        values = bounds.lists[node.name]
        joined = "".join(values)
        items = 2 * count + (6 * len(joined) if joined.isascii() else _escaped(joined) - 2)
    else:
        items = count * _length(node.item, bounds, longest_id)
    return 2 + items + max(count - 1, 0)


def longest_answer_length(name: str, bounds: AnswerBounds) -> int:
    """The most characters, outside JSON whitespace, a valid answer to output schema ``name``
    can hold for the article ``bounds`` describes.

    Raises:
        ContractError: ``malformed_schema`` when some part of the schema is unbounded.
    """
    return shape_length(answer_shape(name), bounds)


def shape_length(shape: _Shape, bounds: AnswerBounds) -> int:
    """``longest_answer_length`` of a compiled schema."""
    return _length(shape, bounds, _escaped(bounds.longest_id) if bounds.ids else 2 + 6 * 16)


_JSON_STRING = json.JSONEncoder(ensure_ascii=False).encode


def densest(texts: Sequence[str], width: int, encoding: str) -> float:
    """The most tokens per character among the ``width``-character pieces the article's text
    (``texts`` one a line) cuts into, each written as a JSON string (quotes, escapes); the
    whole text's when it is shorter, and one per character when there is none."""
    whole = "\n".join(texts)
    if not whole:
        return 1.0
    if len(whole) < width:
        return count_tokens(_JSON_STRING(whole), encoding) / len(whole)
    count, string = token_counter(encoding), _JSON_STRING
    ends = range(width, len(whole) + 1, width)
    return max([count(string(whole[end - width : end])) for end in ends]) / width


@dataclass
class _Rendering:
    """The longest answer written out once, each array of repeated objects with one item:
    the others are counted as ``repeats`` (how many more, and one item's text)."""

    bounds: AnswerBounds
    free: list[tuple[int, int]] = field(default_factory=list)  # (maxLength, occurrences)
    repeats: list[tuple[int, str]] = field(default_factory=list)

    def value(self, node: _Shape, times: int, level: int, reduce: bool) -> Any:
        if isinstance(node, _Literal):
            return node.value
        if isinstance(node, _Id):
            return self.bounds.longest_id or "x" * 16
        if isinstance(node, _Free):
            self.free.append((node.max_length, times))
            return ""
        if isinstance(node, _Object):
            return {key: self.value(sub, times, level + 1, reduce) for key, sub in node.fields}
        count = _count(node, self.bounds)
        if isinstance(node.item, _Id) and node.max_items is None:
            return list(self.bounds.lists[node.name])
        if reduce and count > 1 and isinstance(node.item, (_Object, _Array)):
            first = self.value(node.item, times * count, level + 1, reduce=False)
            text = json.dumps(first, ensure_ascii=False, indent=2)
            indented = "\n".join(" " * 2 * (level + 1) + line for line in text.split("\n"))
            self.repeats.append((count - 1, ",\n" + indented))
            return [first]
        return [self.value(node.item, times, level + 1, reduce) for _ in range(count)]


def answer_tokens(
    name: str,
    bounds: AnswerBounds,
    encoding: str,
    *,
    density: Callable[[Sequence[str], int, str], float] = densest,
) -> int:
    """The tokens of the longest valid answer to output schema ``name`` in ``encoding``: its
    structure and IDs counted as pretty-printed JSON (each repeated object counted once with
    the separator before it and multiplied: alone, a piece counts about one token more than
    where it meets the one before), each free-text string as
    ``maxLength`` characters at the densest tokens per character of the article's text.

    Raises:
        ContractError: ``malformed_schema`` when some part of the schema is unbounded.
    """
    return shape_tokens(answer_shape(name), bounds, encoding, density=density)


def shape_tokens(
    shape: _Shape,
    bounds: AnswerBounds,
    encoding: str,
    *,
    density: Callable[[Sequence[str], int, str], float] = densest,
) -> int:
    """``answer_tokens`` of a compiled schema."""
    rendering = _Rendering(bounds)
    value = rendering.value(shape, 1, 0, reduce=True)
    tokens = count_tokens(json.dumps(value, ensure_ascii=False, indent=2), encoding)
    tokens += sum(more * count_tokens(text, encoding) for more, text in rendering.repeats)
    if rendering.free:
        per_character = density(bounds.texts, min(m for m, _ in rendering.free), encoding)
        tokens += sum(times * math.ceil(m * per_character) for m, times in rendering.free)
    return tokens
