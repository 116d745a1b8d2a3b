"""Messages in the order of spec 5.3, with the article fenced off as data.

system: 1 common rules, 2 the call's responsibility, 3 schema and enums;
user:   4 structural context, 5 candidates and evidence (delimited data), 6 the final request.
The runtime and Promptfoo both render through here, so what is evaluated is what runs.
"""

from __future__ import annotations

from article_runtime import contracts
from article_runtime.enrichment.model import EnrichmentInput
from article_runtime.hygiene_context import render_hygiene_context
from article_runtime.llm.prompts import PromptSpec
from article_runtime.llm.schema_text import schema_text
from article_runtime.model import CandidateSet

Message = dict[str, str]

DATA_OPEN = "<article_data>"
DATA_CLOSE = "</article_data>"


_FENCE_NAME = "article_data"
# Characters that start a new line for a reader (str.splitlines) besides the data format's
# own "\\n": written as escapes, so article text cannot begin a line of its own inside the
# fence (a fake "# fixed decisions" or "b99: ..." line).
_ESCAPED = str.maketrans({ch: f"\\u{ord(ch):04x}" for ch in "\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"})
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def fence(data: str) -> str:
    """Article text, made unable to leave or redraw the data section (spec 5.3).

    A ``<`` that opens a tag named like the fence, in any case and spacing (``</ARTICLE_DATA>``,
    ``< /article_data >``, ``<article_data>``), is written ``&lt;``; line breaks other than
    ``\\n`` are written as JSON-style escapes (``\\u2028``).
    """
    data = data.translate(_ESCAPED)
    lower = data.translate(_ASCII_LOWER)  # same length as data, unlike str.lower
    opens: list[int] = []
    at = lower.find(_FENCE_NAME)
    while at >= 0:
        before = at - 1
        while before >= 0 and (lower[before] == "/" or lower[before].isspace()):
            before -= 1
        if before >= 0 and lower[before] == "<":
            opens.append(before)
        at = lower.find(_FENCE_NAME, at + len(_FENCE_NAME))
    if not opens:
        return data
    pieces: list[str] = []
    start = 0
    for index in opens:
        pieces.extend((data[start:index], "&lt;"))
        start = index + 1
    pieces.append(data[start:])
    return "".join(pieces)


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


def split_prefix(text: str) -> tuple[str, str]:
    """``context_text`` cut after the data fence's opening line: the prefix is the same for
    every article of one prompt version (what a provider can cache), the rest is not."""
    marker = f"\n{DATA_OPEN}\n"
    at = text.find(marker)
    if at < 0:
        return "", text
    cut = at + len(marker)
    return text[:cut], text[cut:]
