"""JSON from outside: bounded nesting, no lone surrogates, never an exception but ValueError."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from article_runtime import bounded_json
from article_runtime.bounded_json import MAX_DEPTH, BoundedJSONError, loads, nesting_depth

SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text()
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=40,
)


def depth_of(value: Any) -> int:
    if isinstance(value, list):
        return 1 + max((depth_of(v) for v in value), default=0)
    if isinstance(value, dict):
        return 1 + max((depth_of(v) for v in value.values()), default=0)
    return 0


@settings(max_examples=500)
@given(VALUES)
def test_nesting_depth_is_the_values_depth(value: Any) -> None:
    text = json.dumps(value)
    assert nesting_depth(text, limit=1000) == depth_of(value)
    if depth_of(value) <= MAX_DEPTH:
        assert loads(text) == value


@settings(max_examples=1000)
@given(st.text(alphabet=st.sampled_from('[]{}"\\:,1 a') | st.characters(), max_size=200))
@example("[" * 100_000)
@example('{"a":' * 100_000)
@example('["\\\\"' + "[" * 50 + "]")
@example('"\\ud800"')
@example('{"\\udfff": 1}')
def test_loads_only_ever_raises_value_error(text: str) -> None:
    try:
        data = loads(text)
    except ValueError:
        return
    assert depth_of(data) <= MAX_DEPTH
    json.dumps(data, ensure_ascii=False).encode("utf-8")  # printable as UTF-8


@pytest.mark.parametrize(
    "text", ["[" * 40 + "]" * 40, '{"a":' * 40 + "1" + "}" * 40, '["\\ud800"]', '["\\udc00x"]']
)
def test_refusals_are_bounded_json_errors(text: str) -> None:
    with pytest.raises(BoundedJSONError):
        loads(text)


def test_brackets_inside_strings_do_not_count() -> None:
    assert nesting_depth('["[[[[", "\\"[[[", {"k": "]]]"}]') == 2
    assert loads('["\\ud83d\\ude00"]') == ["😀"]  # a surrogate pair is one character


def test_bytes_in_any_json_encoding() -> None:
    assert loads('{"a": "é"}'.encode("utf-16")) == {"a": "é"}
    assert bounded_json.loads(b"\xef\xbb\xbf[1]") == [1]
    with pytest.raises(ValueError):
        loads(b"\xff\xfe\x00")
