"""What the bench says a provider serves from its prompt cache (OpenAI's rule: from 1024
tokens on, in steps of 128), and the price-weighted count built on it."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bench.context_tokens import CACHED_PRICE_SHARE, break_even_hits, priced_tokens
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


@given(
    st.integers(min_value=0, max_value=2_000),
    st.integers(min_value=1, max_value=1_000),
    st.integers(min_value=0, max_value=20_000),
)
def test_at_the_break_even_share_of_cached_calls_both_settings_cost_the_same(
    prefix: int, extra: int, rest: int
) -> None:
    """A longer prefix by ``extra`` tokens (json_schema's schema) pays off from this share of
    cached calls on, and never when it caches no more than the shorter one."""
    more, fewer = (prefix + extra + rest, prefix + extra), (prefix + rest, prefix)
    share = break_even_hits(more, fewer)
    if cached_tokens(more[1]) <= cached_tokens(fewer[1]):
        assert share == float("inf")
        return

    def cost(whole_prefix: tuple[int, int], hits: float) -> float:
        whole, shared = whole_prefix
        return whole - hits * (1 - CACHED_PRICE_SHARE) * cached_tokens(shared)

    assert abs(cost(more, share) - cost(fewer, share)) < 1e-6


def test_known_break_even() -> None:
    assert break_even_hits((1113 + 2842, 1113), (699 + 2842, 699)) == 414 / (0.75 * 1024)
    assert break_even_hits((999 + 2842, 999), (585 + 2842, 585)) == float("inf")
