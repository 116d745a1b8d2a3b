"""The flow every stream integration test shares: a real local broker, topics, and the
scripted server's URL (``tests/conftest.py``) for the workers' providers file."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.integration.stream_support import Flow, flow
from tests.support.openai_server import ScriptedOpenAIServer


@pytest.fixture
def kafka_flow(tmp_path: Path, server: ScriptedOpenAIServer) -> Iterator[Flow]:
    with flow(tmp_path, server.base_url) as f:
        yield f
