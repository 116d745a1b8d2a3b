"""What may leave the process in a trace: no credential keys, no known secret values (spec 12).

Two rules, applied recursively to every value handed to the tracing SDK:

1. A mapping key whose whole name (case-insensitive, ``-`` and ``_`` alike) is in
   :data:`SENSITIVE_KEYS` is dropped with its value. Whole names only: ``token`` goes,
   ``prompt_tokens`` and ``context_tokens`` stay.
2. Every occurrence of a known secret value inside any string (keys included) becomes
   ``[REDACTED]``. Plain ``str.replace``, longest secret first, so a secret that contains
   another is removed whole.

Values of other types are turned into JSON-friendly ones first (pydantic models are dumped,
unknown objects become their ``str``), so nothing reaches the SDK's own serializer unmasked.
"""

from __future__ import annotations

import base64
import os
from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import BaseModel

REDACTED = "[REDACTED]"

# Normalized form: lower case, "-" written as "_".
SENSITIVE_KEYS: frozenset[str] = frozenset(
    {
        "authorization",
        "proxy_authorization",
        "api_key",
        "apikey",
        "x_api_key",
        "headers",
        "cookie",
        "set_cookie",
        "secret",
        "secret_key",
        "client_secret",
        "password",
        "token",
        "access_token",
        "refresh_token",
    }
)

# Environment variables whose values are secrets by name alone.
SECRET_ENV_SUFFIXES: tuple[str, ...] = ("_API_KEY", "_SECRET_KEY", "_TOKEN")
MIN_ENV_SECRET_LENGTH = 8

_MAX_DEPTH = 32


def is_sensitive_key(key: object) -> bool:
    return str(key).strip().lower().replace("-", "_") in SENSITIVE_KEYS


def env_secrets(environ: Mapping[str, str] | None = None) -> list[str]:
    """Values of variables named like ``*_API_KEY``, ``*_SECRET_KEY``, ``*_TOKEN`` (>= 8 chars)."""
    env = os.environ if environ is None else environ
    found = []
    for name, value in env.items():
        if (
            name.upper().endswith(SECRET_ENV_SUFFIXES)
            and len(value.strip()) >= MIN_ENV_SECRET_LENGTH
        ):
            found.append(value)
    return found


def basic_auth_token(public_key: str, secret_key: str) -> str:
    """The base64 credential Langfuse puts in its own ``Authorization`` header."""
    return base64.b64encode(f"{public_key}:{secret_key}".encode()).decode("ascii")


class Redactor:
    """Drops credential keys and replaces known secret values, recursively.

    Explicit secrets count at any length (a short secret is still a secret); empty ones are
    ignored. Callable as a Langfuse ``mask`` (``redactor(data=...)``).
    """

    def __init__(self, secrets: Iterable[str]) -> None:
        values: set[str] = set()
        for secret in secrets:
            for form in (secret, secret.strip()):
                if form:
                    values.add(form)
        self._secrets: tuple[str, ...] = tuple(sorted(values, key=lambda s: (-len(s), s)))

    def __call__(self, *, data: Any, **_: Any) -> Any:
        return self.scrub(data)

    def text(self, value: str) -> str:
        for secret in self._secrets:
            if secret in value:
                value = value.replace(secret, REDACTED)
        return value

    def scrub(self, data: Any, _depth: int = 0) -> Any:
        if data is None or isinstance(data, bool | int | float):
            return data
        if isinstance(data, str):
            return self.text(data)
        if _depth >= _MAX_DEPTH:
            return REDACTED
        if isinstance(data, BaseModel):
            return self.scrub(data.model_dump(mode="json"), _depth + 1)
        if isinstance(data, Mapping):
            return {
                self.text(str(key)): self.scrub(value, _depth + 1)
                for key, value in data.items()
                if not is_sensitive_key(key)
            }
        if isinstance(data, list | tuple | set | frozenset):
            return [self.scrub(item, _depth + 1) for item in data]
        if _is_langfuse_media(data):
            return data  # the SDK's own media placeholder: carries a reference, not text
        return self.text(str(data))


def _is_langfuse_media(data: object) -> bool:
    cls = type(data)
    return cls.__name__ == "LangfuseMedia" and cls.__module__.startswith("langfuse")
