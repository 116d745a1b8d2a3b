"""Fixtures every integration test shares: the scripted OpenAI-protocol server and a flow
(real local broker, topics, the server's URL for the workers' providers file)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.integration.stream_support import Flow, flow
from tests.support.openai_server import ScriptedOpenAIServer, running_server


@pytest.fixture
def server() -> Iterator[ScriptedOpenAIServer]:
    with running_server() as scripted:
        yield scripted


@pytest.fixture
def kafka_flow(tmp_path: Path, server: ScriptedOpenAIServer) -> Iterator[Flow]:
    with flow(tmp_path, server.base_url) as f:
        yield f
