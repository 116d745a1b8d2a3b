"""What a request carries besides its messages: the schema it answers to and its output cap.

The policy and the evals' live mode build requests through here, so what is evaluated live is
what production sends.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from article_runtime import contracts
from article_runtime.answer_bounds import AnswerBounds, answer_tokens
from article_runtime.llm.prompts import PromptSpec
from article_runtime.llm.providers import ProviderSpec
from article_runtime.tokens import tokenizer_for

__all__ = ["OutputCaps", "response_schema"]


def response_schema(spec: ProviderSpec, prompt: PromptSpec) -> dict[str, Any]:
    """The output schema as ``spec``'s ``response_format`` sends it: adapted to the strict
    subset for ``json_schema_strict``, the whole wire schema otherwise (and for the formats
    that send none, which then go unused)."""
    if spec.answer_format() == "json_schema_strict":
        return contracts.strict_wire_schema(prompt.output_schema)
    return contracts.wire_schema(prompt.output_schema)


@dataclass
class OutputCaps:
    """The output cap of one article's requests (``ProviderSpec.output_cap`` of the tokens
    its longest valid answer needs), counted once per tokenizer."""

    prompt: PromptSpec
    bounds: AnswerBounds
    _tokens: dict[str, int] = field(default_factory=dict)

    def answer_tokens(self, spec: ProviderSpec) -> int:
        encoding = tokenizer_for(spec.model)
        if encoding not in self._tokens:
            name = self.prompt.output_schema
            self._tokens[encoding] = answer_tokens(name, self.bounds, encoding)
        return self._tokens[encoding]

    def for_spec(self, spec: ProviderSpec) -> int | None:
        if spec.cap_parameter() == "none":
            return None
        return spec.output_cap(self.answer_tokens(spec))
