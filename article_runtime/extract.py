"""The hygiene use case without a model call: HTML (+ optional recorded proposal) to article.

A given proposal is judged first (path ``primary``); if the harness rejects it as a whole the
deterministic proposal runs through the same harness (path ``deterministic``). The LLM issue
puts provider calls in front of this; the fallback order stays.
"""

from __future__ import annotations

from article_runtime.candidates import build_candidates
from article_runtime.deterministic import deterministic_proposal
from article_runtime.errors import NoValidProposal
from article_runtime.harness.pipeline import HarnessResult, run_hygiene_harness
from article_runtime.model import AssembledArticle, Attempt, CandidateSet, FeedMetadata


def _attempt(result: HarnessResult, path: str) -> Attempt:
    return Attempt.model_validate(
        {"path": path, "valid": result.report.valid, "reason": result.report.reason}
    )


def assemble_article(
    candidates: CandidateSet, raw: bytes, *, source: str, proposal: str | bytes | None = None
) -> AssembledArticle:
    """Judge ``proposal`` (if any), falling back to the deterministic path.

    Raises:
        NoValidProposal: the deterministic proposal failed too (reason from the harness).
    """
    attempts: list[Attempt] = []
    if proposal is not None:
        primary = run_hygiene_harness(
            candidates, proposal, source_html=raw, path="primary", source=source
        )
        attempts.append(_attempt(primary, "primary"))
        if primary.article is not None:
            return primary.article.model_copy(update={"attempts": attempts})
    fallback = run_hygiene_harness(
        candidates,
        deterministic_proposal(candidates),
        source_html=raw,
        path="deterministic",
        source=source,
    )
    attempts.append(_attempt(fallback, "deterministic"))
    if fallback.article is None:
        raise NoValidProposal(fallback.report.reason or "invalid", "deterministic path rejected")
    return fallback.article.model_copy(update={"attempts": attempts})


def extract_article(
    raw: bytes,
    *,
    source: str,
    url: str | None = None,
    feed: FeedMetadata | None = None,
    proposal: str | bytes | None = None,
) -> AssembledArticle:
    """Candidates, then judgement and assembly.

    Raises:
        InputError: the HTML cannot be used (categorical reason).
        NoValidProposal: nothing passed the harness.
    """
    candidates = build_candidates(raw, url=url, feed=feed)
    return assemble_article(candidates, raw, source=source, proposal=proposal)
