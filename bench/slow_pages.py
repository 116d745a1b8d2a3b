"""CPU seconds of adversarial pages, one class at a time: no page within the input limits may
cost more than a few seconds (issue 9, section 4).

Run: ``.venv/bin/python -m bench.slow_pages [--classes a,b] [--timeout S] [--scale F]``.
Each class runs in its own child process (candidates, then the harness on a proposal built for
the class), so one runaway class cannot hide the others; a child that outlives ``--timeout`` is
killed and printed as ``>S``. Figures are process CPU seconds of the child's work, not wall
time; the machine is shared, so compare runs side by side and quote medians of ``--runs``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from article_runtime.candidates import build_candidates
from article_runtime.candidates.decode import MAX_HTML_BYTES
from article_runtime.deterministic import deterministic_proposal
from article_runtime.errors import InputError
from article_runtime.harness.pipeline import run_hygiene_harness
from article_runtime.model import CandidateSet

PROSE = (
    "The harbour authority said on Monday that the new quay would open next spring, after "
    "two years of delays caused by flooding and a shortage of steel. "
)


@dataclass(frozen=True)
class Case:
    """A page, and optionally the repairs a hostile proposal adds to the deterministic one."""

    html: str
    repairs: Callable[[CandidateSet], list[dict[str, Any]]] | None = None


def _page(body: str, head: str = "") -> str:
    return (
        f"<!doctype html><html lang=en><head><title>Quay opens</title>{head}</head><body>"
        f"<article><h1>Quay opens next spring</h1><p>{PROSE * 3}</p>{body}"
        f"<p>{PROSE * 2}</p></article></body></html>"
    )


def _nest(open_tag: str, count: int) -> Case:
    return Case(_page(open_tag * count))


def _biggest_block(candidates: CandidateSet, kept: list[str]) -> tuple[str, str]:
    block = max((b for b in candidates.blocks if b.id in kept), key=lambda b: len(b.text))
    return block.id, block.text


def _long_token(scale: float) -> Case:
    """One paragraph holding a very long token, and a typo repair inside that token."""
    half = int(3000 * scale)
    token = "a" * half + "teh" + "b" * half

    def repairs(candidates: CandidateSet) -> list[dict[str, Any]]:
        block = next(b for b in candidates.blocks if token in b.text)
        return [_repair(block.id, "teh", "the", "obvious_typo")]

    return Case(_page(f"<p>{PROSE} {token} {PROSE}</p>"), repairs)


def _many_repairs(scale: float, limit: int | None = None) -> Case:
    """A long block and one repair for each of its words (distinct, so each is unique), or
    only the first ``limit`` of them."""
    count = int(4000 * scale)
    words = " ".join(f"wrd{n}x" for n in range(count))

    def repairs(candidates: CandidateSet) -> list[dict[str, Any]]:
        block = next(b for b in candidates.blocks if "wrd0x" in b.text)
        chosen = range(min(count - 1, limit if limit is not None else count))
        return [_repair(block.id, f"wrd{n}x ", f"wrd{n}x  ", "spacing") for n in chosen]

    return Case(_page(f"<p>{PROSE} {words} {PROSE}</p>"), repairs)


def _repair(target: str, original: str, replacement: str, category: str) -> dict[str, Any]:
    return {
        "target_id": target,
        "original": original,
        "replacement": replacement,
        "category": category,
        "justification": "bench",
    }


def _repair_on_huge_block(scale: float) -> Case:
    """One spacing repair on a paragraph of a few MiB: each repair's cost must stay local."""
    text = PROSE * int(15000 * scale)

    def repairs(candidates: CandidateSet) -> list[dict[str, Any]]:
        block = next(b for b in candidates.blocks if len(b.text) > len(text) // 2)
        return [_repair(block.id, "quay  opens", "quay opens", "spacing")]

    return Case(_page(f"<p>{text} the quay  opens {text}</p>"), repairs)


def _sentences(count: int) -> str:
    """``count`` distinct sentences of prose, each with its own number: no two alike."""
    return "".join(f"Report {n} says the quay opens in spring. " for n in range(count))


def _spread(count: int, wanted: int) -> list[int]:
    """``wanted`` sentence numbers spread evenly over ``count`` sentences."""
    return [n * count // wanted for n in range(wanted)]


def _most_repairs_on(sentences: int, scale: float, kind: str) -> Case:
    """The schema's 64 repairs spread over one paragraph of ``sentences`` distinct sentences.

    ``spacing``: one doubled space per repaired sentence. ``mixed``: a doubled space next to
    doubled punctuation, repaired by two neighbouring repairs of different categories, so the
    second is judged on the text the first leaves. ``encoding``: a mojibake word per repaired
    sentence, so each repair needs ftfy's verdict on the whole paragraph.
    """
    count = int(sentences * scale)
    chosen = set(_spread(count, 64 if kind != "mixed" else 32))
    parts = []
    for n in range(count):
        sentence = f"Report {n} says the quay opens in spring. "
        if n in chosen:
            defect = {
                "spacing": f"Report {n} says the quay  opens in spring. ",
                "mixed": f"Report {n} says the quay  opens,, in spring. ",
                "encoding": f"Report {n} says the quay opens in SÃ£o Paulo. ",
            }[kind]
            sentence = defect
        parts.append(sentence)
    text = "".join(parts)

    def repairs(candidates: CandidateSet) -> list[dict[str, Any]]:
        block = max(candidates.blocks, key=lambda b: len(b.text))
        out = []
        for n in sorted(chosen):
            if kind == "spacing":
                out.append(
                    _repair(
                        block.id, f"{n} says the quay  opens", f"{n} says the quay opens", "spacing"
                    )
                )
            elif kind == "mixed":
                out.append(
                    _repair(
                        block.id, f"{n} says the quay  opens", f"{n} says the quay opens", "spacing"
                    )
                )
                out.append(
                    _repair(
                        block.id,
                        f"opens,, in spring. Report {n + 1} ",
                        f"opens, in spring. Report {n + 1} ",
                        "punctuation_corruption",
                    )
                )
            else:
                out.append(
                    _repair(
                        block.id,
                        f"Report {n} says the quay opens in SÃ£o",
                        f"Report {n} says the quay opens in São",
                        "encoding",
                    )
                )
        return out

    return Case(_page(f"<p>{text}</p>"), repairs)


def _typo_among_distinct_sentences(scale: float) -> Case:
    """One typo in a paragraph of distinct sentences: the article's vocabulary is read once."""
    text = _sentences(int(50000 * scale))

    def repairs(candidates: CandidateSet) -> list[dict[str, Any]]:
        block = max(candidates.blocks, key=lambda b: len(b.text))
        return [_repair(block.id, "quay opnes now", "quay opens now", "obvious_typo")]

    return Case(_page(f"<p>{text} The quay opnes now. {text}</p>"), repairs)


def _repairs_without_cuts(scale: float) -> Case:
    """64 repairs in a paragraph with no word after a space or a mark (digits and dashes only):
    no window can close near a change, so each reads the whole paragraph (the budget's case)."""
    count = int(600000 * scale)
    body = "-".join(str(n) for n in range(count))

    def repairs(candidates: CandidateSet) -> list[dict[str, Any]]:
        block = max(candidates.blocks, key=lambda b: len(b.text))
        spots = _spread(count, 64)
        return [
            _repair(block.id, f"-{n}-{n + 1}-", f"-{n}--{n + 1}-", "punctuation_corruption")
            for n in spots[1:]
        ]

    return Case(_page(f"<p>{body}</p>"), repairs)


def _nested_tables(scale: float) -> Case:
    """Layout tables nested deep, each level with many cells: nested-table searches."""
    depth, width = 45, int(400 * scale)
    cells = "".join(f"<td>cell {n}</td>" for n in range(width))
    return Case(
        _page(("<table><tr>" + cells + "<td>") * depth + "x" + "</td></tr></table>" * depth)
    )


def _nested_figures(scale: float) -> Case:
    depth, width = 150, int(400 * scale)
    level = "".join(f"<span>word {n}</span>" for n in range(width))
    return Case(_page(("<figure>" + level) * depth + "</figure>" * depth))


def _nested_bylines(scale: float) -> Case:
    """Bylines nested deep, each level with many sibling bylines: innermost-match searches."""
    depth, width = 150, int(200 * scale)
    level = "".join(f"<span class=author>Ann Lee {n}</span>" for n in range(width))
    return Case(_page(("<div class=byline>" + level) * depth + "</div>" * depth))


def _many_links(scale: float) -> Case:
    count = int(30000 * scale)
    links = " ".join(f'<a href="/story/{n}">story {n}</a>' for n in range(count))
    return Case(_page(f"<p>{PROSE} {links}</p>"))


def _many_link_paragraphs(scale: float) -> Case:
    count = int(20000 * scale)
    body = "".join(f'<p>{PROSE}<a href="/s/{n}">more on {n}</a></p>' for n in range(count // 10))
    links = "".join(f'<li><a href="https://x{n}.example/">site {n}</a></li>' for n in range(count))
    return Case(_page(body + f"<ul>{links}</ul>"))


def _cases(scale: float) -> dict[str, Callable[[], Case]]:
    deep = int(60000 * scale)
    return {
        "self_closing_divs": lambda: _nest("<div/>", deep),
        "noscript_nesting": lambda: Case(_page("<noscript>" + "<div>" * deep)),
        "ruby_text_nesting": lambda: _nest("<rt>", deep),
        "misnested_inline_block": lambda: _nest("<span><div></span>", deep // 2),
        "template_nesting": lambda: Case(_page("<template>" + "<div>" * deep)),
        "formatting_reopened": lambda: Case(
            _page("".join(f"<p><b id={n}>x</p>" for n in range(deep // 20)))
        ),
        "formatting_reopened_shallow": lambda: Case(
            _page(
                "<div>"
                + "".join(f"<b id={n}>" for n in range(150))
                + "</div>"
                + "<p>x</p>" * (deep // 2)
            )
        ),
        "inline_in_one_paragraph": lambda: Case(
            _page("<p>" + " ".join(f"<b>w{n}</b>" for n in range(deep)) + "</p>")
        ),
        "many_paragraphs": lambda: Case(
            _page("".join(f"<p>{PROSE[:24]} {n}</p>" for n in range(int(2 * deep))))
        ),
        "long_token_typo": lambda: _long_token(scale),
        "many_repairs_one_block": lambda: _many_repairs(scale),
        "most_repairs_allowed": lambda: _many_repairs(scale, limit=64),
        "repair_on_huge_block": lambda: _repair_on_huge_block(scale),
        "most_repairs_20k_words": lambda: _most_repairs_on(2500, scale, "spacing"),
        "most_repairs_huge_block": lambda: _most_repairs_on(100000, scale, "spacing"),
        "mixed_groups_huge_block": lambda: _most_repairs_on(100000, scale, "mixed"),
        "encoding_repairs_huge_block": lambda: _most_repairs_on(100000, scale, "encoding"),
        "typo_distinct_sentences": lambda: _typo_among_distinct_sentences(scale),
        "repairs_without_cuts": lambda: _repairs_without_cuts(scale),
        "nested_bylines": lambda: _nested_bylines(scale),
        "nested_tables": lambda: _nested_tables(scale),
        "nested_figures": lambda: _nested_figures(scale),
        "many_links_one_block": lambda: _many_links(scale),
        "many_bad_dates": lambda: Case(
            _page("", head="<meta name=date content='Tuesday, sometime'>" * int(50000 * scale))
        ),
        "many_links_page": lambda: _many_link_paragraphs(scale),
        # At the edge of what skips the exact depth scan (bounds.py); not scaled, as the
        # bound decides their size.
        "bounded_deep_divs": lambda: Case(_page("<div>" * 4_980)),
        "bounded_reopened": lambda: Case(
            _page(
                "<div>" + "".join(f"<b id={n}>" for n in range(38)) + "</div>" + "<p>x</p>" * 1_150
            )
        ),
        "bounded_noahs_ark": lambda: Case(
            _page("<div>" + "<b class=x>" * 1_500 + "</div>" + "<p>x</p>" * 1_700)
        ),
        "bounded_adoption": lambda: Case(_page("<b><div></b>x" * 900 + "<a><p></a>y" * 600)),
    }


def _warm_up() -> None:
    """Load what every process loads once (language model, prompts) outside the timing."""
    page = _page("").encode("utf-8")
    candidates = build_candidates(page, url="https://news.example/warm-up")
    run_hygiene_harness(
        candidates, deterministic_proposal(candidates), source_html=page, path="primary", source=""
    )


def run_one(name: str, scale: float) -> dict[str, Any]:
    """In the child: build the page, then time candidates and harness in CPU seconds."""
    _warm_up()
    case = _cases(scale)[name]()
    raw = case.html.encode("utf-8")
    started = time.process_time()
    outcome = "ok"
    try:
        candidates = build_candidates(raw, url="https://news.example/quay")
        proposal = deterministic_proposal(candidates).model_dump(mode="json")
        if case.repairs is not None:
            proposal["repairs"] = case.repairs(candidates)
        result = run_hygiene_harness(
            candidates, json.dumps(proposal), source_html=raw, path="primary", source=name
        )
        outcome = "article" if result.article is not None else f"invalid:{result.report.reason}"
    except InputError as exc:
        outcome = f"refused:{exc.reason}"
    return {"cpu_s": time.process_time() - started, "outcome": outcome, "bytes": len(raw)}


def _child(name: str, scale: float, timeout: float) -> dict[str, Any]:
    command = [sys.executable, "-m", "bench.slow_pages", "--child", name, "--scale", str(scale)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=True)
    except subprocess.TimeoutExpired:
        return {"cpu_s": None, "outcome": f"killed after {timeout:g} s", "bytes": 0}
    except subprocess.CalledProcessError as exc:
        last = (exc.stderr.strip().splitlines() or ["?"])[-1]
        return {"cpu_s": None, "outcome": f"crashed: {last[:60]}", "bytes": 0}
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.slow_pages", description=__doc__)
    parser.add_argument("--classes", help="comma-separated class names (default: all)")
    parser.add_argument("--scale", type=float, default=1.0, help="size factor of every page")
    parser.add_argument("--runs", type=int, default=1, help="runs per class; the median is shown")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds before a kill")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(run_one(args.child, args.scale)))
        return 0
    names = args.classes.split(",") if args.classes else list(_cases(args.scale))
    print(f"limit: {MAX_HTML_BYTES} bytes a page; CPU seconds, median of {args.runs} run(s)")
    print(f"{'class':26} {'bytes':>9} {'cpu_s':>8}  outcome")
    for name in names:
        results = [_child(name, args.scale, args.timeout) for _ in range(args.runs)]
        times = [r["cpu_s"] for r in results if r["cpu_s"] is not None]
        shown = f"{statistics.median(times):8.2f}" if len(times) == len(results) else "       -"
        print(f"{name:26} {results[0]['bytes']:9d} {shown}  {results[-1]['outcome']}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
