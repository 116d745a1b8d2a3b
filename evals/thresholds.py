"""Pass thresholds per category: every case passes or fails alone, never on a global average."""

from __future__ import annotations

from evals.paths import ENRICHMENT, HYGIENE

# (min precision, min recall) of the kept blocks against the truth-derived expected set. The
# expected sets are approximate (word trigrams against a benchmark's text), hence below 1.
KEPT_BLOCKS: dict[str, tuple[float, float]] = {
    "real_page": (0.8, 0.8),
    "metadata": (0.8, 0.8),
    "injection": (0.8, 0.8),
    "repairs": (0.75, 0.75),
}
# Share of the labelled unambiguous defects the answer must repair exactly as labelled.
LABELLED_REPAIRS: dict[str, float] = {"repairs": 1.0}
# Per call, in USD and milliseconds (Promptfoo's own cost and latency assertions).
COST_USD: dict[str, float] = {HYGIENE: 0.01, ENRICHMENT: 0.005}
LATENCY_MS: dict[str, int] = {HYGIENE: 60_000, ENRICHMENT: 30_000}
