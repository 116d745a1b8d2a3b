"""Side-by-side benchmark of the candidates, the deterministic path and trafilatura.

Run: ``.venv/bin/python -m bench.run [--limit N] [--sets wcxb,aeb,multi,te-dev,samples]``.
Prints one table. Data is read in place from ``../shared`` (bench/README.md); nothing is copied.
Sets with ``with``/``without`` segments are also scored by trafilatura's own convention
(``metrics.segment_counts``), with the best selection of our blocks beside it.

The deterministic path is scored twice with the benchmarks' own metrics: on its kept blocks'
text (the selection) and on the Markdown users receive, read as plain text by a CommonMark
parser (``metrics.markdown_text``); a lost article scores as an empty page there. Every page
that ends without an article is counted under its reason.
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trafilatura
from selectolax.lexbor import LexborHTMLParser

from article_runtime.candidates import build_candidates
from article_runtime.candidates.decode import decode_html
from article_runtime.candidates.metadata import published_candidates
from article_runtime.contracts import strict_wire_schema, wire_schema
from article_runtime.deterministic import deterministic_proposal
from article_runtime.errors import InputError, NoValidProposal
from article_runtime.harness.pipeline import run_hygiene_harness
from article_runtime.hygiene_context import render_hygiene_context
from article_runtime.llm.prompts import load_prompt
from article_runtime.llm.providers import ProviderSpec
from article_runtime.llm.render import context_text, hygiene_messages, split_prefix
from article_runtime.model.candidates import CandidateSet
from article_runtime.model.proposal import HygieneProposal
from article_runtime.tokens import TOKENIZER, count_tokens
from bench import metrics

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
WCXB = SHARED / "bench" / "wcxb-dev-articles"
AEB = SHARED / "bench" / "aeb"
TE_DEV = SHARED / "bench" / "te-dev"
MULTI = SHARED / "samples-multilingual"
SAMPLES = Path(__file__).resolve().parents[1] / "samples"


@dataclass(frozen=True)
class Page:
    name: str
    raw: bytes
    url: str | None
    truth: str | None
    gt: dict[str, Any] = field(default_factory=dict)
    with_: tuple[str, ...] = ()
    without: tuple[str, ...] = ()


def wcxb_pages(limit: int | None) -> Iterator[Page]:
    for path in sorted((WCXB / "ground-truth").glob("*.json"))[:limit]:
        doc = json.loads(path.read_text(encoding="utf-8"))
        gt = doc["ground_truth"]
        raw = gzip.decompress((WCXB / "html" / f"{path.stem}.html.gz").read_bytes())
        yield Page(
            path.stem,
            raw,
            doc.get("url"),
            gt.get("main_content") or "",
            gt,
            tuple(gt.get("with") or ()),
            tuple(gt.get("without") or ()),
        )


def aeb_pages(limit: int | None) -> Iterator[Page]:
    truth = json.loads((AEB / "ground-truth.json").read_text(encoding="utf-8"))
    for key in sorted(truth)[:limit]:
        raw = gzip.decompress((AEB / "html" / f"{key}.html.gz").read_bytes())
        yield Page(key, raw, truth[key].get("url"), truth[key].get("articleBody") or "")


def multi_pages(limit: int | None) -> Iterator[Page]:
    data = json.loads((MULTI / "evaldata.json").read_text(encoding="utf-8"))
    for url, item in sorted(data.items())[:limit]:
        raw = (MULTI / "html" / item["file"]).read_bytes()
        yield Page(item["file"], raw, url, None, item, tuple(item["with"]), tuple(item["without"]))


def te_dev_pages(limit: int | None) -> Iterator[Page]:
    """trafilatura's evaluation pages, development half: segments only (no metadata)."""
    data = json.loads((TE_DEV / "evaldata.json").read_text(encoding="utf-8"))
    for key, item in sorted(data.items())[:limit]:
        raw = gzip.decompress((TE_DEV / "html" / f"{item['file']}.gz").read_bytes())
        url = key if key.startswith(("http://", "https://")) else None
        yield Page(item["file"], raw, url, None, {}, tuple(item["with"]), tuple(item["without"]))


def sample_pages(limit: int | None) -> Iterator[Page]:
    """The bundled samples: no truth here, so only articles lost and CPU."""
    for path in sorted(SAMPLES.glob("*.html*"))[:limit]:
        raw = path.read_bytes()
        yield Page(path.name, gzip.decompress(raw) if path.suffix == ".gz" else raw, None, None)


SETS: dict[str, Callable[[int | None], Iterator[Page]]] = {
    "wcxb": wcxb_pages,
    "aeb": aeb_pages,
    "multi": multi_pages,
    "te-dev": te_dev_pages,
    "samples": sample_pages,
}


HYGIENE_PROMPT = load_prompt("article_content_hygiene")
# The output schema a provider receives in response_format besides the prompt's own, by
# format (contracts.wire_schema, contracts.strict_wire_schema): context it bills, the same for
# every article, part of the cacheable prefix. json_object sends none.
RESPONSE_FORMAT_TOKENS = {
    "json_object": 0,
    "json_schema": count_tokens(
        json.dumps(wire_schema(HYGIENE_PROMPT.output_schema), separators=(",", ":"))
    ),
    "json_schema_strict": count_tokens(
        json.dumps(strict_wire_schema(HYGIENE_PROMPT.output_schema), separators=(",", ":"))
    ),
}
WIRE_SCHEMA_TOKENS = RESPONSE_FORMAT_TOKENS["json_schema"]
# What the certified OpenAI models get when their providers set no response_format.
DEFAULT_RESPONSE_FORMAT = ProviderSpec(
    base_url="https://api.openai.com/v1", model="gpt-4.1-mini", api_key_env="-"
).answer_format()
# OpenAI's prompt caching (Gemini's implicit caching has the same minimum): a shared prefix is
# cached from 1024 tokens on, in steps of 128; the tokens past the last step are billed in full.
CACHE_MIN_TOKENS = 1024
CACHE_STEP_TOKENS = 128


def cached_tokens(prefix_tokens: int) -> int:
    """How much of a shared prefix of ``prefix_tokens`` a provider can serve from its cache."""
    if prefix_tokens < CACHE_MIN_TOKENS:
        return 0
    steps = (prefix_tokens - CACHE_MIN_TOKENS) // CACHE_STEP_TOKENS
    return CACHE_MIN_TOKENS + steps * CACHE_STEP_TOKENS


SCHEMA_TOKENS = RESPONSE_FORMAT_TOKENS.get(DEFAULT_RESPONSE_FORMAT, 0)


@dataclass(frozen=True)
class ContextTokens:
    """One article's hygiene context in tokens: the data part alone (what Dripper's 22%
    measures), the whole context (system prompt, data and any response_format schema), the
    raw HTML, and the prefix that is the same for every article (what a provider can cache;
    any response_format schema is counted in it)."""

    data: int
    whole: int
    html: int
    prefix: str
    prefix_tokens: int


def context_tokens(candidates: CandidateSet, html: str) -> ContextTokens:
    whole = context_text(hygiene_messages(HYGIENE_PROMPT, candidates))
    prefix, _ = split_prefix(whole)
    return ContextTokens(
        data=count_tokens(render_hygiene_context(candidates)),
        whole=count_tokens(whole) + SCHEMA_TOKENS,
        html=max(1, count_tokens(html)),
        prefix=prefix,
        prefix_tokens=count_tokens(prefix) + SCHEMA_TOKENS,
    )


def _fold(text: str | None) -> str:
    return " ".join(metrics_nfc(text or "").casefold().split())


# Typographic variants of one character: curly quotes and primes as the straight ones. WCXB's
# truth is machine-written (its README: AI-generated, reviewed) and writes straight quotes
# where every source on the page has curly ones (0382: h1, JSON-LD, og:title, twitter:title and
# <title> all say "I’m", the truth "I'm"), so a strict comparison scores the page's own
# typography as wrong. The folded comparison is printed beside the strict one, never instead.
_QUOTES = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201a": "'",
        "\u201b": "'",
        "\u2032": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u201e": '"',
        "\u201f": '"',
        "\u2033": '"',
    }
)


def _typo_fold(text: str | None) -> str:
    """``_fold`` with compatibility forms (NFKC: a full-width ？, an ellipsis …) and curly
    quotes read as their plain forms."""
    import unicodedata

    return " ".join(unicodedata.normalize("NFKC", text or "").translate(_QUOTES).casefold().split())


def metrics_nfc(text: str) -> str:
    import unicodedata

    return unicodedata.normalize("NFC", text)


@dataclass
class Tally:
    ceiling: list[Any] = field(default_factory=list)
    det: list[Any] = field(default_factory=list)
    det_md: list[Any] = field(default_factory=list)
    det_md_text: list[Any] = field(default_factory=list)  # Markdown without image alt text
    traf: list[Any] = field(default_factory=list)
    with_det: list[int] = field(default_factory=lambda: [0, 0])
    without_det: list[int] = field(default_factory=lambda: [0, 0])
    with_md: list[int] = field(default_factory=lambda: [0, 0])
    without_md: list[int] = field(default_factory=lambda: [0, 0])
    with_traf: list[int] = field(default_factory=lambda: [0, 0])
    without_traf: list[int] = field(default_factory=lambda: [0, 0])
    with_all: list[int] = field(default_factory=lambda: [0, 0])
    seg_ceiling: metrics.Segments = field(default_factory=metrics.Segments)
    seg_det: metrics.Segments = field(default_factory=metrics.Segments)
    seg_md: metrics.Segments = field(default_factory=metrics.Segments)
    seg_read: metrics.Segments = field(default_factory=metrics.Segments)
    seg_traf: metrics.Segments = field(default_factory=metrics.Segments)
    # metadata: the deterministic path's choice, and whether any candidate was right
    title: list[bool] = field(default_factory=list)
    title_best: list[bool] = field(default_factory=list)
    title_typo: list[bool] = field(default_factory=list)  # typography folded (_typo_fold)
    title_typo_best: list[bool] = field(default_factory=list)
    author: list[bool] = field(default_factory=list)
    author_best: list[bool] = field(default_factory=list)
    date: list[bool] = field(default_factory=list)
    date_best: list[bool] = field(default_factory=list)
    ms_build: list[float] = field(default_factory=list)
    ms_proposal: list[float] = field(default_factory=list)
    ms_harness: list[float] = field(default_factory=list)
    ms_traf: list[float] = field(default_factory=list)
    slowest: tuple[float, str] = (0.0, "")  # CPU ms of our whole path, and the page
    ratio: list[float] = field(default_factory=list)
    tokens: list[float] = field(default_factory=list)
    tokens_whole: list[float] = field(default_factory=list)
    context: list[ContextTokens] = field(default_factory=list)
    lost: dict[str, int] = field(default_factory=dict)  # pages without an article, by reason

    def lose(self, reason: str) -> None:
        self.lost[reason] = self.lost.get(reason, 0) + 1


def _score(set_name: str, predicted: str, truth: str) -> Any:
    if set_name == "aeb":
        return metrics.aeb_counts(predicted, truth)
    return metrics.bow_prf(predicted, truth)


def _add(pair: list[int], result: tuple[int, int]) -> None:
    pair[0] += result[0]
    pair[1] += result[1]


def _metadata(t: Tally, cs: CandidateSet, page: Page, chosen: HygieneProposal | None) -> None:
    """Title, author and date: what the deterministic path chose (nothing when it lost the
    article), and whether any candidate matched the truth (for the date: any date source)."""
    meta, gt = cs.metadata_candidates, page.gt
    text_of = {c.id: c.text for c in (*meta.title, *meta.author)}
    title = _fold(gt.get("title"))
    t.title.append(chosen is not None and _fold(text_of[chosen.title_candidate_id]) == title)
    t.title_best.append(any(_fold(c.text) == title for c in meta.title))
    typo = _typo_fold(gt.get("title"))
    t.title_typo.append(
        chosen is not None and _typo_fold(text_of[chosen.title_candidate_id]) == typo
    )
    t.title_typo_best.append(any(_typo_fold(c.text) == typo for c in meta.title))
    author = _fold(gt.get("author"))
    picked = text_of.get(chosen.author_candidate_id or "") if chosen is not None else None
    t.author.append(chosen is not None and _fold(picked) == author)
    t.author_best.append(not author or any(_fold(c.text) == author for c in meta.author))
    day = (gt.get("publish_date") or gt.get("date") or "")[:10]
    t.date.append((cs.decisions.published_at or "")[:10] == day)
    tree = LexborHTMLParser(decode_html(page.raw))
    found = published_candidates(tree, cs.decisions.source_url)
    t.date_best.append(not day or any(iso[:10] == day for iso, _ in found))


@dataclass(frozen=True)
class Outcome:
    """The deterministic path on one page: its proposal (None when it made none), the kept
    blocks' text, the Markdown (None when the article was lost) and their CPU ms."""

    proposal: HygieneProposal | None
    kept: str
    markdown: str | None
    ms: float
    heads: str = ""  # the article's title and subtitle fields, one a line


def _deterministic(cs: CandidateSet, page: Page, t: Tally) -> Outcome:
    start = time.process_time()
    try:
        proposal = deterministic_proposal(cs)
    except NoValidProposal as exc:
        t.lose(exc.reason)
        return Outcome(None, "", None, (time.process_time() - start) * 1000)
    ms_proposal = (time.process_time() - start) * 1000
    start = time.process_time()
    result = run_hygiene_harness(
        cs, proposal, source_html=page.raw, path="deterministic", source=page.name
    )
    ms_harness = (time.process_time() - start) * 1000
    t.ms_proposal.append(ms_proposal)
    t.ms_harness.append(ms_harness)
    text_of = {b.id: b.text for b in cs.blocks}
    kept = "\n".join(text_of[i] for i in proposal.kept_block_ids)
    if result.article is None:
        t.lose(result.report.reason or "invalid")
        return Outcome(proposal, kept, None, ms_proposal + ms_harness)
    article = result.article
    heads = "\n".join(h for h in (article.title, article.subtitle) if h)
    return Outcome(proposal, kept, article.markdown, ms_proposal + ms_harness, heads)


def run_page(set_name: str, page: Page, t: Tally) -> None:
    start = time.process_time()
    traf_text = trafilatura.extract(page.raw) or ""
    ms_traf = (time.process_time() - start) * 1000
    t.ms_traf.append(ms_traf)
    try:
        start = time.process_time()
        cs = build_candidates(page.raw, url=page.url)
        ms_build = (time.process_time() - start) * 1000
    except InputError as exc:
        t.lose(exc.reason)
        cs = None
    outcome = Outcome(None, "", None, 0.0)
    if cs is not None:
        t.ms_build.append(ms_build)
        outcome = _deterministic(cs, page, t)
        t.slowest = max(t.slowest, (ms_build + outcome.ms, page.name))
        t.ratio.append((ms_build + outcome.ms) / max(ms_traf, 1e-6))
        counted = context_tokens(cs, decode_html(page.raw))
        t.tokens.append(counted.data / counted.html)
        t.tokens_whole.append(counted.whole / counted.html)
        t.context.append(counted)
        if "title" in page.gt:
            _metadata(t, cs, page, outcome.proposal)
    det_text, markdown = outcome.kept, outcome.markdown
    blocks = [b.text for b in cs.blocks] if cs is not None else []
    md_text = metrics.markdown_text(markdown) if markdown is not None else ""
    if page.truth is not None:
        chosen = metrics.oracle_selection(blocks, page.truth)
        t.ceiling.append(_score(set_name, "\n".join(blocks[i] for i in chosen), page.truth))
        t.det.append(_score(set_name, det_text, page.truth))
        t.det_md.append(_score(set_name, md_text, page.truth))
        words = metrics.markdown_text(markdown, images=False) if markdown is not None else ""
        t.det_md_text.append(_score(set_name, words, page.truth))
        t.traf.append(_score(set_name, traf_text, page.truth))
    if page.with_ or page.without:
        _add(t.with_det, metrics.snippet_pass(det_text, page.with_, present=True))
        _add(t.without_det, metrics.snippet_pass(det_text, page.without, present=False))
        _add(t.with_md, metrics.snippet_pass(md_text, page.with_, present=True))
        _add(t.without_md, metrics.snippet_pass(md_text, page.without, present=False))
        _add(t.with_traf, metrics.snippet_pass(traf_text, page.with_, present=True))
        _add(t.without_traf, metrics.snippet_pass(traf_text, page.without, present=False))
        _add(t.with_all, metrics.snippet_pass("\n".join(blocks), page.with_, present=True))
        segments = (page.with_, page.without)
        best = metrics.segment_oracle(blocks, *segments)
        t.seg_ceiling.add(metrics.segment_counts("\n".join(blocks[i] for i in best), *segments))
        t.seg_det.add(metrics.segment_counts(det_text, *segments))
        t.seg_md.add(metrics.segment_counts(md_text, *segments))
        read = f"{outcome.heads}\n{md_text}"
        t.seg_read.add(metrics.segment_counts(read, *segments))
        t.seg_traf.add(metrics.segment_counts(traf_text, *segments))


def _f1(set_name: str, scores: list[Any]) -> str:
    if not scores:
        return "n/a"
    if set_name == "aeb":
        return f"{metrics.aeb_score(scores):.4f}"
    return f"{metrics.wcxb_score(scores):.4f}"


def _segments(counts: metrics.Segments) -> str:
    if not counts.found + counts.missed:
        return "n/a"
    prf = counts.prf()
    return f"{prf.f1:.3f} (P {prf.precision:.3f} R {prf.recall:.3f})"


def _rate(pair: list[int]) -> str:
    return f"{pair[0] / pair[1]:.3f} ({pair[0]}/{pair[1]})" if pair[1] else "n/a"


def _share(values: list[bool]) -> str:
    return f"{sum(values) / len(values):.3f}" if values else "n/a"


def _pair(chosen: list[bool], best: list[bool]) -> str:
    return f"{_share(chosen)} / {_share(best)}" if chosen else "n/a"


def _median(values: list[float], fmt: str = "{:.1f}") -> str:
    return fmt.format(statistics.median(values)) if values else "n/a"


def _prefix(t: Tally) -> str:
    """The cacheable prefix's tokens, and whether it was byte-identical on every article."""
    if not t.context:
        return "n/a"
    same = len({c.prefix for c in t.context}) == 1
    tokens = t.context[0].prefix_tokens
    return f"{tokens} ({'same on all' if same else 'DIFFERS'}; {cached_tokens(tokens)} cached)"


def table(results: dict[str, Tally], counts: dict[str, int]) -> str:
    rows: list[tuple[str, Callable[[str, Tally], str]]] = [
        ("pages", lambda s, t: str(counts[s])),
        ("ID-selection ceiling F1 (oracle)", lambda s, t: _f1(s, t.ceiling)),
        ("deterministic path F1 (kept text)", lambda s, t: _f1(s, t.det)),
        ("deterministic path F1 (Markdown)", lambda s, t: _f1(s, t.det_md)),
        ("... (Markdown, image alt left out)", lambda s, t: _f1(s, t.det_md_text)),
        ("trafilatura default F1", lambda s, t: _f1(s, t.traf)),
        ("segment F1 (P R): ID-selection ceiling", lambda s, t: _segments(t.seg_ceiling)),
        ("segment F1 (P R): deterministic kept", lambda s, t: _segments(t.seg_det)),
        ("segment F1 (P R): deterministic Markdown", lambda s, t: _segments(t.seg_md)),
        ("... title, subtitle and Markdown", lambda s, t: _segments(t.seg_read)),
        ("segment F1 (P R): trafilatura", lambda s, t: _segments(t.seg_traf)),
        ("with[] pass: all blocks", lambda s, t: _rate(t.with_all)),
        ("with[] pass: deterministic", lambda s, t: _rate(t.with_det)),
        ("with[] pass: Markdown", lambda s, t: _rate(t.with_md)),
        ("with[] pass: trafilatura", lambda s, t: _rate(t.with_traf)),
        ("without[] pass: deterministic", lambda s, t: _rate(t.without_det)),
        ("without[] pass: Markdown", lambda s, t: _rate(t.without_md)),
        ("without[] pass: trafilatura", lambda s, t: _rate(t.without_traf)),
        (
            "title accuracy: deterministic / best candidate",
            lambda s, t: _pair(t.title, t.title_best),
        ),
        (
            "... typography folded (curly quotes, NFKC)",
            lambda s, t: _pair(t.title_typo, t.title_typo_best),
        ),
        (
            "author accuracy: deterministic / best candidate",
            lambda s, t: _pair(t.author, t.author_best),
        ),
        (
            "date accuracy (same day): decision / best source",
            lambda s, t: _pair(t.date, t.date_best),
        ),
        ("median CPU ms build_candidates", lambda s, t: _median(t.ms_build)),
        ("median CPU ms deterministic proposal", lambda s, t: _median(t.ms_proposal)),
        ("median CPU ms harness+assembly", lambda s, t: _median(t.ms_harness)),
        ("median CPU ms trafilatura.extract", lambda s, t: _median(t.ms_traf)),
        ("median ratio (ours)/traf", lambda s, t: _median(t.ratio, "{:.2f}")),
        ("slowest page CPU ms (ours)", lambda s, t: f"{t.slowest[0]:.0f} ({t.slowest[1][:16]})"),
        ("median context/HTML tokens (data)", lambda s, t: _median(t.tokens, "{:.3f}")),
        ("median context/HTML tokens (whole)", lambda s, t: _median(t.tokens_whole, "{:.3f}")),
        (
            "median context tokens per article",
            lambda s, t: _median([c.whole for c in t.context], "{:.0f}"),
        ),
        ("cached-prefix tokens", lambda s, t: _prefix(t)),
        (
            "median uncached tokens",
            lambda s, t: _median(
                [c.whole - cached_tokens(c.prefix_tokens) for c in t.context], "{:.0f}"
            ),
        ),
        ("articles lost", lambda s, t: ", ".join(f"{k}={v}" for k, v in t.lost.items()) or "0"),
    ]
    names = list(results)
    width = max(len(r[0]) for r in rows)
    cells = {n: [cell(n, results[n]) for _, cell in rows] for n in names}
    widths = {n: max(len(n), *map(len, cells[n])) for n in names}
    lines = [f"{'metric':<{width}} | " + " | ".join(f"{n:>{widths[n]}}" for n in names)]
    lines.append("-" * len(lines[0]))
    for k, (label, _) in enumerate(rows):
        values = " | ".join(f"{cells[n][k]:>{widths[n]}}" for n in names)
        lines.append(f"{label:<{width}} | {values}")
    lines.append(
        f"tokens: {TOKENIZER}; data = the candidate set as rendered for the model, whole = data "
        f"plus system prompt and what response_format {DEFAULT_RESPONSE_FORMAT} (the certified "
        "OpenAI models' default) "
        f"sends ({SCHEMA_TOKENS} schema tokens); cached prefix = everything before the data, "
        "that schema included, the same for every article (OpenAI and "
        "Gemini cache only prompts of 1024 tokens or more, response_format's schema "
        "included; OpenAI in steps of 128: 'cached' is what it serves from cache, 'uncached' "
        "the rest); CPU: time.process_time; ours = build_candidates + "
        "deterministic proposal + harness; Markdown read as text by markdown-it (CommonMark)"
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--limit", type=int, default=None, help="first N pages per set")
    parser.add_argument(
        "--sets", default="wcxb,aeb,multi,te-dev,samples", help="comma-separated set names"
    )
    args = parser.parse_args(argv)
    for page in sample_pages(1):  # loads models and caches, so no page's CPU counts them
        run_page("samples", page, Tally())
    results: dict[str, Tally] = {}
    counts: dict[str, int] = {}
    for name in args.sets.split(","):
        tally = Tally()
        pages = 0
        for page in SETS[name](args.limit):
            run_page(name, page, tally)
            pages += 1
        results[name], counts[name] = tally, pages
    print(table(results, counts))


if __name__ == "__main__":
    main()
