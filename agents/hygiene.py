"""Hygiene: one model rung's answer per request, many calls in flight per worker.

faust-streaming's agent ``concurrency`` can commit an offset past a message still in flight
(bug #606), so this agent keeps concurrency 1 and takes requests in batches instead: the
batch's calls run together, every proposal is produced and acknowledged by the broker, and
only then does Faust ack the batch (in order). A slow call holds its batch back; that is the
price of never losing a message. The answer is judged here only so its trace carries the
validation outcome (spec 12); the assembly agent judges it again and decides.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any, cast

import faust

from agents.ladder import Rung
from article_runtime.hygiene import HYGIENE, harness_judge
from article_runtime.llm.policy import LLMRuntime, Verdict
from article_runtime.llm.prompts import load_prompt
from article_runtime.llm.render import hygiene_messages
from article_runtime.model import AssembledArticle, AttemptRecord, CandidateSet
from article_runtime.model.attempts import Role
from streams.records import attempt_records, now, usage_record
from streams.topics import HYGIENE_PROPOSAL, HYGIENE_REQUEST
from streams.wiring import Emit, Event, Wiring, outcomes

BATCH_WINDOW_S = 0.05  # how long a partial batch waits for company before it runs

_CARRIED = ("article_id", "role", "attempt", "url")
_CONTEXT = ("candidate_set_json", "candidate_set_hash", "html_hash")


def proposal(
    request: dict[str, Any],
    *,
    raw_answer: str | None = None,
    failure: str | None = None,
    prompt: dict[str, str] | None = None,
    attempts: Sequence[AttemptRecord] = (),
) -> Emit:
    record = {
        **{k: request[k] for k in _CARRIED + _CONTEXT},
        "raw_answer": raw_answer,
        "failure": failure,
        "prompt": prompt,
        "attempts": attempt_records(attempts),
        "usage": usage_record(attempts),
        "proposed_at": now(),
    }
    return Emit(HYGIENE_PROPOSAL, request["article_id"], record)


async def hygiene_step(request: dict[str, Any], llm: LLMRuntime | None) -> Emit:
    """Ask the request's model rung once (with technical retries); carry its answer on."""
    rung: Rung = request["role"]
    if rung == "deterministic":
        return proposal(request)
    if llm is None or llm.providers.for_call(HYGIENE) is None:
        return proposal(request, failure="no_provider")
    candidates = CandidateSet.model_validate_json(request["candidate_set_json"])
    spec = load_prompt(HYGIENE)
    answers: list[str] = []
    judge = harness_judge(candidates, b"", source=request["article_id"])

    def keep(content: str, role: Role) -> Verdict[AssembledArticle]:
        answers.append(content)
        return judge(content, role)

    outcome = await llm.call(
        HYGIENE,
        spec,
        hygiene_messages(spec, candidates),
        keep,
        trace_key=request["article_id"],
        roles=(rung,),
    )
    return proposal(
        request,
        raw_answer=answers[-1] if answers else None,
        failure=None if answers else (outcome.reason or "no_answer"),
        prompt={"name": spec.name, "version": spec.version, "sha256": spec.sha256},
        attempts=outcome.attempts,
    )


def register(w: Wiring) -> None:
    async def handle(_event: Event, record: dict[str, Any]) -> list[Emit]:
        return [await hygiene_step(record, w.llm)]

    @w.app.agent(w.topic(HYGIENE_REQUEST), name="hygiene")
    async def hygiene(stream: faust.StreamT[bytes]) -> None:
        # StreamT does not declare take_events; the stream Faust hands us is a Stream.
        batches = cast(faust.Stream[bytes], stream).take_events(
            w.settings.hygiene_concurrency, within=BATCH_WINDOW_S
        )
        async for batch in batches:
            results = await asyncio.gather(*(outcomes(w, e, "hygiene", handle) for e in batch))
            await w.publish(emit for emits in results for emit in emits)
