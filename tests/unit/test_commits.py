"""The commit gate: what a worker may commit, whatever order fetches, acks and rebalances
come in. The property tests replay random histories against a plain record of what happened
and check the one promise: a committed offset never passes a message that was handed out in
this epoch and not acknowledged while the flow ran."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from faust.types import TP
from hypothesis import given, settings
from hypothesis import strategies as st

from article_runtime.streams.kafka.commits import (
    DELIVERED,
    DONE,
    FETCHED,
    READ,
    RECEIVED,
    STAGES,
    WORKING,
    CommitGate,
)

TPS = (TP("article.ingested", 0), TP("article.ingested", 1))


def test_acks_out_of_order_commit_only_up_to_the_first_gap() -> None:
    gate = CommitGate()
    epoch = gate.begin()
    gate.resume()
    gate.fetched(epoch, TPS[0], [10, 11, 12, 13])
    for offset in (11, 13):
        assert gate.acked(epoch, TPS[0], offset)
    assert gate.committable() == {TPS[0]: 10}  # 10 is still in flight
    assert gate.acked(epoch, TPS[0], 10)
    assert gate.committable() == {TPS[0]: 12}
    gate.committed({TPS[0]: 12})
    assert gate.committable() == {}  # nothing new until 12 is acked
    assert gate.acked(epoch, TPS[0], 12)
    assert gate.committable() == {TPS[0]: 14}


def test_offsets_the_client_skipped_are_not_held_back() -> None:
    """Transaction markers and compacted records leave holes the client never returns."""
    gate = CommitGate()
    epoch = gate.begin()
    gate.resume()
    gate.fetched(epoch, TPS[0], [3, 7])
    gate.acked(epoch, TPS[0], 3)
    gate.acked(epoch, TPS[0], 7)
    assert gate.committable() == {TPS[0]: 8}


def test_acks_after_the_flow_stopped_or_from_an_old_epoch_do_not_count() -> None:
    gate = CommitGate()
    old = gate.begin()
    gate.resume()
    gate.fetched(old, TPS[0], [0, 1])
    gate.close()  # revocation: Faust now acks messages it drops
    assert not gate.acked(old, TPS[0], 0)
    assert gate.committable() == {TPS[0]: 0}
    new = gate.begin()
    gate.resume()
    gate.fetched(new, TPS[0], [0, 1])
    assert not gate.acked(old, TPS[0], 0)  # a stale copy finishing late
    assert gate.committable() == {TPS[0]: 0}
    assert gate.acked(new, TPS[0], 0)
    assert gate.committable() == {TPS[0]: 1}


def test_a_fetch_of_an_ended_epoch_registers_nothing() -> None:
    gate = CommitGate()
    old = gate.begin()
    gate.begin()
    gate.resume()
    gate.fetched(old, TPS[0], [5])
    assert gate.committable() == {}


def test_a_new_gate_counts_no_ack_before_the_flow_runs() -> None:
    """Before the first assignment's flow starts, an ack is no evidence of work done."""
    gate = CommitGate()
    gate.fetched(gate.epoch, TPS[0], [0, 1])
    assert not gate.acked(gate.epoch, TPS[0], 0)
    assert gate.committable() == {TPS[0]: 0}
    gate.resume()
    assert gate.acked(gate.epoch, TPS[0], 0)
    assert gate.committable() == {TPS[0]: 1}


def test_a_commit_for_some_partitions_gives_exactly_theirs() -> None:
    """Faust asks for the offsets of the partitions it commits (those still assigned): one it
    did not ask for is never committed, and one it asked for is, whichever was fetched first."""
    gate = CommitGate()
    epoch = gate.begin()
    gate.resume()
    gate.fetched(epoch, TPS[0], [4])
    gate.fetched(epoch, TPS[1], [9])
    assert gate.acked(epoch, TPS[0], 4)
    assert gate.acked(epoch, TPS[1], 9)
    assert gate.committable([TPS[1]]) == {TPS[1]: 10}
    assert gate.committable([TPS[0]]) == {TPS[0]: 5}
    assert gate.committable([]) == {}
    assert gate.committable() == {TPS[0]: 5, TPS[1]: 10}


def test_a_partition_fetched_with_no_records_hides_no_other() -> None:
    """A batch without records registers nothing to commit for its partition, and the
    partitions registered after it are still committed."""
    gate = CommitGate()
    epoch = gate.begin()
    gate.resume()
    gate.fetched(epoch, TPS[0], [])
    gate.fetched(epoch, TPS[1], [2])
    assert gate.acked(epoch, TPS[1], 2)
    assert gate.committable() == {TPS[1]: 3}
    assert gate.committable([TPS[0], TPS[1]]) == {TPS[1]: 3}


# -- property: random histories ------------------------------------------------------------------


@dataclass
class Model:
    """What happened, kept as plain facts (no commit logic)."""

    epoch: int = 0
    flowing: bool = False
    handed_out: dict[TP, set[int]] = field(default_factory=dict)  # this epoch
    done: dict[TP, set[int]] = field(default_factory=dict)  # acked in this epoch, flow running
    next_offset: dict[TP, int] = field(default_factory=dict)  # the client's position


ops = st.lists(
    st.one_of(
        st.tuples(st.just("rebalance")),
        st.tuples(st.just("resume")),
        st.tuples(st.just("stop")),
        st.tuples(
            st.just("fetch"),
            st.sampled_from(TPS),
            st.integers(1, 4),
            st.integers(0, 2),
        ),  # count, skipped offsets
        st.tuples(
            st.just("ack"),
            st.sampled_from(TPS),
            st.integers(0, 12),
            st.integers(-1, 1),
        ),  # epoch delta
        st.tuples(st.just("commit")),
    ),
    max_size=60,
)


@settings(max_examples=400, deadline=None)
@given(ops)
def test_no_history_commits_past_an_unacknowledged_message(history: list[tuple[Any, ...]]) -> None:
    gate, model = CommitGate(), Model()
    committed: dict[TP, int] = {}
    for op in history:
        kind = op[0]
        if kind == "rebalance":
            model = Model(epoch=gate.begin(), next_offset=dict(committed))
        elif kind == "resume":
            gate.resume()
            model.flowing = True
        elif kind == "stop":
            gate.close()
            model.flowing = False
        elif kind == "fetch":
            _, tp, count, skipped = op
            start = model.next_offset.get(tp, 0) + skipped  # the client skips markers
            offsets = list(range(start, start + count))
            gate.fetched(gate.epoch, tp, offsets)
            model.handed_out.setdefault(tp, set()).update(offsets)
            model.next_offset[tp] = start + count
        elif kind == "ack":
            _, tp, offset, delta = op
            counted = gate.acked(model.epoch + delta, tp, offset)
            genuine = delta == 0 and model.flowing and offset in model.handed_out.get(tp, ())
            done = model.done.setdefault(tp, set())
            assert counted == (genuine and offset not in done)  # each message counts once
            if genuine:
                done.add(offset)
        else:
            points = gate.committable()
            for tp, point in points.items():
                missing = {o for o in model.handed_out.get(tp, ()) if o < point} - model.done.get(
                    tp, set()
                )
                assert not missing, f"commit {point} passes unacknowledged {sorted(missing)}"
                assert point <= model.next_offset[tp]  # never beyond what was fetched
                assert point >= committed.get(tp, -1)  # never backwards (a new epoch may
                # commit where the last one ended: it starts from the committed offset)
            gate.committed(points)
            committed.update(points)
    # Liveness: once everything handed out is acknowledged, the commit reaches the position.
    if model.flowing:
        for tp, handed in model.handed_out.items():
            for offset in sorted(handed - model.done.get(tp, set())):
                gate.acked(model.epoch, tp, offset)
            assert gate.committable().get(tp, committed.get(tp)) == model.next_offset[tp]


# -- dropped deliveries ---------------------------------------------------------------------------


def test_a_message_passed_over_by_a_later_one_is_dropped_and_a_slow_one_is_not() -> None:
    gate = CommitGate()
    epoch = gate.begin()
    gate.resume()
    gate.fetched(epoch, TPS[0], [4, 5, 6, 7])
    gate.reached(epoch, TPS[0], 4, READ)
    gate.reached(epoch, TPS[0], 5, DELIVERED)
    assert gate.dropped() == {}  # in order so far: 4 and 5 may still be on their way
    gate.reached(epoch, TPS[0], 5, RECEIVED)
    assert gate.dropped() == {TPS[0]: (4, READ)}  # 5 reached an agent, 4 never will
    gate.reached(epoch, TPS[0], 4, RECEIVED)  # read again and delivered
    assert gate.dropped() == {}
    assert gate.acked(epoch, TPS[0], 7)  # acked out of order: 6 may still be in a window
    gate.reached(epoch, TPS[0], 6, WORKING)
    assert gate.dropped() == {}


def test_an_ack_is_evidence_that_earlier_undelivered_messages_were_dropped() -> None:
    gate = CommitGate()
    epoch = gate.begin()
    gate.resume()
    gate.fetched(epoch, TPS[1], [0, 1, 2])
    gate.reached(epoch, TPS[1], 2, RECEIVED)
    gate.acked(epoch, TPS[1], 2)
    assert gate.dropped() == {TPS[1]: (0, FETCHED)}
    gate.reached(epoch, TPS[1], 0, DONE)
    assert gate.dropped() == {TPS[1]: (1, FETCHED)}


def test_stages_never_go_back_and_other_epochs_change_nothing() -> None:
    gate = CommitGate()
    old = gate.begin()
    gate.fetched(old, TPS[0], [0, 1])
    new = gate.begin()
    gate.resume()
    gate.fetched(new, TPS[0], [0, 1])
    gate.reached(old, TPS[0], 1, RECEIVED)  # a stale copy: says nothing about this epoch
    assert gate.dropped() == {}
    gate.reached(new, TPS[0], 0, WORKING)
    gate.reached(new, TPS[0], 0, READ)  # delivered a second time after a seek
    assert gate.holding() == {TPS[0]: (0, 2, WORKING)}


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(STAGES), min_size=1, max_size=12),
    st.data(),
)
def test_dropped_names_exactly_the_oldest_message_overtaken_in_offset_order(
    stages: list[str], data: st.DataObject
) -> None:
    """Against a plain model: each fetched message got as far as ``stages[i]``, some were
    acknowledged; the dropped one is the oldest that is owed, never reached an agent, and has
    a later message that did (reached an agent or was acknowledged)."""
    gate = CommitGate()
    epoch = gate.begin()
    gate.resume()
    offsets = list(range(len(stages)))
    gate.fetched(epoch, TPS[0], offsets)
    acked = data.draw(st.sets(st.sampled_from(offsets)))
    for offset, stage in zip(offsets, stages, strict=True):
        for earlier in STAGES[: STAGES.index(stage) + 1]:
            gate.reached(epoch, TPS[0], offset, earlier)
        if offset in acked:
            gate.acked(epoch, TPS[0], offset)
    far = {
        o for o, s in zip(offsets, stages, strict=True) if STAGES.index(s) >= STAGES.index(RECEIVED)
    } | acked
    expected = [o for o in offsets if o not in acked and o not in far and any(f > o for f in far)]
    dropped = {TPS[0]: (min(expected), stages[min(expected)])} if expected else {}
    assert gate.dropped() == dropped


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(TPS), st.sampled_from(STAGES), st.booleans())))
def test_held_counts_each_owed_message_once_at_the_furthest_stage_it_reached(
    messages: list[tuple[TP, str, bool]],
) -> None:
    """Against a plain count: each message of the list is fetched, goes as far as its stage
    (its stages reported in a shuffled order) and is acknowledged or not."""
    gate = CommitGate()
    epoch = gate.begin()
    gate.resume()
    expected = dict.fromkeys(STAGES, 0)
    next_offset: dict[TP, int] = {}
    for tp, stage, acked in messages:
        offset = next_offset.get(tp, 0)
        next_offset[tp] = offset + 1
        gate.fetched(epoch, tp, [offset])
        for reached in reversed(STAGES[: STAGES.index(stage) + 1]):  # never a step back
            gate.reached(epoch, tp, offset, reached)
        if acked:
            gate.acked(epoch, tp, offset)
        else:
            expected[stage] += 1
    assert gate.held() == expected
    gate.begin()  # a new assignment owes nothing yet
    assert sum(gate.held().values()) == 0
