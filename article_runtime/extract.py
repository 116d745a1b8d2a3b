"""The hygiene use case without a model call: HTML (+ optional recorded proposal) to article.

A recorded proposal (e.g. a model answer saved to a file) is judged first (path ``primary``);
if the harness rejects it as a whole, the deterministic proposal runs through the same harness
(path ``deterministic``). ``hygiene`` puts live provider calls in front of the same fallback.
"""

from __future__ import annotations

from article_runtime.candidates import build_candidates
from article_runtime.deterministic import deterministic_proposal
from article_runtime.errors import NoValidProposal
from article_runtime.harness.pipeline import HarnessResult, run_hygiene_harness
from article_runtime.model import AssembledArticle, AttemptRecord, CandidateSet, FeedMetadata, Usage
from article_runtime.model.attempts import Role


def judged(result: HarnessResult, role: Role) -> AttemptRecord:
    """The attempt record of a proposal the harness judged (no provider call involved)."""
    return AttemptRecord(
        call="article_content_hygiene",
        role=role,
        outcome="ok" if result.report.valid else "invalid",
        reason=result.report.reason,
    )


def deterministic_article(
    candidates: CandidateSet, raw: bytes, *, source: str, attempts: list[AttemptRecord]
) -> AssembledArticle:
    """The extractive fallback: the last word on content, through the same harness.

    Raises:
        NoValidProposal: even the deterministic proposal failed (reason from the harness).
    """
    result = run_hygiene_harness(
        candidates,
        deterministic_proposal(candidates),
        source_html=raw,
        path="deterministic",
        source=source,
    )
    attempts = [*attempts, judged(result, "deterministic")]
    if result.article is None:
        raise NoValidProposal(result.report.reason or "invalid", "deterministic path rejected")
    return result.article.model_copy(update={"attempts": attempts, "usage": Usage.of(attempts)})


def assemble_article(
    candidates: CandidateSet, raw: bytes, *, source: str, proposal: str | bytes | None = None
) -> AssembledArticle:
    """Judge ``proposal`` (if any), falling back to the deterministic path.

    Raises:
        NoValidProposal: the deterministic proposal failed too (reason from the harness).
    """
    attempts: list[AttemptRecord] = []
    if proposal is not None:
        recorded = run_hygiene_harness(
            candidates, proposal, source_html=raw, path="primary", source=source
        )
        attempts.append(judged(recorded, "recorded"))
        if recorded.article is not None:
            return recorded.article.model_copy(update={"attempts": attempts})
    return deterministic_article(candidates, raw, source=source, attempts=attempts)


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
