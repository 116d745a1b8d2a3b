"""A SASL_SSL cluster (SCRAM-SHA-512, certificates made here with openssl), as managed
clusters run: the worker and the publisher work with the right credentials, and with a wrong
password or an untrusted CA each stops within seconds with one line naming the setting."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from article_runtime.streams.kafka.admin import ensure_topics
from article_runtime.streams.kafka.connection import KafkaConnection
from article_runtime.streams.local.broker import LocalBroker, SaslSsl, local_broker
from tests.integration.stream_support import Flow
from tests.integration.test_stream_flow import check_case, scripted
from tests.support.certificates import BrokerCertificates, make_certificates
from tests.support.openai_server import ScriptedOpenAIServer
from tests.support.stream_cases import make_articles

pytestmark = pytest.mark.kafka
PASSWORD = "worker-Secret-42"


@pytest.fixture(scope="module")
def certificates(tmp_path_factory: pytest.TempPathFactory) -> BrokerCertificates:
    return make_certificates(tmp_path_factory.mktemp("tls"))


@pytest.fixture(scope="module")
def broker(certificates: BrokerCertificates) -> Iterator[LocalBroker]:
    listener = SaslSsl(
        certificates.keystore,
        certificates.keystore_password,
        certificates.ca,
        {"article-runtime": PASSWORD, "ingestion": "ingestion-Secret-7"},
    )
    with local_broker(sasl_ssl=listener) as started:
        ensure_topics(started.connection)
        yield started


def wrong_settings(
    good: KafkaConnection, certificates: BrokerCertificates
) -> dict[str, tuple[KafkaConnection, str]]:
    """Each wrong setting, and the variable the one line must name."""
    return {
        "password": (dataclasses.replace(good, sasl_password="not-it"), "KAFKA_SASL_PASSWORD"),
        "username": (dataclasses.replace(good, sasl_username="nobody"), "KAFKA_SASL_USERNAME"),
        "mechanism": (
            dataclasses.replace(good, sasl_mechanism="SCRAM-SHA-256"),
            "KAFKA_SASL_MECHANISM",
        ),
        "ca": (
            dataclasses.replace(good, ssl_ca_location=str(certificates.other_ca)),
            "KAFKA_SSL_CA_LOCATION",
        ),
        "plaintext": (
            dataclasses.replace(good, security_protocol="PLAINTEXT"),
            "KAFKA_SECURITY_PROTOCOL",
        ),
    }


def run_refused(command: list[str], connection: KafkaConnection) -> tuple[int, str]:
    env = {**os.environ, **connection.environ(), "PYTHONUNBUFFERED": "1"}
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=60)
    return done.returncode, done.stdout + done.stderr


def refused_at_once(line: str) -> bool:
    """The refusal came from what the cluster said (a refused login, a failed handshake), not
    from waiting out the preflight's deadline, as a client would wait out its own."""
    return "no Kafka broker answered" not in line


def test_the_worker_processes_articles_over_sasl_ssl(
    broker: LocalBroker, server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    cases = make_articles(8, seed=21)
    scripted(server, cases)
    f = Flow(broker.connection, tmp_path, server.base_url)
    assert f.connection.security_protocol == "SASL_SSL"
    with f.worker(app_id="article-runtime-secured") as worker:
        worker.start()
        f.publish_cases(cases)
        outcomes = f.follow([c.article_id for c in cases], timeout_s=120)
        log = worker.tail(400)
    for case in cases:
        check_case(case, outcomes[case.article_id])  # enrichment read articles back too
    assert PASSWORD not in log
    assert "'sasl.password': '***'" in log  # the startup line shows the settings, masked


def test_the_publisher_works_with_the_right_login(broker: LocalBroker, tmp_path: Path) -> None:
    for n in range(3):
        (tmp_path / f"secured-{n}.html").write_text(f"<html><body><p>page {n}</p></body></html>")
    ingestion = dataclasses.replace(
        broker.connection, sasl_username="ingestion", sasl_password="ingestion-Secret-7"
    )
    code, output = run_refused(
        [sys.executable, "-m", "article_runtime.streams.commands", "publish", str(tmp_path)],
        ingestion,
    )
    assert code == 0, output
    assert "published 3 to article.ingested" in output


@pytest.mark.parametrize("wrong", ["password", "username", "mechanism", "ca", "plaintext"])
def test_a_wrong_setting_stops_the_publisher_with_one_line(
    broker: LocalBroker, certificates: BrokerCertificates, tmp_path: Path, wrong: str
) -> None:
    connection, named = wrong_settings(broker.connection, certificates)[wrong]
    (tmp_path / "one.html").write_text("<html><body><p>one</p></body></html>")
    code, output = run_refused(
        [sys.executable, "-m", "article_runtime.streams.commands", "publish", str(tmp_path)],
        connection,
    )
    assert code == 2, output
    lines = output.strip().splitlines()
    assert len(lines) == 1 and named in lines[0], output
    # Plaintext to a TLS listener gets no answer at all: only the deadline can end that wait.
    assert refused_at_once(lines[0]) is (wrong != "plaintext"), output
    assert connection.sasl_password is None or connection.sasl_password not in output


@pytest.mark.parametrize("wrong", ["password", "ca"])
def test_a_wrong_setting_stops_the_worker_with_one_line(
    broker: LocalBroker, certificates: BrokerCertificates, wrong: str
) -> None:
    connection, named = wrong_settings(broker.connection, certificates)[wrong]
    code, output = run_refused([sys.executable, "-m", "article_runtime.streams.worker"], connection)
    assert code == 2, output
    assert "Traceback" not in output, output
    (line,) = [ln for ln in output.splitlines() if ln.startswith("article-runtime-worker:")]
    assert named in line
    assert refused_at_once(line), output
