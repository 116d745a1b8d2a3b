"""Keep the candidate set small without losing article text.

Only structural pruning: exact duplicates (the first stays), blocks in navigation, banner,
search or complementary zones, and link-dense lists of short items. Zone pruning is skipped
when it would remove most of the page's text: then the zones are the page's layout, not
its chrome.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from article_runtime.candidates.segment import RawBlock

MIN_KEPT_SHARE = 0.5  # zone pruning must leave at least this share of the page's characters
NAV_LIST_MIN_ITEMS = 3
NAV_ITEM_MAX_CHARS = 60
NAV_LINK_DENSITY = 0.8


def _dedupe(blocks: Sequence[RawBlock]) -> list[RawBlock]:
    seen: set[str] = set()
    kept: list[RawBlock] = []
    for block in blocks:
        if block.text in seen:
            continue
        seen.add(block.text)
        kept.append(block)
    return kept


def _nav_lists(blocks: Sequence[RawBlock]) -> set[int]:
    """Keys of lists whose items are all short and almost all link text."""
    items: dict[int, list[RawBlock]] = defaultdict(list)
    for block in blocks:
        if block.type == "list_item" and block.list_key is not None:
            items[block.list_key].append(block)
    return {
        key
        for key, group in items.items()
        if len(group) >= NAV_LIST_MIN_ITEMS
        and all(len(b.text) <= NAV_ITEM_MAX_CHARS for b in group)
        and sum(b.link_chars for b in group) >= NAV_LINK_DENSITY * sum(len(b.text) for b in group)
    }


def prune(blocks: Sequence[RawBlock]) -> list[RawBlock]:
    """Blocks worth showing the model, in document order."""
    kept = _dedupe(blocks)
    total = sum(len(b.text) for b in kept)
    outside = [b for b in kept if not b.boiler]
    if sum(len(b.text) for b in outside) >= MIN_KEPT_SHARE * total:
        kept = outside
    nav = _nav_lists(kept)
    return [b for b in kept if b.list_key not in nav or b.type != "list_item"]
