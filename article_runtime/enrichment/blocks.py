"""The assembled article as the enrichment call's evidence (spec 9.2).

Tags must cite the blocks that support them, so the body goes to the model as numbered blocks
(``p1..pN``): the Markdown's blank-line chunks, a fenced code block kept whole. Each block is
reader text: link targets and image-only lines never reach the model, so it has no URL to
echo and cites only what a reader sees.
"""

from __future__ import annotations

from article_runtime import contracts
from article_runtime.enrichment.model import EnrichmentInput, Entity, EvidenceBlock
from article_runtime.errors import InputError
from article_runtime.harness.markdown import plain_text, split_cells, split_targets
from article_runtime.model import AssembledArticle
from article_runtime.text import nfc

_FENCE = "```"


def _fence_of(line: str) -> str | None:
    """The backtick run that opens a fenced code block on ``line``, if it opens one."""
    if not line.startswith(_FENCE):
        return None
    return line[: len(line) - len(line.lstrip("`"))]


def _closes(line: str, fence: str) -> bool:
    stripped = line.strip()
    return len(stripped) >= len(fence) and not stripped.strip("`")


def chunks(markdown: str) -> list[str]:
    """Blank-line separated chunks; blank lines inside a fenced code block do not cut."""
    out: list[str] = []
    current: list[str] = []
    fence: str | None = None
    for line in markdown.split("\n"):
        if fence is not None:
            current.append(line)
            if _closes(line, fence):
                fence = None
            continue
        if not line.strip():
            if current:
                out.append("\n".join(current))
                current = []
            continue
        fence = _fence_of(line)
        current.append(line)
    if current:
        out.append("\n".join(current))
    return out


def _is_image_line(line: str) -> bool:
    """The whole line is one ``![alt](src)``: prose left is ``![alt`` and the target closes it."""
    line = line.strip()
    prose, targets = split_targets(line)
    return (
        line.startswith("![")
        and len(targets) == 1
        and line.endswith(f"]({targets[0]})")
        and len(prose) + len(targets[0]) + 3 == len(line)
    )


def _is_separator_row(row: str) -> bool:
    return "-" in row and not row.strip("|-: ")


def _table_text(chunk: str) -> list[str]:
    rows = [row for row in chunk.split("\n") if not _is_separator_row(row)]
    return [" | ".join(plain_text(cell).strip() for cell in split_cells(row)) for row in rows]


def _code_text(chunk: str) -> list[str]:
    """Code is emitted raw between fences (no escapes), so its text is the inner lines."""
    first, *inner = chunk.split("\n")
    if inner and _closes(inner[-1], _fence_of(first) or _FENCE):
        inner.pop()  # an unclosed fence runs to the end of the document
    return inner


def reader_text(chunk: str) -> str:
    """What a reader sees of one chunk, one line per line; empty for an image-only chunk."""
    if _fence_of(chunk) is not None:
        lines = _code_text(chunk)
    elif chunk.startswith("|"):
        lines = _table_text(chunk)
    else:
        kept = "\n".join(line for line in chunk.split("\n") if not _is_image_line(line))
        lines = plain_text(kept).split("\n") if kept else []
    return nfc("\n".join(line.rstrip() for line in lines).strip("\n"))


def evidence_blocks(markdown: str) -> list[EvidenceBlock]:
    """The body as ``p1..pN`` reader-text blocks in order; image-only and empty chunks dropped.

    A chunk starting with ``#`` is a heading: assembly escapes a leading ``#`` of any other
    text, so only headings start with one.
    """
    read = [(chunk.startswith("#"), reader_text(chunk)) for chunk in chunks(markdown)]
    kept = [(heading, text) for heading, text in read if text.strip()]
    return [
        EvidenceBlock(id=f"p{n}", text=text, heading=heading)
        for n, (heading, text) in enumerate(kept, start=1)
    ]


def build_enrichment_input(article: AssembledArticle, entity: Entity) -> EnrichmentInput:
    """The enrichment call's whole context: final title, subtitle, language, entity, blocks.

    Raises:
        InputError: ``no_text_blocks`` when the body has no text, ``invalid_enrichment_input``
            when the result breaks ``article_sentiment_tags.input.schema.json``.
    """
    inp = EnrichmentInput(
        title=article.title,
        subtitle=article.subtitle,
        language=article.language,
        entity=entity,
        blocks=evidence_blocks(article.markdown),
    )
    if not inp.blocks:
        raise InputError("no_text_blocks", "the assembled Markdown has no text blocks")
    violation = contracts.first_violation(contracts.ENRICHMENT_INPUT, inp.model_dump(mode="json"))
    if violation is not None:
        raise InputError("invalid_enrichment_input", violation)
    return inp
