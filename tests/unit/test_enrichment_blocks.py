"""The assembled Markdown becomes numbered reader-text blocks: no URL, no image, code whole."""

from __future__ import annotations

import pytest

from article_runtime.enrichment.blocks import build_enrichment_input, evidence_blocks
from article_runtime.enrichment.model import Entity, EvidenceBlock
from article_runtime.errors import InputError
from article_runtime.model import AssembledArticle, HarnessReport, Hashes, RepairLog

MARKDOWN = """## Plano contra enchentes

A prefeitura do [Rio](https://prefeitura.rio/obras?id=7) anunciou \\*obras\\* na zona norte.

- Piscinões na Tijuca
- Dragagem do canal do Mangue

![Canal do Mangue](https://img.example.org/canal.jpg)

```
if chuva > 50:

    alerta("zona norte")
```

1. Primeira fase
2. Segunda fase

> O plano é ambicioso, disse o prefeito.

| Bairro | Obras |
| --- | --- |
| Tijuca | 3\\|4 |
"""


def test_blocks_are_reader_text_in_order() -> None:
    assert evidence_blocks(MARKDOWN) == [
        EvidenceBlock(id="p1", text="Plano contra enchentes", heading=True),
        EvidenceBlock(id="p2", text="A prefeitura do Rio anunciou *obras* na zona norte."),
        EvidenceBlock(id="p3", text="Piscinões na Tijuca\nDragagem do canal do Mangue"),
        EvidenceBlock(id="p4", text='if chuva > 50:\n\n    alerta("zona norte")'),
        EvidenceBlock(id="p5", text="Primeira fase\nSegunda fase"),
        EvidenceBlock(id="p6", text="O plano é ambicioso, disse o prefeito."),
        EvidenceBlock(id="p7", text="Bairro | Obras\nTijuca | 3|4"),
    ]


def test_no_url_or_image_reaches_the_blocks() -> None:
    texts = "\n".join(b.text for b in evidence_blocks(MARKDOWN))
    assert "http" not in texts
    assert "prefeitura.rio" not in texts
    assert "canal.jpg" not in texts
    assert "](" not in texts


def test_fenced_code_with_a_blank_line_is_one_block() -> None:
    blocks = evidence_blocks("Antes.\n\n````\na\n\n```\n\nb\n````\n\nDepois.\n")
    assert [b.text for b in blocks] == ["Antes.", "a\n\n```\n\nb", "Depois."]


def test_image_only_chunks_are_dropped_but_escaped_brackets_stay() -> None:
    markdown = "![a](https://x.org/1.png)\n![b](https://x.org/2.png)\n\n\\[nota\\](1) fim\n"
    assert evidence_blocks(markdown) == [EvidenceBlock(id="p1", text="[nota](1) fim")]


def test_empty_markdown_has_no_blocks() -> None:
    assert evidence_blocks("\n\n") == []


def _article(markdown: str) -> AssembledArticle:
    return AssembledArticle(
        source="test",
        title="Rio anuncia plano contra enchentes",
        subtitle="Obras começam em março",
        author=None,
        published_at="2026-03-02",
        source_url="https://example.org/a",
        language="pt",
        markdown=markdown,
        path="primary",
        repairs=RepairLog(),
        hashes=Hashes(markdown="0", source_html="0", candidate_set="0"),
        harness=HarnessReport(valid=True, steps=[]),
    )


def test_enrichment_input_carries_only_what_the_call_needs() -> None:
    entity = Entity(qid="Q1353924", name="Eduardo Paes")
    inp = build_enrichment_input(_article(MARKDOWN), entity)
    assert (inp.title, inp.subtitle, inp.language) == (
        "Rio anuncia plano contra enchentes",
        "Obras começam em março",
        "pt",
    )
    assert inp.entity == entity
    assert [b.id for b in inp.blocks] == [f"p{n}" for n in range(1, 8)]


def test_a_body_of_images_only_cannot_be_enriched() -> None:
    with pytest.raises(InputError) as err:
        build_enrichment_input(_article("![a](https://x.org/1.png)\n"), Entity(qid="Q1", name="X"))
    assert err.value.reason == "no_text_blocks"
