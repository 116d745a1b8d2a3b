"""Which keys a retention sweep drops: only the swept partition's, only the old ones."""

from __future__ import annotations

from streams.tables import expired


def test_only_old_keys_of_the_swept_partition_go() -> None:
    touched = {"a": 0.0, "b": 0.0, "c": 95.0}
    where = {"a": 0, "b": 1, "c": 0}
    old = expired(
        ["a", "b", "c"],
        touched,
        partition=0,
        now=100.0,
        max_age_s=10.0,
        partition_of=where.__getitem__,
    )
    assert old == ["a"]  # b is another partition's (its tombstone would land elsewhere)


def test_a_key_restored_after_a_restart_gets_the_whole_retention_period() -> None:
    touched: dict[str, float] = {}
    assert expired(["a"], touched, partition=0, now=100.0, max_age_s=10.0, partition_of=len) == []
    assert touched == {}  # "a" has length 1: another partition, never looked at
    assert expired(["ab"], {}, partition=2, now=100.0, max_age_s=10.0, partition_of=len) == []
    restored: dict[str, float] = {}
    expired(["ab"], restored, partition=2, now=100.0, max_age_s=10.0, partition_of=len)
    assert restored == {"ab": 100.0}  # first seen now
    assert expired(["ab"], restored, partition=2, now=111.0, max_age_s=10.0, partition_of=len) == [
        "ab"
    ]
