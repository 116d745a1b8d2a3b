"""Table values: which keys a retention sweep drops (only the swept partition's, only the old
ones), and how values are held (packed, and read back whatever wrote them)."""

from __future__ import annotations

import json
import math
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from article_runtime.streams.kafka.tables import expired, packed, unpacked


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


# -- how values are held -------------------------------------------------------------------------


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner),
    max_leaves=60,
)


def finite(value: Any) -> bool:
    """Whether ``value`` holds only finite floats (JSON has no word for the others; the
    strategy makes no NaN, so a value equals itself with infinities nulled exactly then)."""
    return bool(nulled(value) == value)


@settings(deadline=None)  # a shared machine: time per example varies
@given(JSON.filter(finite))
def test_any_json_value_comes_back_as_it_went_in(value: Any) -> None:
    """Integers of any size (orjson writes up to 64 bits), any text, any nesting."""
    assert unpacked(packed(value)) == value


@settings(deadline=None)
@given(JSON)
def test_a_non_finite_float_comes_back_as_itself_or_null_and_nothing_else_changes(
    value: Any,
) -> None:
    """JSON has no word for infinity: orjson writes null, ``json`` (which packs values that
    also hold an integer beyond 64 bits) its own ``Infinity``. Nothing fails to pack."""
    back = unpacked(packed(value))
    assert nulled(back) == nulled(value)
    assert same_or_null(back, value)


def same_or_null(back: Any, value: Any) -> bool:
    if isinstance(value, float) and not math.isfinite(value):
        return back is None or back == value
    if isinstance(value, list):
        return len(back) == len(value) and all(map(same_or_null, back, value))
    if isinstance(value, dict):
        return back.keys() == value.keys() and all(same_or_null(back[k], value[k]) for k in value)
    return bool(back == value)


def nulled(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, list):
        return [nulled(v) for v in value]
    if isinstance(value, dict):
        return {k: nulled(v) for k, v in value.items()}
    return value


def test_large_values_are_deflated_and_small_ones_kept_as_json() -> None:
    lineage = {"events": [{"stage": "proposed", "role": "runtime_primary"}] * 40}
    assert len(packed(lineage)) < len(json.dumps(lineage)) / 4
    assert packed(3) == b"3" and packed({"awaiting": None}) == b'{"awaiting":null}'


def test_values_an_earlier_release_wrote_as_json_still_read() -> None:
    # Faust's JSON serializer wrote them; the table now reads its changelog as raw bytes.
    written = json.dumps({"awaiting": None, "settled": "terminal:x", "attempts": []}).encode()
    assert unpacked(written) == {"awaiting": None, "settled": "terminal:x", "attempts": []}
    assert unpacked({"already": "unpacked"}) == {"already": "unpacked"}
