"""The hygiene context's data part: IDs, types, agreement and original text, nothing else."""

from __future__ import annotations

import json

from hypothesis import example, given, settings
from hypothesis import strategies as st

from article_runtime.hygiene_context import HEADS, render_hygiene_context
from article_runtime.llm.prompts import load_prompt
from article_runtime.llm.render import context_text, hygiene_messages, split_prefix
from article_runtime.model import Block, CandidateSet, ImageCandidate, LinkCandidate
from article_runtime.model.candidates import (
    CANDIDATE_SET_VERSION,
    MetadataCandidate,
    MetadataCandidates,
)
from tests.factories import candidate_set

HYGIENE = "article_content_hygiene"

EXPECTED = """language: pt
published_at: 2024-03-04T10:00:00-03:00
source_url: https://example.org/rio-enchentes
t1 og:title: Rio anuncia plano contra enchentes
t2 title: Rio anuncia plano | Jornal
s1 meta:description: Obras em 14 bairros
a1 json-ld:author: Ana Souza
[DT]
b1 h2: Plano contra enchentes
b2 A prefeitura do Rio anunciou nesta segunda-feira um plano de R$ 1,2 bilhão para conter enchentes na zona norte.
i1 Mapa das obras
b3 O plano foi detalhado no Diário Oficial e prevê obras em 14 bairros até 2026.
l1 Diário Oficial
[D]
b4 liL1#: Piscinões na Tijuca
b5 liL1#: Dragagem do canal do Mangue

[-]
b6 Assine a newsletter e receba as notícias
l2 ads.example.com: newsletter
i2 ads.example.com:"""  # noqa: E501


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
    assert "\nl1 example.org: Diário Oficial\n" in context
    assert "\ni1 example.org: Mapa das obras\n" in context


def test_the_prefix_is_the_same_for_every_article() -> None:
    """Everything before the data is byte-identical, so providers can cache it."""
    spec = load_prompt(HYGIENE)
    one = context_text(hygiene_messages(spec, candidate_set()))
    other = context_text(hygiene_messages(spec, candidate_set(language="en", blocks=[
        Block(id="b1", type="quote", text="x", container_id="c9", extractors=[])])))  # fmt: skip
    assert split_prefix(one)[0] == split_prefix(other)[0] != ""
    assert split_prefix(one)[1] != split_prefix(other)[1]


def test_the_candidate_set_version_stands_in_the_prefix_not_in_the_data() -> None:
    """Spec 5.1 (contract versions): one for every article, so it is said before the data."""
    candidates = candidate_set()
    prefix, rest = split_prefix(context_text(hygiene_messages(load_prompt(HYGIENE), candidates)))
    assert f"\ncandidate set {CANDIDATE_SET_VERSION}\n" in prefix
    assert CANDIDATE_SET_VERSION not in render_hygiene_context(candidates)
    assert rest.startswith(render_hygiene_context(candidates))


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
    """Every line is a fixed head, an agreement line, an empty line or one item's line, and
    each item has exactly one: text with line breaks cannot draw new lines."""
    candidates = _hostile_set(texts)
    lines = render_hygiene_context(candidates).split("\n")
    ids = ["t1", "a1", "b1", "b2", "l1", "i1"]
    items = dict.fromkeys(ids, 0)
    for n, line in enumerate(lines):
        if n < len(HEADS):
            assert line.startswith(HEADS[n])
        elif line in ("", "[D]", "[-]"):
            continue
        else:
            owner = line.split(" ", 1)[0].removesuffix(":")
            assert owner in items, line
            items[owner] += 1
    assert items == dict.fromkeys(ids, 1)


def _owner(line: str) -> str:
    return line.split(" ", 1)[0]


@settings(max_examples=300)
@given(
    st.integers(min_value=1, max_value=5),
    st.lists(st.sampled_from(["b1", "b2", "b3", "b4", "b5", "b9"]), max_size=6),
    st.lists(st.sampled_from(["b1", "b2", "b3", "b4", "b5", "b9", None]), max_size=6),
)
@example(2, ["b2", "b1", "b2"], [None, "b9", "b1"])
def test_links_and_images_stand_under_the_block_they_belong_to(
    n_blocks: int, link_blocks: list[str], image_blocks: list[str | None]
) -> None:
    """A link's line is read as belonging to the nearest block line above it, an image's as
    standing after it (no block above: before the first), as the harness places them; a link
    on no known block is not shown, an image after no known block stands before the first."""
    blocks = [
        Block(id=f"b{n}", type="paragraph", text=f"text {n}", container_id=f"c{n % 2}",
              extractors=["dom"] if n % 3 else [])
        for n in range(1, n_blocks + 1)
    ]  # fmt: skip
    known = {b.id for b in blocks}
    links = [
        LinkCandidate(id=f"l{n}", text="a", href="https://x.test/", block_id=bid, start=0)
        for n, bid in enumerate(link_blocks, start=1)
    ]
    images = [
        ImageCandidate(id=f"i{n}", src="https://x.test/i.png", after_block_id=bid)
        for n, bid in enumerate(image_blocks, start=1)
    ]
    candidates = candidate_set(blocks=blocks, links=links, images=images)
    above: str | None = None
    seen: dict[str, str | None] = {}
    for line in render_hygiene_context(candidates).split("\n")[len(HEADS) :]:
        owner = _owner(line)
        if owner in known:
            above = owner
        elif owner[:1] in ("l", "i") and owner[1:].isdigit():
            assert owner not in seen
            seen[owner] = above
    assert seen == {
        **{ln.id: ln.block_id for ln in links if ln.block_id in known},
        **{im.id: im.after_block_id if im.after_block_id in known else None for im in images},
    }


def test_a_repeated_block_id_does_not_repeat_its_links_or_images() -> None:
    twice = [
        Block(id="b1", type="paragraph", text=t, container_id="c1", extractors=[])
        for t in ("one", "two")
    ]
    link = LinkCandidate(id="l1", text="o", href="https://x.test/", block_id="b1", start=0)
    image = ImageCandidate(id="i1", src="https://x.test/i.png", after_block_id="b1")
    lines = render_hygiene_context(candidate_set(blocks=twice, links=[link], images=[image]))
    owners = [_owner(line).removesuffix(":") for line in lines.split("\n")]
    assert owners.count("l1") == owners.count("i1") == 1
    assert owners.index("l1") == owners.index("b1") + 1


def _read_item_line(line: str, *, parts_of: str = "") -> tuple[str, str, list[str]]:
    """A link or image line read the way the prompt's context_instructions say: ``id``,
    ``id words`` or ``id host: words``, a JSON string when the words open with a quote mark;
    an image's words are its parts joined by ``parts_of`` (`` | ``: alt | caption)."""
    item_id, _, rest = line.partition(" ")
    first = (rest.split(None, 1) or [""])[0]
    host = ""
    if not rest.startswith('"') and first.endswith(":"):
        host, rest = first[:-1], rest[len(first) :].removeprefix(" ")
    parts: list[str] = []
    decoder = json.JSONDecoder()
    while rest:
        if rest.startswith('"'):
            part, end = decoder.raw_decode(rest)
            parts.append(part)
            rest = rest[end:].removeprefix(parts_of) if parts_of else rest[end:]
        elif parts_of:
            part, _, rest = rest.partition(parts_of)
            parts.append(part)
        else:
            parts.append(rest)
            rest = ""
    return item_id, host, parts


ITEM_WORDS = st.lists(
    st.sampled_from(
        ["x.test:", "evil.com:", "a", "b:", ":", " | ", " |", "| ", "|", '"', "\n", " ", "\t"]
    )
    | st.text(max_size=3),
    min_size=1,
    max_size=6,
).map("".join)


@settings(max_examples=400)
@given(ITEM_WORDS, ITEM_WORDS, ITEM_WORDS, st.booleans())
@example("evil.com: click", "", "", False)
@example("x", "a | b", "c", True)
@example("x", '"q" | z', "", False)
@example("x", " |", " | ", False)
@example("x", "a |", "| b", True)
def test_link_and_image_lines_read_back_with_their_host_and_words(
    anchor: str, alt: str, caption: str, foreign: bool
) -> None:
    """No anchor, alt or caption can pass for a host, or alt and caption for each other."""
    host = "x.test" if foreign else "example.org"
    block = Block(id="b1", type="paragraph", text="whole", container_id="c1", extractors=[])
    link = LinkCandidate(id="l1", text=anchor, href=f"https://{host}/a", block_id="b1", start=0)
    image = ImageCandidate(
        id="i1", src=f"https://{host}/i.png", alt=alt, caption=caption, after_block_id="b1"
    )
    lines = render_hygiene_context(candidate_set(blocks=[block], links=[link], images=[image]))
    by_owner = {_owner(line).removesuffix(":"): line for line in lines.split("\n")}
    shown = "x.test" if foreign else ""
    assert _read_item_line(by_owner["l1"]) == ("l1", shown, [anchor] if anchor else [])
    words = [part for part in (alt, caption) if part]
    assert _read_item_line(by_owner["i1"], parts_of=" | ") == ("i1", shown, words)


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


def _one(blocks: list[Block], images: list[ImageCandidate] | None = None) -> list[str]:
    base = candidate_set(blocks=blocks, links=[], images=images or [])
    return render_hygiene_context(base).splitlines()


def _paragraph(text: str, block_id: str = "b1") -> Block:
    return Block(id=block_id, type="paragraph", text=text, container_id="c1", extractors=[])


def test_only_what_could_be_misread_is_quoted_and_text_stays_as_written() -> None:
    """The quoting that keeps the fence is the least it can be: a text is a JSON string only
    when it could read as structure, and then with its letters as the page wrote them (no
    \\u escapes: the model must see the original text, and escapes cost tokens)."""
    lines = _one(
        [
            _paragraph("Nota: a obra começa em março", "b1"),  # a word and a colon: no type
            _paragraph("h2: São Paulo", "b2"),  # a type code and a colon: quoted
            _paragraph("São\nPaulo", "b3"),  # a line break: quoted
            _paragraph('"Citação" de São Paulo', "b4"),  # opens with a quote mark: quoted
            Block(id="b5", type="heading", text="Sem nível", container_id="c1", extractors=[]),
            _paragraph("hoje: obras na ponte", "b6"),  # an h-word that is no heading code
            _paragraph("A1: estrada fechada", "b7"),  # digits after a letter that is not h
            Block(id="b8", type="heading", level=3, text="Três", container_id="c1", extractors=[]),
        ],
        [
            ImageCandidate(id="i1", src="https://example.org/a.jpg", alt="Porto", caption="Foto"),
            ImageCandidate(id="i2", src="https://example.org/b.jpg", alt="Ponte |"),
            ImageCandidate(id="i3", src="https://example.org/c.jpg", alt="Ação |", caption="Mar"),
            ImageCandidate(id="i4", src="https://example.org/d.jpg", alt="Ação: fim"),
        ],
    )
    assert "b1 Nota: a obra começa em março" in lines
    assert 'b2 "h2: São Paulo"' in lines
    assert 'b3 "São\\nPaulo"' in lines
    assert 'b4 "\\"Citação\\" de São Paulo"' in lines
    assert "b5 h2: Sem nível" in lines  # a heading without a level is a second-level one
    assert "b6 hoje: obras na ponte" in lines
    assert "b7 A1: estrada fechada" in lines
    assert "b8 h3: Três" in lines
    assert "i1 Porto | Foto" in lines  # alt and caption, neither quoted
    assert "i2 Ponte |" in lines  # the last part may end with the separator's bar
    assert 'i3 "Ação |" | Mar' in lines  # a part before another may not
    assert 'i4 "Ação: fim"' in lines  # a first word ending with a colon would pass for a host
