"""The hygiene and assembly stages over dicts, linked as the worker links them.

Each proposal the hygiene stage publishes goes to the assembly stage, and each fallback event
that asks for the next model rung back to the hygiene stage, in the order they were produced,
until none is left. Every record passes through its topic's Avro schema on the way (``wire``),
so a record that does not fit its contract fails the test that produced it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from article_runtime.agents.assembly import AssemblyStage
from article_runtime.agents.candidates import candidates_of
from article_runtime.agents.hygiene import Ask, HygieneStage, is_next_model_rung
from article_runtime.model import CandidateSet
from article_runtime.streams.kafka.topics import ARTICLE_COMPENSATION, ARTICLE_PROPOSAL, Topic
from article_runtime.streams.service.proposals import KnownSets
from article_runtime.streams.service.wiring import Emit
from tests.unit.stream_helpers import wire

Build = Callable[[dict[str, Any], tuple[str, int, int]], CandidateSet | Emit]
Produced = tuple[Topic, dict[str, Any]]


class WriteCounting(dict[str, Any]):
    """A dict that counts assignments: each is one changelog record in the worker."""

    writes = 0

    def __setitem__(self, key: str, value: Any) -> None:
        self.writes += 1
        super().__setitem__(key, value)


class LadderStages:
    """Both stages over one table; ``log`` lists confirms and publishes in order."""

    def __init__(
        self,
        ask: Ask,
        *,
        has_models: bool,
        build: Build | None = None,
        known: KnownSets | None = None,
    ) -> None:
        self.table = WriteCounting()
        self.log: list[str] = []
        self.out: list[Produced] = []
        self.pending: list[Produced] = []
        self._build = build or (lambda record, at: candidates_of(record, at=at))
        self.hygiene = HygieneStage(
            self.table,
            confirm=self._confirm,
            publish=self._publisher("hygiene"),
            ask=ask,
            build=self._built,
            has_models=has_models,
            known=known,
        )
        self.assembly = AssemblyStage(
            self.table, publish=self._publisher("assembly"), has_models=has_models, known=known
        )

    async def _confirm(self, key: str) -> None:
        self.log.append(f"confirm:{key}")

    def _publisher(self, stage: str) -> Callable[[list[Emit]], Awaitable[None]]:
        async def publish(emits: list[Emit]) -> None:
            topics = ",".join(e.topic.name for e in emits)
            self.log.append(f"{stage}:{topics}")
            produced = [(e.topic, wire(e)) for e in emits]
            self.out += produced
            self.pending += produced

        return publish

    async def _built(self, record: dict[str, Any], at: tuple[str, int, int]) -> CandidateSet | Emit:
        return self._build(record, at)

    async def settle(self, work: Awaitable[None]) -> list[Produced]:
        """Run ``work``, then everything it leads to; what was produced, in order."""
        before = len(self.out)
        await work
        while self.pending:
            topic, record = self.pending.pop(0)
            await self.deliver(topic, record)
        return self.out[before:]

    async def deliver(self, topic: Topic, record: dict[str, Any], offset: int = 900) -> None:
        """One record to the stage that reads it (nothing for the others)."""
        if topic is ARTICLE_PROPOSAL:
            await self.assembly.on_proposal(record)
        elif topic is ARTICLE_COMPENSATION and is_next_model_rung(record):
            await self.hygiene.on_fallback(record, (ARTICLE_COMPENSATION.name, 1, offset))


def outcomes(out: list[Produced]) -> list[Produced]:
    """What the ladder settled: assembled articles and events, without the proposals."""
    return [(topic, record) for topic, record in out if topic is not ARTICLE_PROPOSAL]
