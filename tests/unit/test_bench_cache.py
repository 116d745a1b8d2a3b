"""What the bench says a provider serves from its prompt cache (OpenAI's rule: from 1024
tokens on, in steps of 128), and the price-weighted count built on it."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bench.context_tokens import priced_tokens
from bench.run import CACHE_MIN_TOKENS, CACHE_STEP_TOKENS, cached_tokens


@given(st.integers(min_value=0, max_value=100_000))
def test_the_cached_part_is_the_longest_step_within_the_prefix(prefix: int) -> None:
    cached = cached_tokens(prefix)
    if prefix < CACHE_MIN_TOKENS:
        assert cached == 0
        return
    assert CACHE_MIN_TOKENS <= cached <= prefix < cached + CACHE_STEP_TOKENS
    assert (cached - CACHE_MIN_TOKENS) % CACHE_STEP_TOKENS == 0


def test_known_prefixes() -> None:
    assert [cached_tokens(n) for n in (830, 1023, 1024, 1151, 1152, 1244, 1280)] == [
        0,
        0,
        1024,
        1024,
        1152,
        1152,
        1280,
    ]


@given(st.integers(min_value=0, max_value=5_000), st.integers(min_value=0, max_value=50_000))
def test_a_call_never_costs_more_than_its_tokens_nor_less_than_its_uncached_part(
    prefix: int, rest: int
) -> None:
    whole = prefix + rest
    priced = priced_tokens(whole, prefix)
    cached = cached_tokens(prefix)
    assert whole - cached <= priced <= whole
    assert priced == whole or cached > 0
