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


def response_schema(prompt: PromptSpec) -> dict[str, Any]:
    """The output schema as ``response_format: json_schema`` sends it."""
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
            schema = contracts.load_schema(self.prompt.output_schema)
            self._tokens[encoding] = answer_tokens(schema, self.bounds, encoding)
        return self._tokens[encoding]

    def for_spec(self, spec: ProviderSpec) -> int | None:
        if spec.cap_parameter() == "none":
            return None
        return spec.output_cap(self.answer_tokens(spec))
