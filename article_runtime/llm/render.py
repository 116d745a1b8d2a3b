"""Messages in the order of spec 5.3, with the article fenced off as data.

system: 1 common rules, 2 the call's responsibility, 3 schema and enums;
user:   4 structural context, 5 candidates and evidence (delimited data), 6 the final request.
The runtime and Promptfoo both render through here, so what is evaluated is what runs.
"""

from __future__ import annotations

import json

from article_runtime import contracts
from article_runtime.enrichment.model import EnrichmentInput
from article_runtime.hygiene_context import FORMAT_NOTE, render_hygiene_context
from article_runtime.llm.prompts import PromptSpec
from article_runtime.model import CandidateSet

Message = dict[str, str]

DATA_OPEN = "<article_data>"
DATA_CLOSE = "</article_data>"


def _fence(data: str) -> str:
    """Article text cannot close the data section early: the closing tag is broken up."""
    return data.replace(DATA_CLOSE, "</ article_data>")


def _answer_schema(name: str) -> dict[str, object]:
    """The output schema as the model needs it: without the file's own bookkeeping keys."""
    bookkeeping = {"$schema", "$id", "title", "version"}
    return {k: v for k, v in contracts.load_schema(name).items() if k not in bookkeeping}


def render_messages(spec: PromptSpec, *, structural_context: str, data: str) -> list[Message]:
    rules = "\n".join(f"{n}. {text}" for n, text in enumerate(spec.common_rules, start=1))
    schema = json.dumps(_answer_schema(spec.output_schema), ensure_ascii=False)
    system = "\n\n".join(
        [
            f"# Rules\n{rules}",
            f"# Your responsibility\n{spec.responsibility}",
            f"# Answer format\n{spec.output_instructions}\n{schema}",
        ]
    )
    versions = (
        f"prompt {spec.name} {spec.version}; output schema {spec.output_schema} "
        f"{spec.schema_version}"
    )
    user = "\n\n".join(
        [
            f"# Context\n{spec.context_instructions}\n{versions}\n{structural_context}".rstrip(),
            f"{DATA_OPEN}\n{_fence(data)}\n{DATA_CLOSE}",
            spec.final_request,
        ]
    )
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def hygiene_messages(spec: PromptSpec, candidates: CandidateSet) -> list[Message]:
    """Only what the hygiene call needs (spec 6.2): the candidate set, compactly."""
    return render_messages(
        spec, structural_context=FORMAT_NOTE, data=render_hygiene_context(candidates)
    )


def enrichment_messages(spec: PromptSpec, inp: EnrichmentInput) -> list[Message]:
    """Only what enrichment needs (spec 9.2): the final article and the entity's identity."""
    entity = inp.entity
    structural = "\n".join(
        [
            f"language: {inp.language or 'unknown'}",
            f"ECP entity: {entity.qid} | {entity.name}"
            + (f" | {entity.identity}" if entity.identity else ""),
        ]
    )
    lines = [f"title: {inp.title}"]
    if inp.subtitle:
        lines.append(f"subtitle: {inp.subtitle}")
    lines.append("# body blocks: id: text")
    lines.extend(f"{block.id}: {block.text}" for block in inp.blocks)
    return render_messages(spec, structural_context=structural, data="\n".join(lines))


def context_text(messages: list[Message]) -> str:
    """The whole context as one string, for token counts and hashes."""
    return "\n\n".join(f"[{m['role']}]\n{m['content']}" for m in messages)
