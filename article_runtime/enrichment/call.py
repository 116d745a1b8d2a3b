"""The enrichment call end to end (spec 9): context, primary, fallback, or a terminal failure."""

from __future__ import annotations

from article_runtime.enrichment.blocks import build_enrichment_input
from article_runtime.enrichment.bounds import enrichment_bounds
from article_runtime.enrichment.harness import validate_enrichment
from article_runtime.enrichment.model import (
    EnrichedArticle,
    EnrichmentFailure,
    EnrichmentInput,
    EnrichmentProposal,
    Entity,
)
from article_runtime.errors import InputError
from article_runtime.llm.policy import LLMRuntime, Validator, Verdict, serves
from article_runtime.llm.prompts import load_prompt
from article_runtime.llm.records import (
    ValidationSummary,
    failed_step,
    step_verdict,
    traced_answer,
)
from article_runtime.llm.render import enrichment_messages
from article_runtime.model import AssembledArticle, Usage
from article_runtime.model.attempts import LogicalCall, Role

ENRICHMENT: LogicalCall = "article_sentiment_tags"


def _judge(inp: EnrichmentInput) -> Validator[EnrichmentProposal]:
    def judge(content: str, _role: Role) -> Verdict[EnrichmentProposal]:
        verdict = validate_enrichment(content, inp)
        steps = {s.name: s.outcome for s in verdict.report.steps}
        step, detail = failed_step(verdict.report)
        summary = ValidationSummary(
            schema_valid=step_verdict(steps, ("json_parseable", "schema_valid"), ()),
            grounding_valid=step_verdict(
                steps, ("evidence_ids", "tag_language", "no_body_text"), ("schema_valid",)
            ),
            reason=verdict.report.reason,
            step=step,
            detail=detail,
        )
        answer = traced_answer(content, verdict.report)
        return Verdict(verdict.proposal, verdict.report.reason, summary, answer)

    return judge


async def enrich_article(
    article: AssembledArticle, entity: Entity, *, llm: LLMRuntime | None
) -> EnrichedArticle | EnrichmentFailure:
    """Sentiment towards ``entity`` and grounded tags; never raises for a bad answer."""
    base = {"source": article.source, "article_hash": article.hashes.markdown, "entity": entity}
    if not serves(llm, ENRICHMENT):
        return EnrichmentFailure(**base, reason="no_provider")
    try:
        inp = build_enrichment_input(article, entity)
    except InputError as exc:
        return EnrichmentFailure(**base, reason=exc.reason)
    prompt = load_prompt(ENRICHMENT)
    outcome = await llm.call(
        ENRICHMENT,
        prompt,
        enrichment_messages(prompt, inp),
        _judge(inp),
        bounds=enrichment_bounds(inp),
        trace_key=f"{article.source}#{entity.qid}",
    )
    usage = Usage.of(outcome.attempts)
    if outcome.value is None or outcome.role is None:
        return EnrichmentFailure(
            **base,
            reason="primary_and_fallback_failed",
            last_reason=outcome.reason,
            attempts=outcome.attempts,
            usage=usage,
        )
    cited = {block_id for tag in outcome.value.tags for block_id in tag.evidence_block_ids}
    return EnrichedArticle(
        **base,
        language=article.language,
        sentiment=outcome.value.sentiment,
        tags=outcome.value.tags,
        path="primary" if outcome.role == "runtime_primary" else "fallback",
        prompt=prompt.ref,
        attempts=outcome.attempts,
        usage=usage,
        evidence=[block for block in inp.blocks if block.id in cited],
    )
