"""The hygiene context's data part: IDs, types, agreement and original text, nothing else."""

from __future__ import annotations

from article_runtime.hygiene_context import render_hygiene_context
from tests.factories import candidate_set

EXPECTED = """candidate_set_version: 1.0.0
language: pt
# fixed decisions (not yours to change)
published_at: 2024-03-04T10:00:00-03:00
source_url: https://example.org/rio-enchentes
# metadata candidates: id source: text
t1 og:title: Rio anuncia plano contra enchentes
t2 title: Rio anuncia plano | Jornal
s1 meta:description: Obras em 14 bairros
a1 json-ld:author: Ana Souza
# blocks in base order
b1 h2 DT: Plano contra enchentes
b2 DT: A prefeitura do Rio anunciou nesta segunda-feira um plano de R$ 1,2 bilhão para conter enchentes na zona norte.
b3 DT: O plano foi detalhado no Diário Oficial e prevê obras em 14 bairros até 2026.
b4 liL1# D: Piscinões na Tijuca
b5 liL1# D: Dragagem do canal do Mangue

b6: Assine a newsletter e receba as notícias
# links: id block host[: anchor text, when not the whole block]
l1 b3 example.org: Diário Oficial
l2 b6 ads.example.com: newsletter
# images: id after-block host[: alt][ | caption]
i1 b2 example.org: Mapa das obras
i2 b6 ads.example.com"""  # noqa: E501


def test_context_renders_ids_types_agreement_and_original_text() -> None:
    assert render_hygiene_context(candidate_set()) == EXPECTED


def test_context_never_carries_full_urls_of_links_or_images() -> None:
    context = render_hygiene_context(candidate_set())
    assert "https://example.org/do" not in context
    assert "https://example.org/img/mapa.jpg" not in context
