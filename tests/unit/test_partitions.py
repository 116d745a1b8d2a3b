"""Topics read together must have one partition count; the worker refuses otherwise."""

from __future__ import annotations

import weakref
from types import SimpleNamespace

import pytest
from faust.streams import _current_event
from hypothesis import given
from hypothesis import strategies as st

from article_runtime.agents.ledger import COUNTERS_TABLE, STATUS_TABLE
from article_runtime.agents.terminals import RECENT_TABLE
from article_runtime.streams.kafka.connection import KafkaConnection
from article_runtime.streams.kafka.partitions import (
    PartitionMismatch,
    check_copartitioned,
    found_count,
    mismatches,
)
from article_runtime.streams.kafka.topics import (
    ARTICLE_ASSEMBLED,
    ARTICLE_PROPOSAL,
    ECP_VERDICT,
    READ,
    TOPICS,
    partition_of,
)
from article_runtime.streams.service.settings import WorkerSettings
from article_runtime.streams.worker.app import TABLE_AGENTS, create_app, joined

names = st.sampled_from([t.name for t in TOPICS] + ["a-changelog", "b-changelog"])
counts = st.dictionaries(names, st.integers(1, 12), min_size=1)


@given(counts, st.integers(1, 12))
def test_missing_topics_are_created_to_match_those_that_exist(
    existing: dict[str, int], wanted: int
) -> None:
    count = found_count(existing, wanted)
    assert count in existing.values()
    assert all(list(existing.values()).count(count) >= list(existing.values()).count(n)
               for n in existing.values())  # fmt: skip


def test_on_an_empty_cluster_the_setting_decides() -> None:
    assert found_count({}, 6) == 6


@given(
    st.dictionaries(st.text("abcdef ", min_size=1), st.lists(names, min_size=1, unique=True)),
    counts,
)
def test_a_group_is_refused_exactly_when_its_counts_differ(
    groups: dict[str, list[str]], found: dict[str, int]
) -> None:
    full = {name: found.get(name, 3) for group in groups.values() for name in group}
    bad = mismatches(groups, full)
    assert len(bad) == sum(len({full[n] for n in g}) > 1 for g in groups.values())
    if bad:
        with pytest.raises(PartitionMismatch) as refused:
            check_copartitioned(groups, full)
        line = str(refused.value)
        assert "\n" not in line
        for group in groups.values():
            if len({full[n] for n in group}) > 1:
                assert all(f"{n} ({full[n]})" in line for n in group)
    else:
        check_copartitioned(groups, full)


def test_the_refusal_names_the_topics_and_their_counts() -> None:
    groups = {"agent enrichment": [ARTICLE_ASSEMBLED.name, ECP_VERDICT.name]}
    with pytest.raises(PartitionMismatch, match=r"article.assembled \(6\), ecp.verdict \(3\)"):
        check_copartitioned(groups, {ARTICLE_ASSEMBLED.name: 6, ECP_VERDICT.name: 3})


def test_joined_groups_cover_every_multi_topic_agent_and_every_table() -> None:
    settings = WorkerSettings(KafkaConnection("127.0.0.1:9"), app_id="t", partitions=6)
    w = create_app(settings, None)
    groups = joined(w)
    assert set(groups) == {"agent hygiene", "agent assembly", "agent enrichment"}
    assert {ARTICLE_ASSEMBLED.name, ECP_VERDICT.name} <= set(groups["agent enrichment"])
    # Every stage writes the ledger's tables: each is read together with every stage's input.
    for table in (STATUS_TABLE, COUNTERS_TABLE, RECENT_TABLE):
        changelog = f"t-{table}-changelog"
        assert all(changelog in group for group in groups.values())
    # The assembly agent reads the hygiene ladder: it must sit on the same partitions.
    read = [f"t-{t}-changelog" for t, agents in TABLE_AGENTS.items() if "assembly" in agents]
    assert groups["agent assembly"] == [ARTICLE_PROPOSAL.name, *read]
    assert "t-hygiene_ladder-changelog" in read
    changelogs = {n for g in groups.values() for n in g if n.endswith("-changelog")}
    assert changelogs == {f"t-{table}-changelog" for table in TABLE_AGENTS}
    # Everything the app declares follows the count the worker runs with.
    assert {w.tables[t].partitions for t in TABLE_AGENTS} == {6}
    assert {agent.channel.partitions for agent in w.app.agents.values()} == {6}


def test_partition_of_depends_on_the_count() -> None:
    """Why the count must reach every caller: the same key lands elsewhere with 6."""
    ids = [f"article-{n}" for n in range(50)]
    assert any(partition_of(a, 3) != partition_of(a, 6) for a in ids)


@pytest.mark.parametrize("table", list(TABLE_AGENTS))
def test_a_table_write_takes_the_partition_of_the_message_being_handled(
    table: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Even while the consumer's metadata snapshot predates the changelog (0 partitions):
    Faust's own check then raised PartitionsMismatch inside a stage and stopped the worker
    (seen on a fresh broker). The worker checks the counts on the cluster before it starts."""
    settings = WorkerSettings(KafkaConnection("127.0.0.1:9"), app_id="t", partitions=6)
    w = create_app(settings, None)
    snapshot = {ECP_VERDICT.name: 6}  # the changelog is not in it yet
    consumer = SimpleNamespace(topic_partitions=lambda topic: snapshot.get(topic, 0))
    monkeypatch.setattr(w.app, "_consumer", consumer)
    event = _Event(SimpleNamespace(topic=ECP_VERDICT.name, partition=4))
    token = _current_event.set(weakref.ref(event))  # type: ignore[arg-type]
    try:
        assert w.tables[table].partition_for_key("any-key") == 4
    finally:
        _current_event.reset(token)


class _Event:
    """What a table reads of the current event (Faust holds it by weak reference)."""

    def __init__(self, message: SimpleNamespace) -> None:
        self.message = message


def test_the_stages_read_every_topic_the_lag_is_measured_on() -> None:
    """``READ`` is what the consumer group commits: the lag checks and probes count it."""
    settings = WorkerSettings(KafkaConnection("127.0.0.1:9"), app_id="t", partitions=6)
    w = create_app(settings, None)
    read = {name for agent in w.app.agents.values() for name in agent.channel.topics}
    assert read == {t.name for t in READ}
