"""Reach the cluster once, quickly, before any long-lived client does.

Clients retry a refused login or a failed TLS handshake until their own timeout (30 s and
more) and then fail with a message about something else. ``preflight`` asks the cluster for
its metadata with a short deadline and turns what librdkafka reports (its ``error_cb`` codes,
not its text) into one line naming the setting to fix: the SASL settings for a refused login,
the CA (or the client certificate) for a failed handshake, the bootstrap address when no
broker answers.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any

from confluent_kafka import KafkaError, KafkaException
from confluent_kafka.admin import AdminClient
from confluent_kafka.admin._metadata import ClusterMetadata  # typed here, not re-exported

from article_runtime.streams.kafka.connection import (
    BOOTSTRAP_ENV,
    CA_ENV,
    CERTIFICATE_ENV,
    KEY_ENV,
    MECHANISM_ENV,
    PASSWORD_ENV,
    PROTOCOL_ENV,
    USERNAME_ENV,
    ConnectionSettingError,
    KafkaConnection,
)
from article_runtime.streams.kafka.registry import RegistrySettingError, RegistrySettings

DEFAULT_TIMEOUT_S = 10.0
EXIT_REFUSED = 2  # a setting is wrong: restarting will not help


class ClusterRefused(RuntimeError):
    """The cluster cannot be used with these settings; the message is the one line to show."""


def preflight(
    connection: KafkaConnection, *, timeout_s: float = DEFAULT_TIMEOUT_S
) -> ClusterMetadata:
    """The cluster's metadata, or ``ClusterRefused`` within about ``timeout_s``.

    A refused login or handshake ends the wait at once: retrying cannot fix a setting.
    """
    errors: list[KafkaError] = []
    config: dict[str, Any] = {
        **connection.confluent(),
        "error_cb": errors.append,
        "log_level": 0,  # what matters reaches error_cb, and becomes our one line
        "socket.connection.setup.timeout.ms": int(max(timeout_s, 1.0) * 1000),
    }
    admin = AdminClient(config)
    failed: KafkaError | None = None
    deadline = time.monotonic() + timeout_s
    while True:
        left = deadline - time.monotonic()
        try:
            metadata = admin.list_topics(timeout=max(min(left, 1.0), 0.1))
        except KafkaException as error:
            failed = error.args[0]  # "transport failure": what error_cb said is more precise
        else:
            if metadata.brokers:
                return metadata
        admin.poll(0)  # serves error_cb
        refused = refusal(connection, errors)
        if refused is not None:
            raise ClusterRefused(refused)
        if left <= 0:
            last = errors[-1] if errors else failed
            raise ClusterRefused(unreachable(connection, last, timeout_s))


def connect_from_env(prog: str, *, timeout_s: float = DEFAULT_TIMEOUT_S) -> KafkaConnection:
    """For a command that needs the cluster: the connection the environment describes, checked
    by ``preflight``; otherwise one line on stderr (``prog: ...``) and exit code 2."""
    try:
        connection = KafkaConnection.from_env()
        RegistrySettings.from_env(os.environ)  # the codec's settings, refused here in one line
        preflight(connection, timeout_s=timeout_s)
    except (ConnectionSettingError, RegistrySettingError, ClusterRefused) as error:
        print(f"{prog}: {error}", file=sys.stderr, flush=True)
        raise SystemExit(EXIT_REFUSED) from None
    return connection


def refusal(connection: KafkaConnection, errors: list[KafkaError]) -> str | None:
    """The line for an error retrying cannot fix (login refused, handshake failed), if any."""
    for error in errors:
        if error.code() == KafkaError._AUTHENTICATION:
            return (
                f"the cluster refused to authenticate {connection.sasl_username!r} with "
                f"{connection.sasl_mechanism or 'SASL'}: check {USERNAME_ENV}, {PASSWORD_ENV} "
                f"and {MECHANISM_ENV} ({error.str()})"
            )
        if error.code() == KafkaError._SSL:
            return f"TLS with the cluster failed: check {tls_settings(connection)} ({error.str()})"
    return None


def tls_settings(connection: KafkaConnection) -> str:
    """The settings a failed handshake can come from: the CA that must have signed the
    broker's certificate, and our own certificate and key when the broker asks for one."""
    names = [CA_ENV if connection.ssl_ca_location else f"{CA_ENV} (unset: system CAs)"]
    if connection.ssl_certificate_location:
        names += [CERTIFICATE_ENV, KEY_ENV]
    return ", ".join(names)


def unreachable(connection: KafkaConnection, last: KafkaError | None, timeout_s: float) -> str:
    reason = "" if last is None else f": {last.str()}"
    return (
        f"no Kafka broker answered at {connection.bootstrap} within {timeout_s:.0f} s: check "
        f"{BOOTSTRAP_ENV} and {PROTOCOL_ENV} (now {connection.security_protocol}){reason}"
    )
