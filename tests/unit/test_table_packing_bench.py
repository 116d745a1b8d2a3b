"""``bench.table_packing`` times values the way the worker holds them: each reads back as
itself under both packings, and the lineage grows as an article's messages are recorded."""

from __future__ import annotations

from article_runtime.streams.kafka.tables import packed, unpacked
from bench.table_packing import before, lineages, values


def test_every_value_reads_back_the_same_under_both_packings() -> None:
    for value in values():
        assert unpacked(packed(value)) == value == unpacked(before(value))


def test_the_lineage_values_are_an_article_growing_message_by_message() -> None:
    states = lineages()
    assert [len(s["events"]) for s in states] == list(range(1, len(states) + 1))
    assert states[-1]["stage"] == "enriched"
    assert any(len(before(s)) >= 256 for s in states)  # some are deflated, as in the worker
