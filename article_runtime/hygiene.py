"""The hygiene call end to end: model proposal, harness, fallback, deterministic path.

Every article gets hygiene (spec 13.5). With providers: primary, then fallback (spec 10), each
answer judged by the same ten-step harness; when neither holds, the deterministic proposal runs
through that harness too. Without providers, the deterministic path alone.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from article_runtime import bounded_json
from article_runtime.extract import deterministic_article
from article_runtime.harness.pipeline import HarnessResult, run_hygiene_harness
from article_runtime.llm.policy import LLMRuntime, Verdict, serves
from article_runtime.llm.prompts import load_prompt
from article_runtime.llm.records import ValidationSummary, step_verdict
from article_runtime.llm.render import hygiene_messages
from article_runtime.model import AssembledArticle, CandidateSet, Usage
from article_runtime.model.article import Path
from article_runtime.model.attempts import LogicalCall, Role

HYGIENE: LogicalCall = "article_content_hygiene"
_SCHEMA_STEPS = ("json_parseable", "schema_valid")
# Every step whose failure means the answer named or brought in something the input lacks:
# the repairs step fails the proposal only for grounding violations (spec 8.3).
_GROUNDING_STEPS = (
    "metadata_ids",
    "block_ids",
    "canonical_order",
    "links_and_images",
    "repairs",
    "grounding",
)


def summarize(result: HarnessResult) -> ValidationSummary:
    """The harness verdict as a trace records it (spec 12)."""
    outcomes = {s.name: s.outcome for s in result.report.steps}
    return ValidationSummary(
        schema_valid=step_verdict(outcomes, _SCHEMA_STEPS, ()),
        grounding_valid=step_verdict(outcomes, _GROUNDING_STEPS, _SCHEMA_STEPS),
        reason=result.report.reason,
        repairs_applied=[r.model_dump() for r in result.repairs.applied],
        repairs_rejected=[r.model_dump() for r in result.repairs.rejected],
    )


def _parsed(content: str) -> Any:
    try:
        return bounded_json.loads(content)
    except ValueError:
        return content[:2000]


def role_path(role: Role) -> Path:
    return "primary" if role == "runtime_primary" else "fallback"


def harness_judge(
    candidates: CandidateSet, raw: bytes, *, source: str
) -> Callable[[str, Role], Verdict[AssembledArticle]]:
    """Judge a model answer with the ten-step harness, as the provider policy expects."""

    def judge(content: str, role: Role) -> Verdict[AssembledArticle]:
        result = run_hygiene_harness(
            candidates, content, source_html=raw, path=role_path(role), source=source
        )
        return Verdict(result.article, result.report.reason, summarize(result), _parsed(content))

    return judge


async def hygiene_article(
    candidates: CandidateSet, raw: bytes, *, source: str, llm: LLMRuntime | None
) -> AssembledArticle:
    """Raises NoValidProposal when even the deterministic proposal fails the harness."""
    if not serves(llm, HYGIENE):
        return deterministic_article(candidates, raw, source=source, attempts=[])
    prompt = load_prompt(HYGIENE)
    messages = hygiene_messages(prompt, candidates)
    judge = harness_judge(candidates, raw, source=source)
    outcome = await llm.call(HYGIENE, prompt, messages, judge, trace_key=source)
    if outcome.value is None:
        return deterministic_article(candidates, raw, source=source, attempts=outcome.attempts)
    return outcome.value.model_copy(
        update={"attempts": outcome.attempts, "usage": Usage.of(outcome.attempts)}
    )
