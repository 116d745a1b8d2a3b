"""Topics the platform manages, on the real broker: with ``ARTICLE_RUNTIME_TOPICS=check`` the
worker creates nothing, says in one line per problem what is wrong with the topics its tooling
made, and runs the flow under prefixed names once they are right."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from confluent_kafka.admin import AdminClient
from confluent_kafka.admin._config import (  # typed here; the admin re-export is not
    AlterConfigOpType,
    ConfigEntry,
    ConfigResource,
)
from confluent_kafka.cimpl import NewTopic  # typed here; the admin re-export is not

from article_runtime.streams.commands.follow import follow
from article_runtime.streams.commands.publish_inputs import ingested_record, publish
from article_runtime.streams.kafka.admin import ensure_topics
from article_runtime.streams.kafka.connection import KafkaConnection
from article_runtime.streams.kafka.topics import (
    ARTICLE_COMPENSATION,
    ARTICLE_INGESTED,
    ARTICLE_PROPOSAL,
    MAX_MESSAGE_BYTES,
    PARTITIONS,
    PREFIX_ENV,
    TOPICS,
    topic_names,
    use_names,
)
from article_runtime.streams.local.broker import free_ports, local_kafka
from article_runtime.streams.local.worker_process import WorkerProcess
from article_runtime.streams.service.settings import TOPICS_ENV
from article_runtime.streams.worker.app import TABLES
from tests.conftest import SAMPLES
from tests.integration.stream_support import ENTITY, eventually

pytestmark = pytest.mark.kafka

PREFIX = "team-a."
APP_ID = "team-a.article-runtime"  # prefixed too: one prefixed ACL covers the changelogs
CHANGELOGS = [f"{APP_ID}-{table}-changelog" for table in TABLES]


@pytest.fixture
def prefixed() -> Iterator[dict[str, str]]:
    """This process names the topics as a worker with ``PREFIX`` does."""
    env = {PREFIX_ENV: PREFIX, TOPICS_ENV: "check"}
    use_names(topic_names(env))
    yield env
    use_names(None)


def topics_on(connection: KafkaConnection) -> set[str]:
    listed = AdminClient(connection.confluent()).list_topics(timeout=10).topics
    return {name for name in listed if not name.startswith("__")}


def make_changelogs(connection: KafkaConnection, policy: str = "compact") -> None:
    admin = AdminClient(connection.confluent())
    config = {"cleanup.policy": policy, "max.message.bytes": str(MAX_MESSAGE_BYTES)}
    made = admin.create_topics([NewTopic(n, PARTITIONS, 1, config=config) for n in CHANGELOGS])
    for future in made.values():
        future.result(timeout=30)


def test_check_mode_names_every_problem_and_creates_nothing(
    prefixed: dict[str, str],
) -> None:
    with local_kafka() as connection:
        admin = AdminClient(connection.confluent())
        flow_topics = [t for t in TOPICS if t is not ARTICLE_PROPOSAL]  # one left out
        ensure_topics(connection, flow_topics)
        # The tooling compacted one flow topic and left another at the broker's 1 MiB.
        wrong = {
            ARTICLE_COMPENSATION.name: {"cleanup.policy": "compact"},
            ARTICLE_INGESTED.name: {"max.message.bytes": "1048588"},
        }
        for name, configs in wrong.items():
            entries = [
                ConfigEntry(k, v, incremental_operation=AlterConfigOpType.SET)
                for k, v in configs.items()
            ]
            resource = ConfigResource(ConfigResource.Type.TOPIC, name, incremental_configs=entries)
            for future in admin.incremental_alter_configs([resource]).values():
                future.result(timeout=30)
        before = topics_on(connection)
        env = {**os.environ, **connection.environ(), **prefixed, "ARTICLE_RUNTIME_APP_ID": APP_ID}
        done = subprocess.run(
            [sys.executable, "-m", "article_runtime.streams.worker"],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        after = topics_on(connection)
    output = done.stdout + done.stderr
    assert done.returncode == 2, output
    assert "Traceback" not in output
    lines = [ln for ln in output.splitlines() if ln.startswith("article-runtime-worker: ")]
    problems = [ln.removeprefix("article-runtime-worker: ") for ln in lines[:-1]]
    expected_missing = [ARTICLE_PROPOSAL.name, *CHANGELOGS]
    for name in expected_missing:
        assert any(p.startswith(f"topic {name} does not exist") for p in problems), problems
    assert any(
        p.startswith(f"topic {ARTICLE_COMPENSATION.name} has cleanup.policy=compact")
        for p in problems
    ), problems
    assert any(
        p.startswith(f"topic {ARTICLE_INGESTED.name} allows max.message.bytes=1048588")
        for p in problems
    ), problems
    assert len(problems) == len(expected_missing) + 2, problems
    assert lines[-1].endswith(f"({TOPICS_ENV}=check creates nothing)")
    assert after == before  # nothing created, not even Faust's leader topic


def test_check_mode_runs_the_flow_on_prefixed_topics_the_tooling_made(
    tmp_path: Path, prefixed: dict[str, str]
) -> None:
    with local_kafka() as connection:
        ensure_topics(connection)  # as the tooling would: every flow topic, prefixed
        make_changelogs(connection)

        def listed() -> None:  # the broker's metadata has them all
            assert set(CHANGELOGS) <= topics_on(connection)

        eventually(listed)
        before = topics_on(connection)
        assert all(n.startswith(PREFIX) for n in before), before
        worker = WorkerProcess(
            connection,
            web_port=free_ports(1)[0],
            log_path=tmp_path / "w.log",
            app_id=APP_ID,
            env={**prefixed, "ECP_STANDIN_QID": ENTITY[0], "ECP_STANDIN_NAME": ENTITY[1]},
        )
        with worker:
            worker.start()
            html = (SAMPLES / "nhk.or.jp.k100.html").read_bytes()
            publish(connection, [ingested_record("pre-1", "https://a.test/pre-1", html)])
            outcome = follow(connection, ["pre-1"], timeout_s=120)["pre-1"]
            assert outcome.assembled, worker.tail(30)
            assert outcome.verdicts
        assert topics_on(connection) == before
