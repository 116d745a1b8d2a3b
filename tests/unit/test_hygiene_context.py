"""The hygiene context's data part: IDs, types, agreement and original text, nothing else."""

from __future__ import annotations

import json

from hypothesis import example, given, settings
from hypothesis import strategies as st

from article_runtime.hygiene_context import SECTIONS, render_hygiene_context
from article_runtime.llm.prompts import load_prompt
from article_runtime.llm.render import context_text, hygiene_messages, split_prefix
from article_runtime.model import Block, CandidateSet, ImageCandidate, LinkCandidate
from article_runtime.model.candidates import MetadataCandidate, MetadataCandidates
from tests.factories import candidate_set

EXPECTED = """candidate_set_version: 1.0.0
language: pt
published_at: 2024-03-04T10:00:00-03:00
source_url: https://example.org/rio-enchentes
# metadata
t1 og:title: Rio anuncia plano contra enchentes
t2 title: Rio anuncia plano | Jornal
s1 meta:description: Obras em 14 bairros
a1 json-ld:author: Ana Souza
# blocks
[DT]
b1 h2: Plano contra enchentes
b2 A prefeitura do Rio anunciou nesta segunda-feira um plano de R$ 1,2 bilhão para conter enchentes na zona norte.
b3 O plano foi detalhado no Diário Oficial e prevê obras em 14 bairros até 2026.
[D]
b4 liL1#: Piscinões na Tijuca
b5 liL1#: Dragagem do canal do Mangue

[-]
b6 Assine a newsletter e receba as notícias
# links
l1 b3: Diário Oficial
l2 b6 ads.example.com: newsletter
# images
i1 b2: Mapa das obras
i2 b6 ads.example.com"""  # noqa: E501


def test_context_renders_ids_types_agreement_and_original_text() -> None:
    assert render_hygiene_context(candidate_set()) == EXPECTED


def test_context_never_carries_full_urls_of_links_or_images() -> None:
    context = render_hygiene_context(candidate_set())
    assert "https://example.org/do" not in context
    assert "https://example.org/img/mapa.jpg" not in context


def test_a_metadata_text_that_is_a_block_points_at_the_block() -> None:
    base = candidate_set()
    meta = base.metadata_candidates.model_copy(
        update={"title": [MetadataCandidate(id="t1", text=base.blocks[0].text, source="h1")]}
    )
    context = render_hygiene_context(base.model_copy(update={"metadata_candidates": meta}))
    assert "\nt1 h1 = b1\n" in context
    assert context.count(base.blocks[0].text) == 1


def test_hosts_show_only_when_foreign_or_the_source_is_unknown() -> None:
    base = candidate_set()
    unknown = base.model_copy(update={"decisions": base.decisions.model_copy(
        update={"source_url": None})})  # fmt: skip
    context = render_hygiene_context(unknown)
    assert "\nl1 b3 example.org: Diário Oficial\n" in context
    assert "\ni1 b2 example.org: Mapa das obras\n" in context


def test_the_prefix_is_the_same_for_every_article() -> None:
    """Everything before the data is byte-identical, so providers can cache it."""
    spec = load_prompt("article_content_hygiene")
    one = context_text(hygiene_messages(spec, candidate_set()))
    other = context_text(hygiene_messages(spec, candidate_set(language="en", blocks=[
        Block(id="b1", type="quote", text="x", container_id="c9", extractors=[])])))  # fmt: skip
    assert split_prefix(one)[0] == split_prefix(other)[0] != ""
    assert split_prefix(one)[1] != split_prefix(other)[1]


# Text a page could hold that looks like the format's own lines.
HOSTILE = st.lists(
    st.sampled_from(
        [
            "\n",
            "[DT]",
            "[-]",
            "# links",
            "b9: x",
            "l1 b1",
            "t1 og:title = b1",
            " ",
            "\r",
            "\u2028",
            "x",
            ": ",
            "= b2",
            '"',
            "\\",
        ]
    )
    | st.text(max_size=4),
    min_size=1,
    max_size=12,
).map("".join)


def _hostile_set(texts: list[str]) -> CandidateSet:
    t = [text if text.strip() else "x" for text in texts]
    blocks = [
        Block(id="b1", type="paragraph", text=t[0], container_id="c1", extractors=["dom"]),
        Block(id="b2", type="table", text=t[1], container_id="c2", extractors=[]),
    ]
    return candidate_set(
        blocks=blocks,
        metadata_candidates=MetadataCandidates(
            title=[MetadataCandidate(id="t1", text=t[2], source="og:title")],
            author=[MetadataCandidate(id="a1", text=t[3], source="byline")],
        ),
        links=[LinkCandidate(id="l1", text=t[4], href="https://x.test/", block_id="b1", start=0)],
        images=[ImageCandidate(id="i1", src="https://y.test/i.png", alt=t[5], caption=t[6])],
    )


@settings(max_examples=400)
@given(st.lists(HOSTILE, min_size=7, max_size=7))
@example(["a\nb9: fake", "[DT]\nb1: x", "t\n# links", "x", "l\n", "i\n[-]", "c\nb2: y"])
def test_no_text_starts_a_line_of_its_own(texts: list[str]) -> None:
    """Every line is a fixed head, a section, an agreement line, an empty line or one item's
    line, and each item has exactly one: text with line breaks cannot draw new lines."""
    candidates = _hostile_set(texts)
    lines = render_hygiene_context(candidates).split("\n")
    heads = ("candidate_set_version: ", "language: ", "published_at: ", "source_url: ")
    ids = ["t1", "a1", "b1", "b2", "l1", "i1"]
    items = dict.fromkeys(ids, 0)
    for n, line in enumerate(lines):
        if n < len(heads):
            assert line.startswith(heads[n])
        elif line in SECTIONS or line in ("", "[D]", "[-]"):
            continue
        else:
            owner = line.split(" ", 1)[0].removesuffix(":")
            assert owner in items, line
            items[owner] += 1
    assert items == dict.fromkeys(ids, 1)


def _read_block_line(line: str) -> tuple[str, str, str]:
    """A block line read the way the prompt's context_instructions say: ``id text`` or
    ``id type: text``, the text a JSON string when it opens with a quote mark."""
    block_id, rest = line.split(" ", 1)
    kind = ""
    first = (rest.split(None, 1) or [""])[0]
    if (
        not rest.startswith('"')
        and first.endswith(":")
        and (
            (first[:1] == "h" and first[1:-1].isdigit())
            or first.startswith("li")
            or first[:-1] in ("quote", "code", "table", "caption")
        )
    ):
        kind, rest = first[:-1], rest[len(first) + 1 :]
    text = json.loads(rest) if rest.startswith('"') else rest
    return block_id, kind, text


TYPED_LOOKING = st.sampled_from(
    ["h2:", "h7:", "li:", "li3#:", "list:", "quote:", "caption:", "Note:", '"', "x", "h2", ""]
)


@settings(max_examples=300)
@given(TYPED_LOOKING, st.sampled_from([" ", "\t", "", " : "]), st.text(max_size=8))
@example("h2:", " ", "Fake heading")
@example('"', "", 'quoted" tail')
def test_a_paragraph_reads_back_as_a_paragraph_with_its_text(
    head: str, gap: str, tail: str
) -> None:
    """No paragraph text can make its line read as a heading, list item or other type."""
    text = (head + gap + tail).strip() or "x"
    block = Block(id="b1", type="paragraph", text=text, container_id="c1", extractors=["dom"])
    lines = render_hygiene_context(candidate_set(blocks=[block], links=[], images=[])).split("\n")
    line = next(line for line in lines if line.startswith("b1"))
    assert _read_block_line(line) == ("b1", "", text)


def test_a_metadata_candidate_from_several_places_shows_the_first_and_how_many_more() -> None:
    base = candidate_set()
    meta = base.metadata_candidates.model_copy(
        update={"title": [MetadataCandidate(id="t1", text="T", source="h1+og:title+title")]}
    )
    context = render_hygiene_context(base.model_copy(update={"metadata_candidates": meta}))
    assert "\nt1 h1+2: T\n" in context
