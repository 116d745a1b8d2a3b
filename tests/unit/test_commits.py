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

from streams.commits import CommitGate

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
