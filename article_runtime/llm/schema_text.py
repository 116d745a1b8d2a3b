"""An output JSON Schema written compactly for the model to read (spec 5.3 item 3).

The JSON Schema file stays the contract: the harness validates against it and providers
that take ``response_format`` receive its constraints without annotations
(``contracts.wire_schema``). The prompt carries the same contract in a TypeScript-like
shape, derived from the file so the two cannot drift: every key, type,
nullability, enum and length or item bound, without the descriptions (the prompt's own text
says what each field is for). On the hygiene schema this is about a fifth of the JSON text's
tokens.

Notation: ``NAME = T`` above the shape (an alias), ``{key: T, key?: T}`` (``?``: the key may be left
out; no other keys unless ``...``),
``T|null``, ``"a"|"b"`` (enum), ``[T]`` (array), bounds in parentheses: ``string(1-16)``
(length), ``[T](3-8)`` (items), ``(≤64)`` (at most).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from article_runtime.errors import ContractError

__all__ = ["schema_text"]

_KNOWN = frozenset(
    {
        "$schema",
        "$id",
        "title",
        "version",
        "description",
        "type",
        "enum",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "minLength",
        "maxLength",
        "minItems",
        "maxItems",
        "minimum",
        "maximum",
        "uniqueItems",
        "$ref",
        "definitions",
    }
)


def _bounds(node: Mapping[str, Any], low: str, high: str) -> str:
    least, most = node.get(low), node.get(high)
    if least is None and most is None:
        return ""
    if most is None:
        return f"(≥{least})"
    if least is None or least == 0:
        return f"(≤{most})"
    return f"({least}-{most})"


class _Writer:
    def __init__(self, root: Mapping[str, Any], aliases: Mapping[str, str]) -> None:
        self.definitions: Mapping[str, Any] = root.get("definitions") or {}
        self.aliases = aliases
        self.used: dict[str, str] = {}

    def node(self, node: Mapping[str, Any]) -> str:
        return self.alias(self._node(node))

    def alias(self, text: str) -> str:
        """``text``, or its alias (then defined above the shape)."""
        alias = self.aliases.get(text)
        if alias is None:
            return text
        self.used[alias] = text
        return alias

    def _node(self, node: Mapping[str, Any]) -> str:
        unknown = set(node) - _KNOWN
        if unknown:
            raise ContractError("malformed_schema", f"no compact form for {sorted(unknown)}")
        ref = node.get("$ref")
        if ref is not None:
            return self.node(self.definitions[str(ref).rsplit("/", 1)[-1]])
        if "enum" in node:
            return "|".join(_literal(value) for value in node["enum"])
        types = node.get("type", "any")
        names = types if isinstance(types, list) else [types]
        return "|".join(self.alias(self.typed(node, str(name))) for name in names)

    def typed(self, node: Mapping[str, Any], name: str) -> str:
        if name == "string":
            return "string" + _bounds(node, "minLength", "maxLength")
        if name in ("integer", "number"):
            return name + _bounds(node, "minimum", "maximum")
        if name == "array":
            items = self.node(node.get("items") or {})
            unique = " unique" if node.get("uniqueItems") else ""
            return f"[{items}]{_bounds(node, 'minItems', 'maxItems')}{unique}"
        if name == "object":
            required = set(node.get("required") or ())
            fields = ", ".join(
                f"{key}{'' if key in required else '?'}: {self.node(value)}"
                for key, value in (node.get("properties") or {}).items()
            )
            more = "" if node.get("additionalProperties") is False else ", ..."
            return "{" + fields + more + "}"
        return name  # boolean, null


def _literal(value: object) -> str:
    return f'"{value}"' if isinstance(value, str) else str(value).lower()


ID_ALIAS = {"string(1-16)": "ID"}
"""Every ID field of the runtime's output schemas: written once as ``ID = string(1-16)``."""


def schema_text(schema: Mapping[str, Any], aliases: Mapping[str, str] = ID_ALIAS) -> str:
    """The schema in the compact notation of the module docstring; a part written exactly as
    a key of ``aliases`` is written as its alias, defined on a line above the shape.

    Raises:
        ContractError: ``malformed_schema`` when the schema uses a keyword the notation
            cannot say (a new keyword must be given a form here, not silently dropped).
    """
    writer = _Writer(schema, aliases)
    shape = writer.node(schema)
    defined = [f"{alias} = {text}" for alias, text in writer.used.items()]
    return "\n".join([*defined, shape])
