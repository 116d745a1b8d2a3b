"""A worker whose assembly agent never judges: every proposal stays on ``article.proposal``.

For the fault test of paid answers (``tests/integration/test_paid_answers.py``): the hygiene
agent asks the models and publishes their answers, nothing is judged, and the test kills the
worker there, between the answers and their judgement. Run as
``python -m tests.support.held_assembly_worker`` (a ``WorkerProcess`` module); the runtime has
no switch for this.
"""

from __future__ import annotations

import asyncio
from typing import Any

from article_runtime.agents.assembly import AssemblyStage
from article_runtime.streams.worker.main import main


async def never_judged(self: AssemblyStage, proposal: dict[str, Any]) -> None:
    await asyncio.Event().wait()


if __name__ == "__main__":
    AssemblyStage.on_proposal = never_judged  # type: ignore[method-assign]
    main()
