"""The one Kafka connection: settings read once, refused early, never showing the password;
and the preflight's reading of what librdkafka reports."""

from __future__ import annotations

from pathlib import Path

import pytest
from confluent_kafka import KafkaError
from faust.auth import SASLCredentials
from hypothesis import assume, given
from hypothesis import strategies as st

from article_runtime.streams.kafka.connection import (
    MECHANISMS,
    PROTOCOLS,
    ConnectionSettingError,
    KafkaConnection,
)
from article_runtime.streams.kafka.preflight import refusal, unreachable
from article_runtime.streams.service.settings import SettingsError, WorkerSettings

BOOTSTRAP = {"KAFKA_BOOTSTRAP_SERVERS": "b-1.example:9096,b-2.example:9096"}
SASL = {
    **BOOTSTRAP,
    "KAFKA_SECURITY_PROTOCOL": "SASL_SSL",
    "KAFKA_SASL_MECHANISM": "SCRAM-SHA-512",
    "KAFKA_SASL_USERNAME": "article-runtime",
    "KAFKA_SASL_PASSWORD": "s3cret-Pa55",
}
secrets = st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=4, max_size=40).filter(
    lambda s: s.strip() == s
)


@pytest.fixture
def ca(tmp_path: Path) -> str:
    path = tmp_path / "ca.pem"
    path.write_text("not read here")
    return str(path)


def test_plaintext_is_the_default_and_hosts_are_split() -> None:
    connection = KafkaConnection.from_env(BOOTSTRAP)
    assert connection.security_protocol == "PLAINTEXT"
    assert connection.hosts == ["b-1.example:9096", "b-2.example:9096"]
    assert connection.confluent() == {
        "bootstrap.servers": BOOTSTRAP["KAFKA_BOOTSTRAP_SERVERS"],
        "security.protocol": "PLAINTEXT",
    }
    assert connection.faust_credentials() is None


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"KAFKA_BOOTSTRAP_SERVERS": " "}, "KAFKA_BOOTSTRAP_SERVERS"),
        ({"KAFKA_SECURITY_PROTOCOL": "TLS"}, "KAFKA_SECURITY_PROTOCOL"),
        ({"KAFKA_SASL_MECHANISM": "GSSAPI"}, "KAFKA_SASL_MECHANISM"),
        ({"KAFKA_SASL_MECHANISM": ""}, "KAFKA_SASL_MECHANISM"),
        ({"KAFKA_SASL_USERNAME": ""}, "KAFKA_SASL_USERNAME"),
        ({"KAFKA_SASL_PASSWORD": ""}, "KAFKA_SASL_PASSWORD"),
        ({"KAFKA_SSL_CA_LOCATION": "/nonexistent/ca.pem"}, "KAFKA_SSL_CA_LOCATION"),
        ({"KAFKA_SSL_CERTIFICATE_LOCATION": "/etc/hostname"}, "KAFKA_SSL_KEY_LOCATION"),
    ],
)
def test_a_bad_setting_is_refused_by_name(change: dict[str, str], named: str) -> None:
    with pytest.raises(ConnectionSettingError, match=named):
        KafkaConnection.from_env({**SASL, **change})
    with pytest.raises(SettingsError, match=named):  # and the worker says the same
        WorkerSettings.from_env({**SASL, **change})


@given(
    protocol=st.sampled_from(PROTOCOLS),
    mechanism=st.sampled_from(MECHANISMS),
    username=secrets,
    password=secrets,
)
def test_a_child_process_reads_back_the_same_connection(
    protocol: str, mechanism: str, username: str, password: str
) -> None:
    env = {
        **BOOTSTRAP,
        "KAFKA_SECURITY_PROTOCOL": protocol.lower(),
        "KAFKA_SASL_MECHANISM": mechanism,
        "KAFKA_SASL_USERNAME": username,
        "KAFKA_SASL_PASSWORD": password,
    }
    connection = KafkaConnection.from_env(env)
    assert KafkaConnection.from_env(connection.environ()) == connection
    # A variable the connection leaves unset is emptied, never inherited from the parent.
    inherited = {"KAFKA_SSL_CA_LOCATION": "/parent/ca.pem", **connection.environ()}
    assert KafkaConnection.from_env(inherited).ssl_ca_location is None


@given(password=secrets)
def test_the_password_never_shows(password: str) -> None:
    def shown(connection: KafkaConnection) -> str:
        return repr(connection) + str(connection.masked()) + repr(connection.faust_credentials())

    # A password that is part of what shows for any password ("None", "SASL") proves nothing.
    assume(password not in shown(KafkaConnection.from_env(SASL)))
    connection = KafkaConnection.from_env({**SASL, "KAFKA_SASL_PASSWORD": password})
    assert connection.confluent()["sasl.password"] == password
    assert password not in shown(connection)


def test_every_client_gets_the_security_settings(ca: str) -> None:
    connection = KafkaConnection.from_env({**SASL, "KAFKA_SSL_CA_LOCATION": ca})
    assert connection.confluent() == {
        "bootstrap.servers": SASL["KAFKA_BOOTSTRAP_SERVERS"],
        "security.protocol": "SASL_SSL",
        "sasl.mechanism": "SCRAM-SHA-512",
        "sasl.username": "article-runtime",
        "sasl.password": "s3cret-Pa55",
        "ssl.ca.location": ca,
    }


def test_aiokafka_and_faust_get_the_same_login() -> None:
    connection = KafkaConnection.from_env(SASL)  # no CA: the system's
    kwargs = connection.aiokafka()
    assert kwargs["security_protocol"] == "SASL_SSL"
    assert (kwargs["sasl_mechanism"], kwargs["sasl_plain_username"]) == (
        "SCRAM-SHA-512",
        "article-runtime",
    )
    assert kwargs["sasl_plain_password"] == "s3cret-Pa55"
    assert kwargs["ssl_context"] is not None
    credentials = connection.faust_credentials()
    assert isinstance(credentials, SASLCredentials)
    assert credentials.protocol.value == "SASL_SSL"
    assert credentials.mechanism.value == "SCRAM-SHA-512"
    assert credentials.password == "s3cret-Pa55"


def test_sasl_without_tls_has_no_tls_context() -> None:
    connection = KafkaConnection.from_env({**SASL, "KAFKA_SECURITY_PROTOCOL": "SASL_PLAINTEXT"})
    assert "ssl_context" not in connection.aiokafka()
    credentials = connection.faust_credentials()
    assert credentials is not None
    assert credentials.protocol.value == "SASL_PLAINTEXT"


# -- preflight: what librdkafka reported, as one line naming the setting ------------------


def test_a_refused_login_names_the_sasl_settings_not_the_password() -> None:
    connection = KafkaConnection.from_env(SASL)
    reported = [
        KafkaError(KafkaError._TRANSPORT, "disconnected"),
        KafkaError(KafkaError._AUTHENTICATION, "SASL authentication error: invalid credentials"),
    ]
    line = refusal(connection, reported)
    assert line is not None and "\n" not in line
    for name in ("KAFKA_SASL_USERNAME", "KAFKA_SASL_PASSWORD", "KAFKA_SASL_MECHANISM"):
        assert name in line
    assert "s3cret-Pa55" not in line


def test_a_failed_handshake_names_the_ca_and_the_client_certificate_when_set(
    tmp_path: Path, ca: str
) -> None:
    ssl_error = [KafkaError(KafkaError._SSL, "certificate verify failed")]
    line = refusal(KafkaConnection.from_env({**SASL, "KAFKA_SSL_CA_LOCATION": ca}), ssl_error)
    assert line is not None and "KAFKA_SSL_CA_LOCATION" in line
    assert "KAFKA_SSL_CERTIFICATE_LOCATION" not in line
    (tmp_path / "c.pem").write_text("x")
    (tmp_path / "k.pem").write_text("x")
    mutual = {
        **SASL,
        "KAFKA_SECURITY_PROTOCOL": "SSL",
        "KAFKA_SSL_CERTIFICATE_LOCATION": str(tmp_path / "c.pem"),
        "KAFKA_SSL_KEY_LOCATION": str(tmp_path / "k.pem"),
    }
    line = refusal(KafkaConnection.from_env(mutual), ssl_error)
    assert line is not None
    assert "KAFKA_SSL_CERTIFICATE_LOCATION" in line and "KAFKA_SSL_KEY_LOCATION" in line


def test_transport_errors_are_retried_then_name_the_address() -> None:
    connection = KafkaConnection.from_env(SASL)
    down = [KafkaError(KafkaError._TRANSPORT, "Connection refused")]
    assert refusal(connection, down) is None  # a broker restarting: keep trying
    line = unreachable(connection, down[-1], 10)
    assert "KAFKA_BOOTSTRAP_SERVERS" in line and "b-1.example:9096" in line
    assert "Connection refused" in line
