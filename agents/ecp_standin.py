"""LOCAL STAND-IN for the ECP classifier: approves every assembled article for one entity.

The real ECP classifier is an external service that publishes ``ecp.verdict``; we never
reimplement it. This agent exists only so local runs (``make demo``, integration tests)
exercise enrichment. It runs only when ``ECP_STANDIN_QID`` and ``ECP_STANDIN_NAME`` are set,
and every verdict it writes says so in ``classifier_version``.
"""

from __future__ import annotations

from typing import Any

import faust

from streams.records import now
from streams.settings import StandInEntity
from streams.topics import ARTICLE_ASSEMBLED, ECP_VERDICT
from streams.window import InFlight
from streams.wiring import Emit, Event, Wiring, manual_acks

CLASSIFIER_VERSION = "local-stand-in (not ECP): approves everything"
VERDICTS_IN_FLIGHT = 64


def standin_verdict(assembled: dict[str, Any], entity: StandInEntity) -> Emit:
    verdict = {
        "article_id": assembled["article_id"],
        "approved": True,
        "entity": {"qid": entity.qid, "name": entity.name, "identity": None},
        "article_hash": assembled["hashes"]["markdown"],
        "classifier_version": CLASSIFIER_VERSION,
        "decided_at": now(),
    }
    return Emit(ECP_VERDICT, assembled["article_id"], verdict)


def register(w: Wiring, entity: StandInEntity) -> None:
    async def handle(_event: Event, record: dict[str, Any]) -> list[Emit]:
        return [standin_verdict(record, entity)]

    @w.app.agent(w.topic(ARTICLE_ASSEMBLED), name="ecp_standin")
    async def ecp_standin(stream: faust.StreamT[bytes]) -> None:
        # Many verdicts on their way to the broker at once, as a classifier service would
        # answer: one at a time, each waiting for its acknowledgement, it held the whole flow
        # to one round trip per article.
        manual = manual_acks(stream)
        window = InFlight(VERDICTS_IN_FLIGHT, manual.ack)
        async for event in manual.events():
            await window.submit(event, w.process(event, "enrichment", handle))
