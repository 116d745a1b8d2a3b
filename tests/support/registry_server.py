"""A schema registry speaking Confluent's documented REST API, for the tests.

No real registry can run here: Apicurio's app jar is on Maven Central, but the artifacts it
depends on are not served to this machine (``docs/registry.md``), and Confluent's and
Karapace's are not published where the machine reaches. This server implements the calls the
registry tools make, from the API reference (docs.confluent.io, "Schema Registry API
Reference"), and is written apart from ``article_runtime.streams.kafka.registry`` (the client under
test):

- ``GET /schemas/ids/{id}``, ``GET /subjects``, ``GET /subjects/{s}/versions``,
  ``GET /subjects/{s}/versions/{v}`` (``latest`` too);
- ``POST /subjects/{s}`` (is this schema a version of s?), ``POST /subjects/{s}/versions``
  (register; 409 when incompatible), ``POST /compatibility/subjects/{s}/versions/{v}``;
- ``GET``/``PUT /config`` and ``/config/{s}``: BACKWARD (the default), FORWARD, FULL, their
  ``_TRANSITIVE`` forms, and NONE.

Compatibility follows the Avro specification's schema resolution: BACKWARD means the new schema
reads what the old one wrote. Schemas are compared by their parsed JSON, documentation included
as Confluent's registry does (a re-registered schema gets its first ID). Optional basic auth.
Started on a free port in a thread::

    with running_registry() as registry:
        registry.url  # http://127.0.0.1:PORT
"""

from __future__ import annotations

import base64
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import unquote, urlsplit

PRIMITIVES = {"null", "boolean", "int", "long", "float", "double", "bytes", "string"}
PROMOTIONS = {
    ("int", "long"),
    ("int", "float"),
    ("int", "double"),
    ("long", "float"),
    ("long", "double"),
    ("float", "double"),
    ("string", "bytes"),
    ("bytes", "string"),
}
LEVELS = {
    "NONE",
    "BACKWARD",
    "BACKWARD_TRANSITIVE",
    "FORWARD",
    "FORWARD_TRANSITIVE",
    "FULL",
    "FULL_TRANSITIVE",
}


class Problem(Exception):
    """An API error: HTTP status, Confluent error code, message."""

    def __init__(self, status: int, code: int, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


# -- Avro schema resolution (the specification's rules, written for this server) ----------------


def _names(schema: Any, namespace: str, into: dict[str, Any]) -> None:
    """Every named type of ``schema``, by full name."""
    if isinstance(schema, list):
        for branch in schema:
            _names(branch, namespace, into)
    elif isinstance(schema, dict):
        kind = schema.get("type")
        if kind in ("record", "error", "enum", "fixed"):
            full = _full(schema["name"], schema.get("namespace", namespace))
            into[full] = schema
            inner = full.rpartition(".")[0]
            for f in schema.get("fields", []):
                _names(f["type"], inner, into)
        elif kind == "array":
            _names(schema["items"], namespace, into)
        elif kind == "map":
            _names(schema["values"], namespace, into)
        elif isinstance(kind, dict | list):
            _names(kind, namespace, into)


def _full(name: str, namespace: str | None) -> str:
    return name if "." in name or not namespace else f"{namespace}.{name}"


@dataclass
class _Side:
    names: dict[str, Any]

    def resolve(self, schema: Any) -> Any:
        """Named references replaced by their definitions; ``{"type": "int"}`` as ``"int"``."""
        if isinstance(schema, str):
            if schema in PRIMITIVES:
                return schema
            for full, definition in self.names.items():
                if full == schema or full.rpartition(".")[2] == schema:
                    return definition
            raise Problem(422, 42201, f"unknown type {schema}")
        if isinstance(schema, dict) and schema.get("type") in PRIMITIVES:
            return schema["type"]
        if isinstance(schema, dict) and isinstance(schema.get("type"), dict | list | str):
            kind = schema["type"]
            if kind not in ("record", "error", "enum", "fixed", "array", "map"):
                return self.resolve(kind)
        return schema


def _kind(schema: Any) -> str:
    if isinstance(schema, str):
        return schema
    if isinstance(schema, list):
        return "union"
    return str(schema["type"])


def readable(writer: Any, reader: Any) -> list[str]:
    """Why data ``writer`` wrote cannot be read with ``reader`` (empty: it can)."""
    w_side, r_side = _Side({}), _Side({})
    _names(writer, "", w_side.names)
    _names(reader, "", r_side.names)
    return _readable(writer, reader, w_side, r_side, "", set())


def _readable(
    writer: Any, reader: Any, ws: _Side, rs: _Side, path: str, seen: set[tuple[str, str]]
) -> list[str]:
    writer, reader = ws.resolve(writer), rs.resolve(reader)
    wk, rk = _kind(writer), _kind(reader)
    if wk == "union":
        return [p for branch in writer for p in _readable(branch, reader, ws, rs, path, seen)]
    if rk == "union":
        for branch in reader:
            if not _readable(writer, branch, ws, rs, path, seen):
                return []
        return [f"{path or '/'}: no branch of the reader's union reads the writer's {wk}"]
    if wk in PRIMITIVES or rk in PRIMITIVES:
        if wk == rk or (wk, rk) in PROMOTIONS:
            return []
        return [f"{path or '/'}: the writer's {wk} cannot be read as {rk}"]
    if wk != rk:
        return [f"{path or '/'}: the writer's {wk} cannot be read as {rk}"]
    if (
        wk in ("record", "error", "enum", "fixed")
        and writer["name"].rpartition(".")[2] != reader["name"].rpartition(".")[2]
        and writer["name"] not in reader.get("aliases", [])
    ):
        return [f"{path or '/'}: record name {writer['name']} is not {reader['name']}"]
    if wk == "array":
        return _readable(writer["items"], reader["items"], ws, rs, f"{path}/items", seen)
    if wk == "map":
        return _readable(writer["values"], reader["values"], ws, rs, f"{path}/values", seen)
    if wk == "fixed":
        return [] if writer["size"] == reader["size"] else [f"{path}: fixed sizes differ"]
    if wk == "enum":
        missing = set(writer["symbols"]) - set(reader["symbols"])
        if missing and "default" not in reader:
            return [f"{path or '/'}: the reader's enum lacks {sorted(missing)}"]
        return []
    pair = (id(writer), id(reader))
    key = (str(pair[0]), str(pair[1]))
    if key in seen:  # a recursive record already being compared
        return []
    seen = seen | {key}
    written = {f["name"]: f for f in writer["fields"]}
    problems: list[str] = []
    for f in reader["fields"]:
        match = written.get(f["name"])
        if match is None:
            for alias in f.get("aliases", []):
                match = written.get(alias)
        if match is None:
            if "default" not in f:
                problems.append(f"{path}/{f['name']}: new field without a default")
            continue
        problems += _readable(match["type"], f["type"], ws, rs, f"{path}/{f['name']}", seen)
    return problems


# -- the registry -------------------------------------------------------------------------------


@dataclass
class Registry:
    """The registry's state; every method is one API call's meaning."""

    schemas: list[str] = field(default_factory=list)  # by ID - 1
    subjects: dict[str, list[int]] = field(default_factory=dict)  # versions: IDs, oldest first
    levels: dict[str, str] = field(default_factory=dict)  # per subject
    level: str = "BACKWARD"
    lock: threading.Lock = field(default_factory=threading.Lock)

    def id_of(self, text: str) -> int | None:
        key = json.loads(text)
        for index, held in enumerate(self.schemas):
            if json.loads(held) == key:
                return index + 1
        return None

    def problems(self, subject: str, text: str, against: list[int]) -> list[str]:
        level = self.levels.get(subject, self.level)
        if level == "NONE" or not against:
            return []
        new = json.loads(text)
        olds = against if level.endswith("_TRANSITIVE") else against[-1:]
        found: list[str] = []
        for old_id in olds:
            old = json.loads(self.schemas[old_id - 1])
            if level.startswith(("BACKWARD", "FULL")):
                found += readable(old, new)
            if level.startswith(("FORWARD", "FULL")):
                found += readable(new, old)
        return found

    def register(self, subject: str, text: str) -> int:
        with self.lock:
            versions = self.subjects.get(subject, [])
            known = self.id_of(text)
            if known is not None and known in versions:
                return known
            problems = self.problems(subject, text, versions)
            if problems:
                raise Problem(409, 409, "incompatible: " + "; ".join(problems))
            if known is None:
                self.schemas.append(text)
                known = len(self.schemas)
            self.subjects[subject] = [*versions, known]
            return known


def _schema_text(body: dict[str, Any]) -> str:
    text = body.get("schema")
    if not isinstance(text, str):
        raise Problem(422, 42201, "no schema")
    if body.get("schemaType", "AVRO") != "AVRO":
        raise Problem(422, 42201, "only Avro here")
    try:
        parsed = json.loads(text)
        _names(parsed, "", {})
    except (ValueError, KeyError, TypeError) as error:
        raise Problem(422, 42201, f"invalid schema: {error}") from None
    return text


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        return

    def do_GET(self) -> None:
        self._answer("GET")

    def do_POST(self) -> None:
        self._answer("POST")

    def do_PUT(self) -> None:
        self._answer("PUT")

    def _answer(self, method: str) -> None:
        self.server.calls.append((method, self.path))
        try:
            if self.server.credentials is not None and not self._authorized():
                raise Problem(401, 401, "Unauthorized")
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}") if length else {}
            answer = self._route(
                method, [unquote(p) for p in urlsplit(self.path).path.split("/")[1:]], body
            )
            status = 200
        except Problem as problem:
            status, answer = (
                problem.status,
                {"error_code": problem.code, "message": problem.message},
            )
        except ValueError:
            status, answer = 400, {"error_code": 400, "message": "bad JSON"}
        data = json.dumps(answer).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/vnd.schemaregistry.v1+json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _authorized(self) -> bool:
        header = self.headers.get("Authorization", "")
        if not header.startswith("Basic "):
            return False
        try:
            pair = base64.b64decode(header[6:]).decode()
        except ValueError:
            return False
        return pair == ":".join(self.server.credentials or ())

    def _route(self, method: str, parts: list[str], body: dict[str, Any]) -> Any:
        r = self.server.registry
        match method, parts:
            case "GET", ["schemas", "ids", number]:
                if not number.isdigit() or not 0 < int(number) <= len(r.schemas):
                    raise Problem(404, 40403, "Schema not found")
                return {"schema": r.schemas[int(number) - 1]}
            case "GET", ["subjects"]:
                return sorted(r.subjects)
            case "GET", ["subjects", subject, "versions"]:
                return list(range(1, len(self._versions(subject)) + 1))
            case "GET", ["subjects", subject, "versions", version]:
                versions = self._versions(subject)
                index = self._version(version, versions)
                schema_id = versions[index]
                return {
                    "subject": subject,
                    "version": index + 1,
                    "id": schema_id,
                    "schema": r.schemas[schema_id - 1],
                }
            case "POST", ["subjects", subject]:
                versions = self._versions(subject)
                found = r.id_of(_schema_text(body))
                if found is None or found not in versions:
                    raise Problem(404, 40403, "Schema not found")
                return {
                    "subject": subject,
                    "version": versions.index(found) + 1,
                    "id": found,
                    "schema": r.schemas[found - 1],
                }
            case "POST", ["subjects", subject, "versions"]:
                return {"id": r.register(subject, _schema_text(body))}
            case "POST", ["compatibility", "subjects", subject, "versions", version]:
                versions = self._versions(subject)
                index = self._version(version, versions)
                problems = r.problems(subject, _schema_text(body), versions[: index + 1])
                return {"is_compatible": not problems, "messages": problems}
            case "GET", ["config"]:
                return {"compatibilityLevel": r.level}
            case "GET", ["config", subject]:
                return {"compatibilityLevel": r.levels.get(subject, r.level)}
            case "PUT", ["config", *rest] if len(rest) <= 1:
                level = body.get("compatibility")
                if level not in LEVELS:
                    raise Problem(422, 42203, "Invalid compatibility level")
                if rest:
                    r.levels[rest[0]] = level
                else:
                    r.level = level
                return {"compatibility": level}
        raise Problem(404, 404, "HTTP 404 Not Found")

    def _versions(self, subject: str) -> list[int]:
        versions = self.server.registry.subjects.get(subject)
        if not versions:
            raise Problem(404, 40401, f"Subject '{subject}' not found.")
        return versions

    @staticmethod
    def _version(version: str, versions: list[int]) -> int:
        if version in ("latest", "-1"):
            return len(versions) - 1
        if version.isdigit() and 0 < int(version) <= len(versions):
            return int(version) - 1
        raise Problem(404, 40402, "Version not found.")


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, credentials: tuple[str, str] | None) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.registry = Registry()
        self.credentials = credentials
        self.calls: list[tuple[str, str]] = []


@dataclass
class RunningRegistry:
    server: _Server

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    @property
    def registry(self) -> Registry:
        return self.server.registry

    @property
    def calls(self) -> list[tuple[str, str]]:
        return self.server.calls


@contextmanager
def running_registry(credentials: tuple[str, str] | None = None) -> Iterator[RunningRegistry]:
    server = _Server(credentials)
    thread = threading.Thread(target=server.serve_forever, name="test-registry", daemon=True)
    thread.start()
    try:
        yield RunningRegistry(server)
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
