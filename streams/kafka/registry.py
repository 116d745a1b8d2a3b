"""A schema registry's REST API (Confluent's, which Apicurio serves under ``/apis/ccompat/v7``).

Kafka UI, AKHQ, kcat ``-s avro -r``, Kafka Connect and ksqlDB read Avro values through a
registry: the value names its writer schema by the ID the registry gave it, and a reader asks
the registry for that schema. This module is the client: the few calls the runtime makes, with
the standard library (``urllib``), because every caller is synchronous (the codec, the
commands, a worker's start) and a worker never waits on it on its event loop
(``article_runtime.streams.kafka.registry_schemas`` fetches in a thread). Credentials come from the
environment and never appear in a message or a ``repr``.
"""

from __future__ import annotations

import base64
import json
import ssl
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

VALUE_FORMAT_ENV = "ARTICLE_RUNTIME_VALUE_FORMAT"
REGISTRY_URL_ENV = "ARTICLE_RUNTIME_SCHEMA_REGISTRY_URL"
REGISTRY_USERNAME_ENV = "ARTICLE_RUNTIME_SCHEMA_REGISTRY_USERNAME"
REGISTRY_PASSWORD_ENV = "ARTICLE_RUNTIME_SCHEMA_REGISTRY_PASSWORD"  # a name
REGISTRY_CA_FILE_ENV = "ARTICLE_RUNTIME_SCHEMA_REGISTRY_CA_FILE"
REGISTRY_TIMEOUT_S = 10.0
CONTENT_TYPE = "application/vnd.schemaregistry.v1+json"

# single-object: Avro single-object encoding (C3 01 + fingerprint), no registry (the default).
# schema-registry: the registry's wire format (00 + 4-byte schema ID + Avro binary).
ValueFormat = Literal["single-object", "schema-registry"]
VALUE_FORMATS: tuple[str, ...] = get_args(ValueFormat)


class RegistrySettingError(ValueError):
    """A registry setting is missing or malformed; the message names the variable."""


class RegistryError(RuntimeError):
    """The registry could not be reached or refused a call; ``status`` is its HTTP status
    (0: no answer) and ``code`` its ``error_code`` when it gave one."""

    def __init__(self, message: str, status: int = 0, code: int = 0) -> None:
        super().__init__(message)
        self.status, self.code = status, code


@dataclass(frozen=True)
class RegistrySettings:
    """Where the registry is, and which format values are written in.

    With a URL set, values of either format are read (a topic being moved from single-object
    to the registry format holds both); ``value_format`` says which one is written.
    """

    url: str
    value_format: ValueFormat = "single-object"
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    ca_file: str | None = None

    @property
    def writes_registry_format(self) -> bool:
        return self.value_format == "schema-registry"

    def masked(self) -> dict[str, str | None]:
        """The settings as a log line may show them: the password never."""
        return {
            "url": self.url,
            "value_format": self.value_format,
            "username": self.username,
            "password": None if self.password is None else "***",
            "ca_file": self.ca_file,
        }

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> RegistrySettings | None:
        """The registry settings, or None for a deployment without one (single-object only)."""
        value_format = env.get(VALUE_FORMAT_ENV, "").strip() or "single-object"
        if value_format not in VALUE_FORMATS:
            raise RegistrySettingError(
                f"{VALUE_FORMAT_ENV} must be one of {', '.join(VALUE_FORMATS)}, "
                f"not {value_format!r}"
            )
        url = env.get(REGISTRY_URL_ENV, "").strip().rstrip("/")
        if not url:
            if value_format == "schema-registry":
                raise RegistrySettingError(
                    f"{VALUE_FORMAT_ENV}={value_format} needs {REGISTRY_URL_ENV}"
                )
            return None
        parsed = urllib.parse.urlsplit(url)
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise RegistrySettingError(f"{REGISTRY_URL_ENV} must be an http(s) URL, not {url!r}")
        if parsed.username or parsed.password:
            raise RegistrySettingError(
                f"{REGISTRY_URL_ENV} must not hold credentials: set {REGISTRY_USERNAME_ENV} "
                f"and {REGISTRY_PASSWORD_ENV}"
            )
        username = env.get(REGISTRY_USERNAME_ENV, "").strip() or None
        password = env.get(REGISTRY_PASSWORD_ENV) or None
        if (username is None) != (password is None):
            raise RegistrySettingError(
                f"set both {REGISTRY_USERNAME_ENV} and {REGISTRY_PASSWORD_ENV}"
            )
        return cls(
            url=url,
            value_format="schema-registry"
            if value_format == "schema-registry"
            else "single-object",
            username=username,
            password=password,
            ca_file=env.get(REGISTRY_CA_FILE_ENV, "").strip() or None,
        )


def subject_of(topic: str) -> str:
    """The subject of a topic's value schema (TopicNameStrategy, the registries' default)."""
    return f"{topic}-value"


class RegistryClient:
    """The calls the runtime makes; every one raises ``RegistryError`` when it fails."""

    def __init__(self, settings: RegistrySettings, timeout_s: float = REGISTRY_TIMEOUT_S) -> None:
        self.url, self.timeout_s = settings.url, timeout_s
        self._headers = {"Accept": CONTENT_TYPE, "Content-Type": CONTENT_TYPE}
        if settings.username is not None and settings.password is not None:
            pair = f"{settings.username}:{settings.password}".encode()
            self._headers["Authorization"] = "Basic " + base64.b64encode(pair).decode("ascii")
        self._tls = (
            ssl.create_default_context(cafile=settings.ca_file) if settings.ca_file else None
        )

    def __repr__(self) -> str:
        return f"RegistryClient({self.url!r})"  # never the credentials

    def schema_by_id(self, schema_id: int) -> str:
        """The schema text the registry holds under ``schema_id`` (``RegistryError`` 404: none)."""
        answer = self._call("GET", f"/schemas/ids/{int(schema_id)}")
        kind = answer.get("schemaType", "AVRO")
        if kind != "AVRO":
            raise RegistryError(f"schema {schema_id} is {kind}, not Avro", 200)
        return str(answer["schema"])

    def lookup(self, subject: str, schema: str) -> int | None:
        """The ID of ``schema`` if ``subject`` already has it as a version, else None."""
        try:
            answer = self._call("POST", f"/subjects/{_quote(subject)}", {"schema": schema})
        except RegistryError as error:
            if error.status == 404:  # 40401 no such subject, 40403 no such schema in it
                return None
            raise
        return int(answer["id"])

    def has_versions(self, subject: str) -> bool:
        """Whether ``subject`` has any version yet."""
        try:
            answer = self._call("GET", f"/subjects/{_quote(subject)}/versions")
        except RegistryError as error:
            if error.status == 404:
                return False
            raise
        return bool(answer.get("versions"))

    def incompatibility(self, subject: str, schema: str) -> str | None:
        """Why the registry would refuse ``schema`` as the subject's next version, or None when
        it accepts it (a subject with no version accepts any schema)."""
        path = f"/compatibility/subjects/{_quote(subject)}/versions/latest?verbose=true"
        try:
            answer = self._call("POST", path, {"schema": schema})
        except RegistryError as error:
            if error.status == 404:
                return None
            raise
        if answer.get("is_compatible") is True:
            return None
        messages = answer.get("messages") or []
        return "; ".join(str(m) for m in messages) or "not compatible with the latest version"

    def register(self, subject: str, schema: str) -> int:
        """Register ``schema`` under ``subject`` (the registry checks compatibility too)."""
        answer = self._call("POST", f"/subjects/{_quote(subject)}/versions", {"schema": schema})
        return int(answer["id"])

    def _call(self, method: str, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        """The JSON answer (a list answer comes as ``{"versions": [...]}``)."""
        data = None if body is None else json.dumps(body).encode("utf-8")
        request = urllib.request.Request(  # the URL's scheme is checked above
            self.url + path, data=data, method=method, headers=self._headers
        )
        try:
            with urllib.request.urlopen(
                request, timeout=self.timeout_s, context=self._tls
            ) as response:
                answer = json.loads(response.read() or b"{}")
        except urllib.error.HTTPError as error:
            raise _refusal(method, path, error) from None
        except (OSError, ValueError) as error:  # no answer, TLS, timeout, not JSON
            raise RegistryError(
                f"{method} {self.url}{path}: {type(error).__name__}: {error}"
            ) from None
        if isinstance(answer, list):
            answer = {"versions": answer}
        if not isinstance(answer, dict):
            raise RegistryError(f"{method} {self.url}{path}: not a JSON object")
        return answer


def _refusal(method: str, path: str, error: urllib.error.HTTPError) -> RegistryError:
    try:
        answer = json.loads(error.read() or b"{}")
    except (OSError, ValueError):
        answer = {}
    if not isinstance(answer, dict):
        answer = {}
    code = answer.get("error_code", 0)
    message = str(answer.get("message", error.reason))
    return RegistryError(
        f"{method} {path}: HTTP {error.code} ({message})",
        error.code,
        code if isinstance(code, int) else 0,
    )


def _quote(subject: str) -> str:
    return urllib.parse.quote(subject, safe="")
