"""The enrichment harness's validations (spec 9.4), in order, each failing with a category.

Every step is a pure check of what the earlier ones established; the first failure stops the
run and invalidates the whole answer (the caller falls back). Reason codes:

    json_parseable   invalid_json, answer_too_long
    schema_valid     schema_violation (also any extra field, e.g. a body or a summary)
    sentiment_enum   invalid_sentiment
    tag_cardinality  too_few_tags, too_many_tags
    duplicate_tags   duplicate_tag
    evidence_ids     unknown_evidence_id
    tag_language     tag_script_mismatch, tag_language_mismatch, tag_not_grounded
    no_body_text     tag_is_body_text

The schema's sentiment enum and tag count are left to their own steps, so an answer that
breaks only those gets the precise reason rather than a generic ``schema_violation``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, get_args

from pydantic import ValidationError

from article_runtime import contracts
from article_runtime.answer_bounds import AnswerBounds, longest_answer_length
from article_runtime.enrichment.bounds import enrichment_bounds
from article_runtime.enrichment.grounding import Evidence, unsupported_words
from article_runtime.enrichment.model import EnrichmentInput, EnrichmentProposal, Sentiment, Tag
from article_runtime.enrichment.tag_language import (
    cited_names,
    foreign_language,
    foreign_scripts,
    without_names,
)
from article_runtime.harness.runner import StepFailure, parse_json
from article_runtime.text import words
from article_runtime.text.collation import collation_key
from article_runtime.text.scripts import letter_scripts

SENTIMENTS: tuple[str, ...] = get_args(Sentiment)
MIN_TAGS = 3
MAX_TAGS = 8
MAX_TAG_WORDS = 6  # longer is a phrase lifted from the body, not a tag

# (path, keyword) of schema rules that a later step checks with its own reason.
_DEFERRED = frozenset({("sentiment", "enum"), ("tags", "minItems"), ("tags", "maxItems")})


@dataclass
class Run:
    """What the steps establish, in order."""

    inp: EnrichmentInput
    raw: str | bytes | Mapping[str, Any]
    data: Any = None
    sentiment: str = ""
    tags: list[Tag] = field(default_factory=list)
    proposal: EnrichmentProposal | None = None

    @cached_property
    def texts(self) -> dict[str, str]:
        return {b.id: b.text for b in self.inp.blocks}

    @property
    def language(self) -> str | None:
        return self.inp.language

    def evidence(self, tag: Tag) -> list[str]:
        """The texts of the blocks ``tag`` cites (known IDs: ``evidence_ids`` ran first)."""
        return [self.texts[block_id] for block_id in tag.evidence_block_ids]

    @cached_property
    def bounds(self) -> AnswerBounds:
        return enrichment_bounds(self.inp)


def json_parseable(run: Run) -> None:
    """An answer longer than the longest valid one is refused before it is parsed."""
    limit = longest_answer_length(contracts.ENRICHMENT_OUTPUT, run.bounds)
    run.data = parse_json(run.raw, max_length=limit)


def schema_valid(run: Run) -> None:
    violations = contracts.violations(contracts.ENRICHMENT_OUTPUT, run.data)
    first = next((v for v in violations if (v.where, v.keyword) not in _DEFERRED), None)
    if first is not None:
        raise StepFailure("schema_violation", str(first))
    try:
        run.tags = [Tag.model_validate(item) for item in run.data["tags"]]
    except ValidationError as exc:  # the schema and the model disagree: a contract bug
        raise StepFailure("schema_violation", str(exc)[:300]) from exc
    run.sentiment = run.data["sentiment"]


def sentiment_enum(run: Run) -> None:
    if run.sentiment not in SENTIMENTS:
        raise StepFailure("invalid_sentiment", run.sentiment[:60])


def tag_cardinality(run: Run) -> None:
    count = len(run.tags)
    if count < MIN_TAGS:
        raise StepFailure("too_few_tags", f"{count} < {MIN_TAGS}")
    if count > MAX_TAGS:
        raise StepFailure("too_many_tags", f"{count} > {MAX_TAGS}")
    try:
        run.proposal = EnrichmentProposal.model_validate(
            {"sentiment": run.sentiment, "tags": run.tags}
        )
    except ValidationError as exc:  # the schema and the model disagree: a contract bug
        raise StepFailure("schema_violation", str(exc)[:300]) from exc


def duplicate_tags(run: Run) -> None:
    seen: dict[bytes, str] = {}
    for tag in run.tags:
        key = collation_key(tag.tag, run.language, ignore_punctuation=True)
        if key in seen:
            raise StepFailure("duplicate_tag", f"{seen[key]!r} = {tag.tag!r}")
        seen[key] = tag.tag


def evidence_ids(run: Run) -> None:
    for tag in run.tags:
        for block_id in tag.evidence_block_ids:
            if block_id not in run.texts:
                raise StepFailure("unknown_evidence_id", block_id)


def tag_language(run: Run) -> None:
    body_scripts = letter_scripts("\n".join(run.texts.values()))
    for tag in run.tags:
        foreign = foreign_scripts(tag.tag, body_scripts)
        if foreign:
            raise StepFailure("tag_script_mismatch", f"{tag.tag!r}: {', '.join(sorted(foreign))}")
    cited = {block_id for tag in run.tags for block_id in tag.evidence_block_ids}
    names = cited_names(
        [b.text for b in run.inp.blocks if b.id in cited and not b.heading], run.language
    )
    read = [without_names(tag.tag, run.evidence(tag), names, run.language) for tag in run.tags]
    other = foreign_language(read, run.language)
    if other is not None:
        raise StepFailure("tag_language_mismatch", f"tags read as {other}, not {run.language}")
    for tag in run.tags:
        missing = unsupported_words(tag.tag, Evidence(run.evidence(tag), run.language))
        if missing:
            absent = ", ".join(repr(word) for word in missing)
            raise StepFailure(
                "tag_not_grounded", f"{tag.tag!r} in {tag.evidence_block_ids}: {absent}"
            )


def no_body_text(run: Run) -> None:
    locale = run.language or "root"
    blocks: dict[bytes, str] = {}  # each text block's key, read once for every tag
    for block in reversed(run.inp.blocks):
        if not block.heading:
            blocks[collation_key(block.text, run.language, ignore_punctuation=True)] = block.id
    for tag in run.tags:
        count = len(words(tag.tag, locale))
        if count > MAX_TAG_WORDS:
            raise StepFailure("tag_is_body_text", f"{tag.tag!r}: {count} words > {MAX_TAG_WORDS}")
        same = blocks.get(collation_key(tag.tag, run.language, ignore_punctuation=True))
        if same is not None:
            raise StepFailure("tag_is_body_text", f"{tag.tag!r} is block {same}")


Step = Callable[[Run], None]
STEPS: tuple[Step, ...] = (
    json_parseable,
    schema_valid,
    sentiment_enum,
    tag_cardinality,
    duplicate_tags,
    evidence_ids,
    tag_language,
    no_body_text,
)
STEP_NAMES: tuple[str, ...] = tuple(step.__name__ for step in STEPS)
