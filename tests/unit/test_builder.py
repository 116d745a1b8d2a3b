"""build_candidates: numbering, pruning, links and images tied to kept blocks, real pages."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from article_runtime.candidates import build_candidates
from article_runtime.errors import InputError
from bench.metrics import bow_prf, oracle_selection

BENCH = Path(__file__).parents[2].parent / "shared" / "bench"

BODY = (
    "<p>Opening paragraph of the story, long enough to be prose, with commas, and a "
    "<a href='/ref'>reference</a>.</p>"
)
PAGE = f"""<html><head><title>T</title></head><body>
<nav><p>Site menu text</p></nav>
<article><h1>Headline</h1>{BODY}
<img src='/photo.jpg' alt='Photo'>
<p>Second paragraph, also long enough to count as prose for the heuristics, truly.</p>
<p>Second paragraph, also long enough to count as prose for the heuristics, truly.</p>
<ul><li><a href='/1'>Link one</a></li><li><a href='/2'>Link two</a></li>
<li><a href='/3'>Link three</a></li></ul>
</article></body></html>"""


def test_ids_are_opaque_and_in_document_order() -> None:
    cs = build_candidates(PAGE, url="https://example.org/a/story")
    assert [b.id for b in cs.blocks] == ["b1", "b2", "b3", "b4"]
    # the nav and the link list are gone; the repeated paragraph stays, with its own ID
    assert [b.text[:6] for b in cs.blocks] == ["Headli", "Openin", "Second", "Second"]
    assert cs.blocks[1].section_id == "b1"
    assert {b.container_id for b in cs.blocks} == {"c1"}
    (link,) = cs.links
    assert (link.id, link.block_id, link.href) == ("l1", "b2", "https://example.org/ref")
    assert cs.blocks[1].text[link.start :].startswith("reference")
    (image,) = cs.images
    assert (image.id, image.after_block_id, image.alt) == ("i1", "b2", "Photo")


def test_page_without_text_is_refused() -> None:
    with pytest.raises(InputError) as caught:
        build_candidates("<html><body><script>x()</script><img src='a.png'></body></html>")
    assert caught.value.reason == "no_text_blocks"


@pytest.mark.bench
@pytest.mark.skipif(not BENCH.is_dir(), reason="../shared/bench is absent")
@pytest.mark.parametrize("page_id", ["0003", "0010", "0020"])
def test_ceiling_on_real_pages_is_high(page_id: str) -> None:
    root = BENCH / "wcxb-dev-articles"
    truth = json.loads((root / "ground-truth" / f"{page_id}.json").read_text(encoding="utf-8"))
    raw = gzip.decompress((root / "html" / f"{page_id}.html.gz").read_bytes())
    cs = build_candidates(raw, url=truth["url"])
    texts = [b.text for b in cs.blocks]
    main = truth["ground_truth"]["main_content"]
    chosen = oracle_selection(texts, main)
    assert bow_prf("\n".join(texts[i] for i in chosen), main).f1 >= 0.95


def test_ruby_readings_stay_out_of_metadata_too() -> None:
    """Regression: the NHK sample's title kept its furigana ("子こども") after the body lost it."""
    html = (
        "<html lang='ja'><head></head><body><article><h1><ruby>子<rt>こ</rt></ruby>どもへの"
        "<ruby>体罰<rp>(</rp><rt>たいばつ</rt><rp>)</rp></ruby>を禁止する法律</h1>"
        "<p>子どもへの虐待をなくすための法律ができて、親が子どもを教育するために、"
        "たたいたり蹴ったりする体罰を禁止することになりました。</p></article></body></html>"
    )
    candidates = build_candidates(html.encode())
    titles = [c.text for c in candidates.metadata_candidates.title]
    assert "子どもへの体罰を禁止する法律" in titles
    assert all("こども" not in t and "たいばつ" not in t for t in titles)
