"""Where the hygiene context's tokens go, part by part (issue 13 section 2).

Run: ``.venv/bin/python -m bench.context_tokens [--limit N] [--sets wcxb,aeb]``. Prints, per
set, the median tokens of each part of the context and of the raw HTML, and the medians of
the data and of the whole context over the HTML. Tokens are counted with
``article_runtime.tokens`` (``o200k_base``); each part is counted on its own, so the parts add
up to about the whole (a token can span two parts' boundary).
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
from collections.abc import Iterable, Iterator, Sequence

from article_runtime.answer_bounds import answer_tokens, hygiene_bounds
from article_runtime.candidates import build_candidates
from article_runtime.candidates.decode import decode_html
from article_runtime.errors import InputError
from article_runtime.hygiene_context import render_hygiene_context
from article_runtime.llm.prompts import load_prompt
from article_runtime.llm.render import context_text, hygiene_messages, split_prefix
from article_runtime.model.candidates import CandidateSet
from article_runtime.tokens import TOKENIZER, count_tokens
from bench.run import (
    CACHE_MIN_TOKENS,
    DEFAULT_RESPONSE_FORMAT,
    RESPONSE_FORMAT_TOKENS,
    SCHEMA_TOKENS,
    SETS,
    Page,
    cached_tokens,
)

SPEC = load_prompt("article_content_hygiene")
# Cached input costs a quarter of the price (gpt-4.1-mini, gemini-2.5-flash-lite; gpt-4o-mini:
# half); what a provider can cache is bench.run.cached_tokens. A call in full-price tokens.
CACHED_PRICE_SHARE = 0.25


def priced_tokens(whole: int, prefix: int) -> float:
    """``whole`` tokens in full-price tokens when its first ``prefix`` are a shared prefix."""
    cached = cached_tokens(prefix)
    return CACHED_PRICE_SHARE * cached + (whole - cached)


def break_even_hits(more: tuple[int, int], fewer: tuple[int, int]) -> float:
    """The share of calls served from a warm cache above which sending ``more`` tokens
    (``(whole, prefix)``) costs less than sending ``fewer``: what the cache saves on the
    longer prefix must pay for its extra tokens. Infinite when it never does."""
    saved = (1 - CACHED_PRICE_SHARE) * (cached_tokens(more[1]) - cached_tokens(fewer[1]))
    extra = more[0] - fewer[0]
    return extra / saved if saved > 0 else float("inf")


PREFIX = "fixed prefix, cacheable"
TARGETS = (0.10, 0.095)
"""Medians of whole/HTML the fixed-part budget rows solve for (issue 13 section 2: 10%, and
the margin aimed at on wcxb)."""


def fixed_budget(variable: Sequence[float], html: Sequence[float], target: float) -> int:
    """The most tokens the part sent the same for every article may have for the median of
    whole/HTML (``(fixed + variable) / html`` per article) to stay at or under ``target``,
    with each article's own part as it is; negative when not even an empty prompt gets
    there. What trimming the prompt can still buy, and what it cannot."""
    if not variable:
        return 0

    def median_at(fixed: int) -> float:
        return statistics.median((fixed + v) / h for v, h in zip(variable, html, strict=True))

    low = -math.ceil(max(variable)) - 1  # every ratio <= 0 < target (target > 0)
    high = math.ceil(target * max(html)) + 1  # every ratio > target
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (middle, high) if median_at(middle) <= target else (low, middle)
    return low


def _owner(line: str) -> str:
    """The first word of a data line without a trailing colon: the item's ID (``b7``, ``l2``)."""
    return line.split(" ", 1)[0].removesuffix(":")


def _tokens_of_lines(data: str, ids: Iterable[str]) -> int:
    """Tokens of the data lines that start with one of ``ids`` (``b7 ...``, ``l2: ...``, ``l3``)."""
    wanted = set(ids)
    return count_tokens("\n".join(line for line in data.splitlines() if _owner(line) in wanted))


HEAD_WORDS = ("candidate_set_version:", "language:", "published_at:", "source_url:")
"""The fixed words that open the data's header lines (language and the fixed decisions)."""
SECTION_HEADS = ("# metadata", "# blocks", "# links", "# images")


def _framing(data: str, candidates: CandidateSet) -> dict[str, int]:
    """Tokens of the data that are not the article's text: header lines, section heads, and
    of the link and image lines, the part before their text (ID, block, host)."""
    lines = data.splitlines()
    texts = {b.id: b.text for b in candidates.blocks}
    anchors = [ln.text for ln in candidates.links if ln.text != texts.get(ln.block_id)]
    words = [part for im in candidates.images for part in (im.alt, im.caption) if part]
    links = _tokens_of_lines(data, (ln.id for ln in candidates.links))
    images = _tokens_of_lines(data, (im.id for im in candidates.images))
    return {
        "data: header lines": count_tokens(
            "\n".join(line for line in lines if line.startswith(HEAD_WORDS))
        ),
        "data: section heads": count_tokens(
            "\n".join(line for line in lines if line in SECTION_HEADS)
        ),
        "data: links, anchors shown": count_tokens("\n".join(anchors)),
        "data: links, ID, block and host": links - count_tokens("\n".join(anchors)),
        "data: images, ID, block and host": images - count_tokens("\n".join(words)),
    }


LINK_LIST_SHARE = 0.7
"""A block whose anchors hold this share of its text or more reads as a link list."""


def _block_line_ids(candidates: CandidateSet) -> tuple[list[str], list[str]]:
    """IDs of the link-list blocks and of the blocks whose text an earlier block already has:
    what sending such blocks condensed could save (issue 13 section 2, measured first)."""
    anchored: dict[str, int] = {}
    for link in candidates.links:
        anchored[link.block_id] = anchored.get(link.block_id, 0) + len(link.text)
    seen: set[str] = set()
    link_lists, repeated = [], []
    for block in candidates.blocks:
        if anchored.get(block.id, 0) >= LINK_LIST_SHARE * max(1, len(block.text)):
            link_lists.append(block.id)
        if block.text in seen:
            repeated.append(block.id)
        seen.add(block.text)
    return link_lists, repeated


def parts(candidates: CandidateSet) -> dict[str, int]:
    """Tokens of each part of one article's hygiene context."""
    messages = hygiene_messages(SPEC, candidates)
    whole = context_text(messages)
    prefix, _ = split_prefix(whole)
    data = render_hygiene_context(candidates)
    blocks = candidates.blocks
    texts = count_tokens("\n".join(b.text for b in blocks))
    meta = candidates.metadata_candidates
    runs = [line for line in data.splitlines() if line.startswith("[")]
    answer = messages[0]["content"].split("# Answer format\n", 1)[-1]
    link_lists, repeated = _block_line_ids(candidates)
    fixed = {
        "fixed: rules": count_tokens("\n".join(SPEC.common_rules)),
        "fixed: responsibility": count_tokens(SPEC.responsibility),
        "fixed: answer format and schema": count_tokens(answer),
        "fixed: context instructions": count_tokens(SPEC.context_instructions),
    }
    # The rest of what is the same for every article: headings, rule numbers, the versions
    # line, the fence and the final request (after the data, so outside the cached prefix).
    rest = count_tokens(prefix) + count_tokens(SPEC.final_request) - sum(fixed.values())
    return {
        **fixed,
        "fixed: headings, versions, fence, final request": rest,
        f"fixed: response_format schema ({DEFAULT_RESPONSE_FORMAT})": SCHEMA_TOKENS,
        PREFIX: count_tokens(prefix) + SCHEMA_TOKENS,
        "data": count_tokens(data),
        "data: block text": texts,
        "data: block framing": _tokens_of_lines(data, (b.id for b in blocks)) - texts,
        "data: block IDs alone": count_tokens("\n".join(b.id for b in blocks)),
        "data: extractor agreement": count_tokens("\n".join(runs)),
        "data: link-list blocks (lines)": _tokens_of_lines(data, link_lists),
        "data: repeated blocks (lines)": _tokens_of_lines(data, repeated),
        "data: metadata": _tokens_of_lines(
            data, (c.id for group in (meta.title, meta.subtitle, meta.author) for c in group)
        ),
        "data: links": _tokens_of_lines(data, (link.id for link in candidates.links)),
        "data: images": _tokens_of_lines(data, (image.id for image in candidates.images)),
        **_framing(data, candidates),
        "whole context": count_tokens(whole) + SCHEMA_TOKENS,
    }


def tally(pages: Iterator[Page]) -> dict[str, list[float]]:
    rows: dict[str, list[float]] = {}
    for page in pages:
        try:
            candidates = build_candidates(page.raw, url=page.url)
        except InputError:
            continue
        html = max(1, count_tokens(decode_html(page.raw)))
        counted = parts(candidates)
        for name, value in counted.items():
            rows.setdefault(name, []).append(value)
        rows.setdefault("raw HTML", []).append(html)
        rows.setdefault("data / HTML", []).append(counted["data"] / html)
        rows.setdefault("whole / HTML", []).append(counted["whole context"] / html)
        # A page without any script element is a lean page or a copy saved without its
        # scripts: mostly text, so the article's own text is a large share of its tokens.
        scripted = "whole / HTML, pages holding a <script>"
        if b"<script" in page.raw.lower():
            rows.setdefault(scripted, []).append(counted["whole context"] / html)
        rows.setdefault("block text / HTML (the floor)", []).append(
            counted["data: block text"] / html
        )
        rows.setdefault("(fixed prefix + block text) / HTML", []).append(
            (counted[PREFIX] + counted["data: block text"]) / html
        )
        # The article's own text (the benchmark's truth): what the model must read whatever
        # the format, so the prompt plus it alone is as low as the ratio could go.
        if page.truth:
            article = count_tokens(page.truth)
            rows.setdefault("article text (truth) / block text", []).append(
                article / max(1, counted["data: block text"])
            )
            rows.setdefault("(fixed prefix + article text) / HTML, the ideal", []).append(
                (counted[PREFIX] + article) / html
            )
        rows.setdefault("pages with whole <= 10% of HTML", []).append(
            float(counted["whole context"] <= 0.1 * html)
        )
        # Every response_format side by side: the json_schema ones send their schema.
        bare, prefix = (
            counted["whole context"] - SCHEMA_TOKENS,
            counted[PREFIX] - SCHEMA_TOKENS,
        )
        for mode, extra in RESPONSE_FORMAT_TOKENS.items():
            rows.setdefault(f"whole tokens a call, response_format {mode}", []).append(bare + extra)
            rows.setdefault(f"whole / HTML, response_format {mode}", []).append(
                (bare + extra) / html
            )
            rows.setdefault(f"price-weighted tokens, cache cold, {mode}", []).append(
                float(bare + extra)
            )
            rows.setdefault(f"price-weighted tokens, cache warm, {mode}", []).append(
                priced_tokens(bare + extra, prefix + extra)
            )
        # What each request may answer (issue 40): the longest valid answer's tokens, the
        # output cap sent before the reasoning allowance and the model's ceiling.
        started = time.process_time()
        cap = answer_tokens(SPEC.output_schema, hygiene_bounds(candidates), TOKENIZER)
        spent = time.process_time() - started
        rows.setdefault("output cap a call (longest valid answer)", []).append(cap)
        rows.setdefault("output cap: CPU microseconds to size it", []).append(spent * 1e6)
        # The warm rows assume every call finds the prefix cached; this is the share of
        # cached calls from which a format's longer prefix costs less than json_object's.
        for mode in ("json_schema", "json_schema_strict"):
            extra = RESPONSE_FORMAT_TOKENS[mode]
            rows.setdefault(f"{mode} cheaper from cache hits / calls of", []).append(
                break_even_hits((bare + extra, prefix + extra), (bare, prefix))
            )
    variable = [w - f for w, f in zip(rows["whole context"], rows[PREFIX], strict=True)]
    for target in TARGETS:
        budget = fixed_budget(variable, rows["raw HTML"], target)
        rows[f"fixed prefix that gives a median whole of {target:.3f} of HTML"] = [budget]
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--limit", type=int, default=None, help="first N pages per set")
    parser.add_argument("--sets", default="wcxb,aeb", help="comma-separated set names")
    args = parser.parse_args(argv)
    results = {name: tally(SETS[name](args.limit)) for name in args.sets.split(",")}
    labels = list(dict.fromkeys(label for rows in results.values() for label in rows))
    width = max(map(len, labels))
    print(f"{'median per article':<{width}} | " + " | ".join(f"{n:>7}" for n in results))
    for label in labels:
        average = statistics.fmean if label.startswith("pages") else statistics.median
        cells = [average(rows[label]) if rows.get(label) else None for rows in results.values()]
        share = "/" in label or label.startswith("pages")
        shown = ("    n/a" if c is None else f"{c:>7.3f}" if share else f"{c:>7.0f}" for c in cells)
        print(f"{label:<{width}} | " + " | ".join(shown))
    print(
        f"tokens: {TOKENIZER}; each part counted alone; fixed = the same for every article; "
        "medians per article, but 'pages with' is a share of the set's pages and 'fixed prefix "
        "that gives' solves for the set's median (each article's own part as it is; negative: "
        "out of reach); truth: the benchmark's article text (n/a: none); price-weighted: "
        f"what a provider caches of the shared prefix ({CACHE_MIN_TOKENS} tokens or more, in "
        f"steps of 128) counted at {CACHED_PRICE_SHARE} (cached input price), the rest at 1"
    )


if __name__ == "__main__":
    main()
