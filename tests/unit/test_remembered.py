"""What the assembled-article reader keeps of what the worker saw: bounded by bytes, newest
kept, and always the value last seen at a position."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from article_runtime.streams.kafka.reader import Remembered

positions = st.tuples(st.integers(0, 3), st.integers(0, 20))
adds = st.lists(st.tuples(positions, st.binary(max_size=40)), max_size=60)


@given(adds, st.integers(0, 100))
def test_what_is_held_stays_within_the_limit_and_the_newest_value_is_there(
    seen: list[tuple[tuple[int, int], bytes]], limit: int
) -> None:
    remembered = Remembered(limit)
    latest: dict[tuple[int, int], bytes] = {}
    for (partition, offset), value in seen:
        remembered.add(partition, offset, value)
        latest[(partition, offset)] = value
        if len(value) <= limit:
            assert remembered.get(partition, offset) == value
    held = {p: v for p in latest if (v := remembered.get(*p)) is not None}
    assert remembered.held == sum(len(v) for v in held.values()) <= limit
    assert len(remembered) == len(held)
    for position, value in held.items():
        assert value == latest[position]  # never an older value of that position


def test_the_oldest_values_go_first() -> None:
    remembered = Remembered(10)
    for offset in range(4):
        remembered.add(0, offset, b"abcd")
    assert [remembered.get(0, o) for o in range(4)] == [None, None, b"abcd", b"abcd"]
