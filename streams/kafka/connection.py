"""How every Kafka client we build reaches the cluster: one set of settings, read once.

The worker's Faust app (aiokafka), the admin client that creates topics, the record reader,
the publisher and the CLI all take their connection from one ``KafkaConnection``, so a
secured cluster (TLS, SASL) is configured in one place and no client is forgotten. The
password is a secret: it comes only from the environment and never appears in ``repr`` or
in ``masked()``, which is what the startup line prints.
"""

from __future__ import annotations

import os
import ssl
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from faust.auth import Credentials, SASLCredentials, SSLCredentials

BOOTSTRAP_ENV = "KAFKA_BOOTSTRAP_SERVERS"
PROTOCOL_ENV = "KAFKA_SECURITY_PROTOCOL"
MECHANISM_ENV = "KAFKA_SASL_MECHANISM"
USERNAME_ENV = "KAFKA_SASL_USERNAME"
PASSWORD_ENV = "KAFKA_SASL_PASSWORD"
CA_ENV = "KAFKA_SSL_CA_LOCATION"
CERTIFICATE_ENV = "KAFKA_SSL_CERTIFICATE_LOCATION"
KEY_ENV = "KAFKA_SSL_KEY_LOCATION"

PROTOCOLS = ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")
MECHANISMS = ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512")


class ConnectionSettingError(ValueError):
    """A connection setting is missing or malformed; the message names the variable."""


@dataclass(frozen=True)
class KafkaConnection:
    bootstrap: str
    security_protocol: str = "PLAINTEXT"
    sasl_mechanism: str | None = None
    sasl_username: str | None = None
    sasl_password: str | None = field(default=None, repr=False)
    ssl_ca_location: str | None = None
    ssl_certificate_location: str | None = None
    ssl_key_location: str | None = None

    @property
    def uses_sasl(self) -> bool:
        return self.security_protocol.startswith("SASL_")

    @property
    def uses_ssl(self) -> bool:
        return self.security_protocol.endswith("SSL")

    @property
    def hosts(self) -> list[str]:
        return [host.strip() for host in self.bootstrap.split(",") if host.strip()]

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> KafkaConnection:
        env = os.environ if environ is None else environ

        def value(name: str) -> str | None:
            return env.get(name, "").strip() or None

        bootstrap = value(BOOTSTRAP_ENV)
        if bootstrap is None:
            raise ConnectionSettingError(f"{BOOTSTRAP_ENV} is unset: name the Kafka cluster")
        protocol = (value(PROTOCOL_ENV) or "PLAINTEXT").upper()
        if protocol not in PROTOCOLS:
            raise ConnectionSettingError(f"{PROTOCOL_ENV} must be one of {', '.join(PROTOCOLS)}")
        connection = cls(
            bootstrap=bootstrap,
            security_protocol=protocol,
            sasl_mechanism=(value(MECHANISM_ENV) or "").upper() or None,
            sasl_username=value(USERNAME_ENV),
            sasl_password=env.get(PASSWORD_ENV) or None,
            ssl_ca_location=value(CA_ENV),
            ssl_certificate_location=value(CERTIFICATE_ENV),
            ssl_key_location=value(KEY_ENV),
        )
        connection.check()
        return connection

    def environ(self) -> dict[str, str]:
        """The variables ``from_env`` reads back as this connection, for a child process;
        every one of them, empty when unset, so none is inherited from the parent's."""
        values = {
            BOOTSTRAP_ENV: self.bootstrap,
            PROTOCOL_ENV: self.security_protocol,
            MECHANISM_ENV: self.sasl_mechanism,
            USERNAME_ENV: self.sasl_username,
            PASSWORD_ENV: self.sasl_password,
            CA_ENV: self.ssl_ca_location,
            CERTIFICATE_ENV: self.ssl_certificate_location,
            KEY_ENV: self.ssl_key_location,
        }
        return {name: value or "" for name, value in values.items()}

    def check(self) -> None:
        """Refuse combinations a client would only reveal as a timeout."""
        needs = f"{self.security_protocol} needs it"
        if self.uses_sasl:
            if self.sasl_mechanism not in MECHANISMS:
                raise ConnectionSettingError(
                    f"{MECHANISM_ENV} must be one of {', '.join(MECHANISMS)}"
                )
            if not self.sasl_username:
                raise ConnectionSettingError(f"{USERNAME_ENV} is unset: {needs}")
            if not self.sasl_password:
                raise ConnectionSettingError(f"{PASSWORD_ENV} is unset: {needs}")
        if bool(self.ssl_certificate_location) != bool(self.ssl_key_location):
            raise ConnectionSettingError(f"set both {CERTIFICATE_ENV} and {KEY_ENV}, or neither")
        for name, path in (
            (CA_ENV, self.ssl_ca_location),
            (CERTIFICATE_ENV, self.ssl_certificate_location),
            (KEY_ENV, self.ssl_key_location),
        ):
            if path is not None and not Path(path).is_file():
                raise ConnectionSettingError(f"{name} names {path}, which is not a readable file")

    def confluent(self) -> dict[str, str | int | float | bool]:
        """librdkafka settings for confluent-kafka's AdminClient, Producer and Consumer (a new
        dict each time: add the client's own settings to it)."""
        config: dict[str, str | int | float | bool] = {
            "bootstrap.servers": self.bootstrap,
            "security.protocol": self.security_protocol,
        }
        if self.uses_sasl:
            config["sasl.mechanism"] = str(self.sasl_mechanism)
            config["sasl.username"] = str(self.sasl_username)
            config["sasl.password"] = str(self.sasl_password)
        if self.uses_ssl:
            for key, path in (
                ("ssl.ca.location", self.ssl_ca_location),
                ("ssl.certificate.location", self.ssl_certificate_location),
                ("ssl.key.location", self.ssl_key_location),
            ):
                if path is not None:
                    config[key] = path
        return config

    def ssl_context(self) -> ssl.SSLContext | None:
        """The TLS context aiokafka needs (it takes a context, not file paths)."""
        if not self.uses_ssl:
            return None
        context = ssl.create_default_context(cafile=self.ssl_ca_location)
        if self.ssl_certificate_location and self.ssl_key_location:
            context.load_cert_chain(self.ssl_certificate_location, self.ssl_key_location)
        return context

    def aiokafka(self) -> dict[str, Any]:
        """Keyword arguments for aiokafka's clients (our ``TopicReader``)."""
        kwargs: dict[str, Any] = {
            "bootstrap_servers": self.hosts,
            "security_protocol": self.security_protocol,
        }
        if self.uses_sasl:
            kwargs["sasl_mechanism"] = self.sasl_mechanism
            kwargs["sasl_plain_username"] = self.sasl_username
            kwargs["sasl_plain_password"] = self.sasl_password
        context = self.ssl_context()
        if context is not None:
            kwargs["ssl_context"] = context
        return kwargs

    def faust_credentials(self) -> Credentials | None:
        """``broker_credentials`` for the Faust app (it hands them to aiokafka)."""
        if self.uses_sasl:
            return SASLCredentials(
                username=self.sasl_username,
                password=self.sasl_password,
                ssl_context=self.ssl_context(),
                mechanism=self.sasl_mechanism,
            )
        context = self.ssl_context()
        return SSLCredentials(context) if context is not None else None

    def masked(self) -> dict[str, str | int | float | bool]:
        """The effective settings for the startup line, the password masked."""
        shown = self.confluent()
        if "sasl.password" in shown:
            shown["sasl.password"] = "***"
        return shown
