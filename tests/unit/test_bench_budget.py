"""The bench's fixed-part budget: the most tokens a prompt may send the same for every article
for a set's median of whole/HTML to stay at a target (issue 13 section 2)."""

from __future__ import annotations

import statistics

from hypothesis import given
from hypothesis import strategies as st

from bench.context_tokens import fixed_budget

PAGES = st.lists(
    st.tuples(
        st.integers(min_value=0, max_value=20_000), st.integers(min_value=1, max_value=10**6)
    ),
    min_size=1,
    max_size=40,
)


def _median(fixed: int, pages: list[tuple[int, int]]) -> float:
    return statistics.median((fixed + variable) / html for variable, html in pages)


@given(PAGES, st.sampled_from([0.1, 0.095, 0.05, 0.5]))
def test_the_budget_is_the_largest_fixed_part_within_the_target(
    pages: list[tuple[int, int]], target: float
) -> None:
    variable, html = zip(*pages, strict=True)
    budget = fixed_budget(list(variable), list(html), target)
    assert _median(budget, pages) <= target < _median(budget + 1, pages)


def test_a_budget_below_zero_says_no_prompt_reaches_the_target() -> None:
    assert fixed_budget([200, 300, 400], [1000, 1000, 1000], 0.1) == -200
    assert fixed_budget([200, 300, 400], [1000, 1000, 1000], 0.5) == 200
