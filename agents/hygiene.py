"""Hygiene: one model rung's answer per request, many calls in flight per worker.

The agent is one Faust actor on a manual-ack stream; ``streams.window.InFlight`` runs up to
``ARTICLE_RUNTIME_CALLS_IN_FLIGHT`` requests at once and acks each one only after its
proposal is on the broker (``streams.commits`` never commits past one still in flight), which
sidesteps faust-streaming bug #606 (agent concurrency committing past in-flight messages).
The answer is judged here only so its trace carries the validation outcome (spec 12); the
assembly agent judges it again and decides.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import faust

from agents.ladder import Rung
from article_runtime.hygiene import HYGIENE, harness_judge
from article_runtime.llm.policy import LLMRuntime, Verdict, serves
from article_runtime.llm.prompts import load_prompt
from article_runtime.llm.render import hygiene_messages
from article_runtime.model import AssembledArticle, AttemptRecord, CandidateSet
from article_runtime.model.attempts import Role
from streams.compensation import retry_context
from streams.records import attempt_records, now, usage_record
from streams.topics import HYGIENE_PROPOSAL, HYGIENE_REQUEST
from streams.window import InFlight
from streams.wiring import Emit, Event, Wiring

_RUNG = ("article_id", "role", "attempt")


def proposal(
    request: dict[str, Any],
    *,
    raw_answer: str | None = None,
    failure: str | None = None,
    prompt: dict[str, str] | None = None,
    attempts: Sequence[AttemptRecord] = (),
) -> Emit:
    record = {
        **{k: request[k] for k in _RUNG},
        **retry_context(request),
        "raw_answer": raw_answer,
        "failure": failure,
        "prompt": prompt,
        "attempts": attempt_records(attempts),
        "usage": usage_record(attempts),
        "proposed_at": now(),
        "version": request.get("version"),
    }
    return Emit(HYGIENE_PROPOSAL, request["article_id"], record)


async def hygiene_step(request: dict[str, Any], llm: LLMRuntime | None) -> Emit:
    """Ask the request's model rung once (with technical retries); carry its answer on."""
    rung: Rung = request["role"]
    if rung == "deterministic":
        return proposal(request)
    if not serves(llm, HYGIENE):
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
        manual = cast(faust.Stream[bytes], stream).noack()  # StreamT does not declare it
        window = InFlight(w.settings.calls_in_flight, manual.ack)
        async for event in manual.events():
            await window.submit(event, w.process(event, "hygiene", handle))
