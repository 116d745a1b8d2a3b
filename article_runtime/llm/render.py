"""Messages in the order of spec 5.3, with the article fenced off as data.

system: 1 common rules, 2 the call's responsibility, 3 schema and enums;
user:   4 structural context, 5 candidates and evidence (delimited data), 6 the final request.
The runtime and Promptfoo both render through here, so what is evaluated is what runs.
"""

from __future__ import annotations

from article_runtime import contracts
from article_runtime.enrichment.context import render_enrichment_data, render_entity
from article_runtime.enrichment.model import EnrichmentInput
from article_runtime.hygiene_context import render_hygiene_context
from article_runtime.llm.fence import DATA_CLOSE, DATA_OPEN, fence
from article_runtime.llm.prompts import PromptSpec
from article_runtime.llm.schema_text import schema_text
from article_runtime.model import CandidateSet

__all__ = [
    "DATA_CLOSE",
    "DATA_OPEN",
    "Message",
    "context_text",
    "enrichment_messages",
    "fence",
    "hygiene_messages",
    "render_messages",
    "split_prefix",
]

Message = dict[str, str]


def render_messages(spec: PromptSpec, *, structural_context: str, data: str) -> list[Message]:
    """System then user message; everything before the data is the same for every article
    of one prompt version, so providers can cache it as a prefix."""
    rules = "\n".join(spec.common_rules)  # one a line: numbers would add two tokens each
    schema = schema_text(contracts.load_schema(spec.output_schema))
    system = "\n\n".join(
        [
            f"# Rules\n{rules}",
            f"# Your responsibility\n{spec.responsibility}",
            f"# Answer format\n{spec.output_instructions}\n{schema}",
        ]
    )
    versions = f"prompt {spec.name} {spec.version}; output schema {spec.schema_version}"
    user = "\n\n".join(
        [
            f"# Context\n{spec.context_instructions}\n{versions}\n{structural_context}".rstrip(),
            f"{DATA_OPEN}\n{fence(data)}\n{DATA_CLOSE}",
            spec.final_request,
        ]
    )
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def hygiene_messages(spec: PromptSpec, candidates: CandidateSet) -> list[Message]:
    """Only what the hygiene call needs (spec 6.2): the candidate set, compactly. How to read
    it is the prompt's ``context_instructions``, and the candidate set's contract version is
    one for every article: both stand before the data, in the prefix providers can cache."""
    return render_messages(
        spec,
        structural_context=f"candidate set {candidates.schema_version}",
        data=render_hygiene_context(candidates),
    )


def enrichment_messages(spec: PromptSpec, inp: EnrichmentInput) -> list[Message]:
    """Only what enrichment needs (spec 9.2): the final article and the entity's identity.
    The entity comes from the ECP record, not the article, and is fenced all the same."""
    return render_messages(
        spec, structural_context=fence(render_entity(inp)), data=render_enrichment_data(inp)
    )


def context_text(messages: list[Message]) -> str:
    """The whole context as one string, for token counts and hashes."""
    return "\n\n".join(f"[{m['role']}]\n{m['content']}" for m in messages)


def split_prefix(text: str) -> tuple[str, str]:
    """``context_text`` cut after the data fence's opening line: the prefix is the same for
    every article of one prompt version (what a provider can cache), the rest is not."""
    marker = f"\n{DATA_OPEN}\n"
    at = text.find(marker)
    if at < 0:
        return "", text
    cut = at + len(marker)
    return text[:cut], text[cut:]
