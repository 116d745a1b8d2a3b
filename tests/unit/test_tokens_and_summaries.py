"""Token counts in the called model's encoding; trace verdicts that say false when false."""

from __future__ import annotations

import pytest

from article_runtime.llm.records import step_verdict
from article_runtime.tokens import TOKENIZER, count_tokens, tokenizer_for


@pytest.mark.parametrize(
    ("model", "encoding"),
    [
        ("gpt-4o-mini", "o200k_base"),
        ("gpt-4.1-nano", "o200k_base"),
        ("gpt-5-mini", "o200k_base"),
        ("GPT-5-NANO", "o200k_base"),
        ("openai/gpt-4.1-mini", "o200k_base"),
        ("o3-mini", "o200k_base"),
        ("gpt-4-turbo", "cl100k_base"),
        ("gpt-3.5-turbo", "cl100k_base"),
        ("gemini-2.5-flash-lite", TOKENIZER),  # no public tokenizer: o200k_base, and said so
        (None, TOKENIZER),
    ],
)
def test_each_model_family_counts_in_its_encoding(model: str | None, encoding: str) -> None:
    assert tokenizer_for(model) == encoding


def test_the_two_encodings_count_differently_and_offline() -> None:
    """Known counts (tiktoken's, for these strings): the vocabularies ship in the wheel."""
    text = "Olá, coração! 子どもへの体罰を禁止する法律ができる <|endoftext|>"
    assert count_tokens(text, "o200k_base") != count_tokens(text, "cl100k_base")
    assert count_tokens("hello world", "o200k_base") == 2
    assert count_tokens("hello world", "cl100k_base") == 2
    assert count_tokens("<|endoftext|>") > 1  # special-token text counts as text


@pytest.mark.parametrize(
    ("outcomes", "expected"),
    [
        ({"schema_valid": "failed", "grounding": "skipped"}, None),
        ({"schema_valid": "passed", "block_ids": "failed", "grounding": "skipped"}, False),
        ({"schema_valid": "passed", "repairs": "failed", "grounding": "skipped"}, False),
        ({"schema_valid": "passed", "block_ids": "passed", "repairs": "passed",
          "grounding": "passed"}, True),
        ({"schema_valid": "passed", "block_ids": "passed", "repairs": "passed",
          "grounding": "skipped"}, None),
    ],
)  # fmt: skip
def test_grounding_is_false_when_a_grounding_check_failed(
    outcomes: dict[str, str], expected: bool | None
) -> None:
    checks = ("block_ids", "repairs", "grounding")
    assert step_verdict(outcomes, checks, ("schema_valid",)) is expected
