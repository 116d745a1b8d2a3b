"""The benchmarks' own metrics, reproduced as their authors define them (bench/README.md).

Word tokens here are a benchmark convention (``\\w+`` on lower-cased text, as the AEB
``evaluate.py`` does); the runtime itself never tokenizes with regular expressions.
"""

from __future__ import annotations

import re
import statistics
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from markdown_it import MarkdownIt
from markdown_it.token import Token

_WORD = re.compile(r"\w+", re.UNICODE)


def tokens(text: str) -> list[str]:
    return _WORD.findall(text.lower())


@dataclass(frozen=True, slots=True)
class PRF:
    precision: float
    recall: float
    f1: float


def _prf(overlap: float, predicted: float, truth: float) -> PRF:
    if predicted == 0 and truth == 0:
        return PRF(1.0, 1.0, 1.0)
    p = overlap / predicted if predicted else 0.0
    r = overlap / truth if truth else 0.0
    return PRF(p, r, 2 * p * r / (p + r) if p + r else 0.0)


def bow_prf(predicted: str, truth: str) -> PRF:
    """WCXB: bag-of-words precision/recall/F1 of one page (multiset overlap)."""
    pred, true = Counter(tokens(predicted)), Counter(tokens(truth))
    overlap = sum((pred & true).values())
    return _prf(overlap, sum(pred.values()), sum(true.values()))


def wcxb_score(pages: Iterable[PRF]) -> float:
    """WCXB: mean of per-page F1."""
    return statistics.fmean(p.f1 for p in pages)


def _shingles(text: str, n: int = 4) -> Counter[tuple[str, ...]]:
    toks = tokens(text)
    return Counter(
        tuple(toks[i : i + n]) for i in range(max(1, len(toks) - n + 1)) if toks[i : i + n]
    )


def aeb_counts(predicted: str, truth: str) -> tuple[float, float, float]:
    """AEB: shingle TP/FP/FN of one page, normalized so long pages weigh the same."""
    pred, true = _shingles(predicted), _shingles(truth)
    tp = float(sum((pred & true).values()))
    fp = float(sum((pred - true).values()))
    fn = float(sum((true - pred).values()))
    total = tp + fp + fn
    return (tp / total, fp / total, fn / total) if total else (0.0, 0.0, 0.0)


def aeb_page_prf(counts: tuple[float, float, float]) -> PRF:
    tp, fp, fn = counts
    return _prf(tp, tp + fp, tp + fn) if (fp or fn) else PRF(1.0, 1.0, 1.0)


def aeb_score(pages: Sequence[tuple[float, float, float]]) -> float:
    """AEB: F1 of the precision and recall averaged over pages (evaluate.py semantics)."""
    precisions = [aeb_page_prf(c).precision for c in pages if c[0] + c[1] > 0]
    recalls = [aeb_page_prf(c).recall for c in pages if c[0] + c[2] > 0]
    p = statistics.fmean(precisions) if precisions else 0.0
    r = statistics.fmean(recalls) if recalls else 0.0
    return 2 * p * r / (p + r) if p + r else 0.0


def _greedy_selection(bags: Sequence[Counter[str]], truth: Counter[str]) -> set[int]:
    """Greedy in two passes, longest blocks first so that short boilerplate blocks do not use
    up truth words that a long paragraph needs: first blocks the truth mostly covers, then any
    block that still raises F1."""
    remaining = truth.copy()
    truth_len = sum(truth.values())
    sizes = [sum(b.values()) for b in bags]
    order = sorted((i for i in range(len(bags)) if sizes[i]), key=lambda i: -sizes[i])
    chosen: set[int] = set()
    overlap = predicted = 0
    for strict in (True, False):
        for i in order:
            if i in chosen:
                continue
            bag, size = bags[i], sizes[i]
            gain = sum(min(c, remaining[w]) for w, c in bag.items())
            if strict:
                accept = gain >= 0.6 * size
            else:
                accept = gain * (predicted + truth_len) > overlap * size
            if accept and gain:
                chosen.add(i)
                overlap += gain
                predicted += size
                remaining -= bag
    return chosen


def oracle_selection(block_texts: Sequence[str], truth: str) -> list[int]:
    """Best-effort oracle: a subset of blocks that maximizes bag-of-words F1 with the truth.

    The greedy choice (``_greedy_selection``), then local search: add or drop any single block
    that raises F1, in document order, until no single change helps. Still a real choice of
    whole blocks, so its F1 is achievable (a lower bound of the true optimum).
    Returns indices in document order.
    """
    truth_bag = Counter(tokens(truth))
    truth_len = sum(truth_bag.values())
    bags = [Counter(tokens(t)) for t in block_texts]
    sizes = [sum(b.values()) for b in bags]
    chosen = _greedy_selection(bags, truth_bag)
    picked: Counter[str] = Counter()
    for i in chosen:
        picked.update(bags[i])
    overlap = sum(min(c, truth_bag[w]) for w, c in picked.items())
    predicted = sum(sizes[i] for i in chosen)
    changed = True
    while changed:
        changed = False
        for i, bag in enumerate(bags):
            if not sizes[i]:
                continue
            sign = -1 if i in chosen else 1
            delta = sum(
                min(picked[w] + sign * c, truth_bag[w]) - min(picked[w], truth_bag[w])
                for w, c in bag.items()
            )
            new_predicted = predicted + sign * sizes[i]
            # F1 = 2 * overlap / (predicted + truth_len); compare without dividing
            if (overlap + delta) * (predicted + truth_len) > overlap * (new_predicted + truth_len):
                if sign > 0:
                    chosen.add(i)
                    picked.update(bag)
                else:
                    chosen.discard(i)
                    picked.subtract(bag)
                overlap += delta
                predicted = new_predicted
                changed = True
    return sorted(chosen)


def snippet_pass(text: str, snippets: Sequence[str], *, present: bool) -> tuple[int, int]:
    """(passed, total) for ``with`` (present=True) or ``without`` (present=False) snippets."""
    hay = " ".join(text.casefold().split())
    passed = sum(((" ".join(s.casefold().split()) in hay) == present) for s in snippets if s)
    return passed, sum(1 for s in snippets if s)


_COMMONMARK = MarkdownIt("commonmark").enable(["table", "strikethrough"])


def _inline_text(token: Token, images: bool) -> str:
    out: list[str] = []
    for child in token.children or []:
        if child.type in ("softbreak", "hardbreak"):
            out.append("\n")
        elif child.type == "image":
            out.append(_inline_text(child, images) if images else "")
        elif child.children is None or child.type in ("text", "code_inline", "html_inline"):
            out.append(child.content)
    return "".join(out)


def markdown_text(markdown: str, *, images: bool = True) -> str:
    """What a reader sees of Markdown, as a CommonMark parser reads it: one line per block
    (list item, table cell), image alt text included unless ``images`` is false, link targets
    and syntax left out."""
    lines: list[str] = []
    for token in _COMMONMARK.parse(markdown):
        if token.type == "inline":
            lines.append(_inline_text(token, images))
        elif token.type in ("fence", "code_block", "html_block"):
            lines.append(token.content)
    return "\n".join(lines)


# --- trafilatura's evaluation convention (te-dev) ------------------------------------------


def _squash(text: str) -> str:
    return " ".join(text.split())


@dataclass
class Segments:
    """Segment counts over pages: ``with`` segments found and missed, ``without`` found."""

    found: int = 0
    missed: int = 0
    unwanted: int = 0

    def add(self, other: Segments) -> None:
        self.found += other.found
        self.missed += other.missed
        self.unwanted += other.unwanted

    def prf(self) -> PRF:
        """trafilatura's figures: precision over the segments found of either kind, recall
        over the ``with`` segments, F1 of the two."""
        return _prf(self.found, self.found + self.unwanted, self.found + self.missed)


def segment_counts(text: str, with_: Sequence[str], without: Sequence[str]) -> Segments:
    """Per segment, whitespace-normalised containment in ``text`` (case kept, as
    trafilatura's own evaluation does)."""
    hay = _squash(text)
    wanted = [s for s in (_squash(w) for w in with_) if s]
    found = sum(s in hay for s in wanted)
    unwanted = sum(s in hay for s in (_squash(w) for w in without) if s)
    return Segments(found, len(wanted) - found, unwanted)


def _window(squashed: Sequence[str], target: str) -> tuple[int, int] | None:
    """The shortest run of consecutive blocks whose joined text holds ``target``."""
    best: tuple[int, int] | None = None
    for i, first in enumerate(squashed):
        if not first:
            continue
        joined, rest = first, 0
        for j in range(i, len(squashed)):
            if j > i and squashed[j]:
                joined = f"{joined} {squashed[j]}"
                rest += len(squashed[j]) + 1
            if target in joined:
                if best is None or j - i < best[1] - best[0]:
                    best = (i, j)
                break
            if rest >= len(target):  # a match starting in block i would have ended by now
                break
    return best


def segment_oracle(
    block_texts: Sequence[str], with_: Sequence[str], without: Sequence[str]
) -> list[int]:
    """A selection of whole blocks for trafilatura's segment metric: for each ``with``
    segment the shortest run of blocks holding it, kept unless it brings in more ``without``
    segments than ``with`` ones. A real selection, so its score is reachable (a lower bound
    of the best one). Returns indices in document order."""
    squashed = [_squash(t) for t in block_texts]
    runs = {w for w in (_window(squashed, _squash(s)) for s in with_ if s.strip()) if w}
    chosen: set[int] = set()
    for first, last in sorted(runs):
        trial = chosen | set(range(first, last + 1))
        before = segment_counts("\n".join(block_texts[i] for i in sorted(chosen)), with_, without)
        after = segment_counts("\n".join(block_texts[i] for i in sorted(trial)), with_, without)
        if after.found - before.found > after.unwanted - before.unwanted:
            chosen = trial
    return sorted(chosen)
