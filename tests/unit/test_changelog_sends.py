"""``article_runtime.streams.kafka.changelog.OrderedSends``: table changes reach the producer in the
order they were made, however long each hand-over takes, and each change's future settles as its own
record did (acknowledged, failed at hand-over, failed at the broker). The producer here is a script
of delays and failures; the real broker's side is ``tests/integration/test_rocksdb_store``
and the stream flow and fault tests."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from article_runtime.streams.kafka.changelog import OrderedSends


class Refused(Exception):
    """The producer would not take a record."""


class Lost(Exception):
    """The broker did not acknowledge a record."""


@dataclass(frozen=True)
class Step:
    """How the producer treats one record: hand-over delay, then refuse, lose or ack it."""

    hand_over_s: float
    ack_s: float
    fate: str  # "ack" | "refuse" | "lose"


@dataclass
class ScriptedProducer:
    steps: list[Step]
    taken: list[bytes] = field(default_factory=list)

    async def send(
        self, topic: str, key: bytes, value: bytes | None, partition: int, *_: Any
    ) -> asyncio.Future[Any]:
        step = self.steps[len(self.taken)]
        await asyncio.sleep(step.hand_over_s)
        self.taken.append(key)
        if step.fate == "refuse":
            raise Refused(key)
        acked: asyncio.Future[Any] = asyncio.get_running_loop().create_future()

        def settle() -> None:
            if step.fate == "lose":
                acked.set_exception(Lost(key))
            else:
                acked.set_result((topic, partition, key))

        asyncio.get_running_loop().call_later(step.ack_s, settle)
        return acked


steps = st.lists(
    st.builds(
        Step,
        hand_over_s=st.sampled_from([0.0, 0.0, 0.001, 0.003]),
        ack_s=st.sampled_from([0.0, 0.002, 0.005]),
        fate=st.sampled_from(["ack", "ack", "ack", "refuse", "lose"]),
    ),
    min_size=1,
    max_size=30,
)


@given(steps=steps, bursts=st.lists(st.integers(1, 5), min_size=1, max_size=30))
def test_records_go_in_order_and_each_future_settles_as_its_record_did(
    steps: list[Step], bursts: list[int]
) -> None:
    async def scenario() -> None:
        producer = ScriptedProducer(steps)
        sends = OrderedSends(lambda: producer)  # type: ignore[arg-type, return-value]
        futures, made = [], 0
        for burst in bursts:  # changes made together, then the loop runs a little
            for _ in range(burst):
                if made == len(steps):
                    break
                key = f"k{made}".encode()
                futures.append(sends.send("t-changelog", key, b"v", made % 3))
                made += 1
            await asyncio.sleep(0.001)
        settled = await asyncio.wait_for(
            asyncio.gather(*futures, return_exceptions=True), timeout=10
        )
        assert producer.taken == [f"k{n}".encode() for n in range(made)]
        for n, outcome in enumerate(settled):
            fate, key = steps[n].fate, f"k{n}".encode()
            if fate == "ack":
                assert outcome == ("t-changelog", n % 3, key)
            else:
                assert isinstance(outcome, Refused if fate == "refuse" else Lost)

    asyncio.run(scenario())


def test_changes_still_queued_when_the_loop_closes_are_cancelled_not_left_pending() -> None:
    async def scenario() -> list[asyncio.Future[Any]]:
        producer = ScriptedProducer([Step(10.0, 0.0, "ack")] * 3)
        sends = OrderedSends(lambda: producer)  # type: ignore[arg-type, return-value]
        futures = [sends.send("t", f"k{n}".encode(), None, 0) for n in range(3)]
        await asyncio.sleep(0.01)  # the first is being handed over, for ten seconds
        return futures

    loop = asyncio.new_event_loop()
    try:
        futures = loop.run_until_complete(scenario())
        drain = [t for t in asyncio.all_tasks(loop) if not t.done()]
        assert len(drain) == 1
        drain[0].cancel()
        with pytest.raises(asyncio.CancelledError):
            loop.run_until_complete(drain[0])
    finally:
        loop.close()
    assert all(f.cancelled() for f in futures)


@given(steps=steps, before=st.integers(0, 10), meanwhile=st.integers(0, 10))
def test_handed_over_returns_once_the_producer_has_every_record_made_before_the_call(
    steps: list[Step], before: int, meanwhile: int
) -> None:
    """What the producer's flush waits for first: records made before the call are with the
    producer when it returns, in order, however many are made while it waits."""

    async def scenario() -> None:
        producer = ScriptedProducer(steps)
        sends = OrderedSends(lambda: producer)  # type: ignore[arg-type, return-value]
        made: list[bytes] = []
        futures: list[asyncio.Future[Any]] = []

        def make() -> None:
            if len(made) < len(steps):
                made.append(f"k{len(made)}".encode())
                futures.append(sends.send("t-changelog", made[-1], b"v", 0))

        async def hand_over_then_look() -> list[bytes]:
            await sends.handed_over()
            return list(producer.taken)  # no await in between: as it returned

        for _ in range(before):
            make()
        made_before = list(made)
        looking = asyncio.ensure_future(hand_over_then_look())
        for _ in range(meanwhile):
            make()
            await asyncio.sleep(0.0005)
        taken = await asyncio.wait_for(looking, timeout=10)
        assert taken[: len(made_before)] == made_before
        assert taken == made[: len(taken)]  # in order, nothing skipped
        await asyncio.wait_for(sends.handed_over(), timeout=10)
        assert producer.taken == made
        await asyncio.gather(*futures, return_exceptions=True)  # refused and lost: expected

    asyncio.run(scenario())


def test_handed_over_returns_while_changes_keep_coming() -> None:
    """A flush under load: each hand-over takes a while and a change is made more often than
    that, so the queue is never empty; the flush still returns once the records made before
    it are with the producer."""

    async def scenario() -> tuple[int, int]:
        producer = ScriptedProducer([Step(0.002, 0.0, "ack")] * 10_000)
        sends = OrderedSends(lambda: producer)  # type: ignore[arg-type, return-value]
        made = 0

        async def keep_changing() -> None:
            nonlocal made
            while True:
                sends.send("t", f"k{made}".encode(), b"v", 0)
                made += 1
                await asyncio.sleep(0.0005)

        changing = asyncio.ensure_future(keep_changing())
        await asyncio.sleep(0.05)
        before = made
        await asyncio.wait_for(sends.handed_over(), timeout=5)
        taken = len(producer.taken)
        changing.cancel()
        return before, taken

    before, taken = asyncio.run(scenario())
    assert taken >= before > 0
