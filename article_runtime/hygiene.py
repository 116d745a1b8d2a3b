"""The hygiene call end to end: model proposal, harness, fallback, deterministic path.

Every article gets hygiene (spec 13.5). With providers: primary, then fallback (spec 10), each
answer judged by the same ten-step harness; when neither holds, the deterministic proposal runs
through that harness too. Without providers, the deterministic path alone.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from article_runtime.answer_bounds import hygiene_bounds
from article_runtime.errors import NoValidProposal
from article_runtime.extract import deterministic_article
from article_runtime.harness.pipeline import HarnessResult, run_hygiene_harness
from article_runtime.llm.policy import LLMRuntime, Verdict, serves
from article_runtime.llm.prompts import load_prompt
from article_runtime.llm.records import (
    ValidationSummary,
    failed_step,
    step_verdict,
    traced_answer,
)
from article_runtime.llm.render import hygiene_messages
from article_runtime.model import AssembledArticle, AttemptRecord, CandidateSet, PromptRef, Usage
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
    step, detail = failed_step(result.report)
    return ValidationSummary(
        schema_valid=step_verdict(outcomes, _SCHEMA_STEPS, ()),
        grounding_valid=step_verdict(outcomes, _GROUNDING_STEPS, _SCHEMA_STEPS),
        reason=result.report.reason,
        step=step,
        detail=detail,
        repairs_applied=[r.model_dump() for r in result.repairs.applied],
        repairs_rejected=[r.model_dump() for r in result.repairs.rejected],
    )


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
        answer = traced_answer(content, result.report)
        return Verdict(result.article, result.report.reason, summarize(result), answer)

    return judge


@dataclass(frozen=True)
class HygieneOutcome:
    """How one article's hygiene ended: the article, or the reason there is none.

    ``role`` and ``answer`` name the model rung whose answer was assembled and that answer as
    the model wrote it: judging it again (``replayed``) gives the same article, so a caller
    that stores them can produce the article again without a second model call.
    """

    article: AssembledArticle | None
    reason: str | None
    attempts: list[AttemptRecord]
    role: Role | None = None
    answer: str | None = None


async def run_hygiene(
    candidates: CandidateSet, raw: bytes, *, source: str, llm: LLMRuntime | None
) -> HygieneOutcome:
    """Primary, fallback, then the deterministic path (spec 10), every answer judged once."""
    if not serves(llm, HYGIENE):
        return _deterministic(candidates, raw, source=source, attempts=[])
    prompt = load_prompt(HYGIENE)
    judge = harness_judge(candidates, raw, source=source)
    answers: dict[Role, str] = {}

    def keep(content: str, role: Role) -> Verdict[AssembledArticle]:
        answers[role] = content
        return judge(content, role)

    outcome = await llm.call(
        HYGIENE,
        prompt,
        hygiene_messages(prompt, candidates),
        keep,
        bounds=hygiene_bounds(candidates),
        trace_key=source,
    )
    if outcome.value is None or outcome.role is None:
        return _deterministic(candidates, raw, source=source, attempts=outcome.attempts)
    article = _with_attempts(outcome.value, outcome.attempts, prompt.ref)
    return HygieneOutcome(article, None, outcome.attempts, outcome.role, answers[outcome.role])


def replayed(
    candidates: CandidateSet,
    raw: bytes,
    *,
    source: str,
    role: Role | None,
    answer: str | None,
    attempts: list[AttemptRecord],
    prompt: PromptRef | None,
) -> AssembledArticle | None:
    """The article a stored outcome assembled, judged again: the harness is deterministic, so
    it is the same article (None when the stored answer no longer holds, e.g. after a change
    of the harness between the two runs)."""
    if role is None or answer is None or prompt is None:
        done = _deterministic(candidates, raw, source=source, attempts=attempts[:-1])
        return done.article
    result = run_hygiene_harness(
        candidates, answer, source_html=raw, path=role_path(role), source=source
    )
    if result.article is None:
        return None
    return _with_attempts(result.article, attempts, prompt)


def _deterministic(
    candidates: CandidateSet, raw: bytes, *, source: str, attempts: list[AttemptRecord]
) -> HygieneOutcome:
    try:
        article = deterministic_article(candidates, raw, source=source, attempts=attempts)
    except NoValidProposal as exc:
        judged = AttemptRecord(
            call=HYGIENE, role="deterministic", outcome="invalid", reason=exc.reason
        )
        return HygieneOutcome(None, exc.reason, [*attempts, judged])
    return HygieneOutcome(article, None, article.attempts)


def _with_attempts(
    article: AssembledArticle, attempts: list[AttemptRecord], prompt: PromptRef
) -> AssembledArticle:
    update = {"attempts": attempts, "usage": Usage.of(attempts), "prompt": prompt}
    return article.model_copy(update=update)


async def hygiene_article(
    candidates: CandidateSet, raw: bytes, *, source: str, llm: LLMRuntime | None
) -> AssembledArticle:
    """The article ``run_hygiene`` assembles.

    Raises:
        NoValidProposal: even the deterministic proposal failed the harness.
    """
    outcome = await run_hygiene(candidates, raw, source=source, llm=llm)
    if outcome.article is None:
        raise NoValidProposal(outcome.reason or "invalid", "deterministic path rejected")
    return outcome.article
