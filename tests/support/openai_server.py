"""A scripted OpenAI chat-completions server: real HTTP, so provider tests meet real failures.

Provider policy (spec 10) is about how the client reacts to timeouts, dropped connections, 429s
and 5xx. A mocked transport cannot show those faithfully, so tests script a real aiohttp server
per model name and run the official ``openai`` client against it::

    with running_server() as server:
        server.script("cheap-a", Status(429, headers={"Retry-After": "0"}), Reply({"tags": []}))
        server.script("cheap-b", Drop())
        client = openai.OpenAI(base_url=server.base_url, api_key="sk-test", max_retries=0)
        ...
        assert [c.model for c in server.calls] == ["cheap-a", "cheap-a"]

Each request takes the next action from its model's queue; a model with nothing left gets a 500
and is listed in ``unscripted``. Request bodies are recorded in memory and never logged.

When many articles are in flight at once, a FIFO per model cannot say which answer belongs to
which request. A responder answers by content instead; it is consulted first, and None falls
through to the model's queue::

    def by_content(model: str, body: dict[str, Any]) -> Action | None:
        return Reply({"tags": []}) if "case-7" in json.dumps(body["messages"]) else None

    server.respond_with(by_content)

The responder runs on the server's event loop (its own thread under ``running_server``), so it
must be quick and must not block; whatever it shares with the test needs its own care. If it
raises or returns something that is not an action, the request gets a 500, is listed in
``unscripted`` and the exception in ``responder_errors``.

Command line (for trying the CLI by hand)::

    python -m tests.support.openai_server --script cases.json [--port N] [--repeat]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import count
from pathlib import Path
from typing import Any, TypeAlias

from aiohttp import web

__all__ = [
    "Action",
    "Call",
    "Delay",
    "Drop",
    "Reply",
    "Responder",
    "ScriptedOpenAIServer",
    "Status",
    "Trickle",
    "action_from_json",
    "delayed",
    "load_script",
    "main",
    "running_server",
]

_log = logging.getLogger(__name__)
_SHUTDOWN_TIMEOUT = 1.0  # seconds; a test must never wait on a slow scripted answer at exit
_MAX_REQUEST_BYTES = 64 * 1024 * 1024  # a request body the server reads (aiohttp: 1 MiB)


@dataclass(frozen=True)
class Reply:
    """A 200 chat completion. Dict content is JSON-encoded, as a JSON-mode model would answer."""

    content: str | Mapping[str, Any]
    prompt_tokens: int = 11
    completion_tokens: int = 7
    finish_reason: str = "stop"

    @property
    def text(self) -> str:
        if isinstance(self.content, str):
            return self.content
        return json.dumps(self.content, ensure_ascii=False)


@dataclass(frozen=True)
class Status:
    """An HTTP error; ``body`` None means an OpenAI-shaped ``{"error": {...}}`` body."""

    code: int
    headers: Mapping[str, str] = field(default_factory=dict)
    body: str | Mapping[str, Any] | None = None


@dataclass(frozen=True)
class Delay:
    """Wait, then perform ``then``: a slow answer that outlives the client's timeout."""

    seconds: float
    then: Action


@dataclass(frozen=True)
class Hold:
    """Wait until ``release`` is set (by the test, or another request's responder), at most
    ``at_most_s``, then perform ``then``: an answer ordered after something else happened."""

    release: threading.Event
    then: Action
    at_most_s: float = 60.0


@dataclass(frozen=True)
class Drop:
    """Read the request, then close the connection without a response (a connection error)."""


@dataclass(frozen=True)
class Trickle:
    """Send ``then`` (a reply) one chunk of ``chunk`` bytes every ``every_s`` seconds: headers
    at once, the body slowly, so no single read ever waits long (a client timeout per read
    never fires; only a deadline on the whole call does)."""

    every_s: float
    then: Reply
    chunk: int = 1


Action: TypeAlias = Reply | Status | Delay | Hold | Drop | Trickle
_ACTION_TYPES = (Reply, Status, Delay, Hold, Drop, Trickle)
Responder: TypeAlias = Callable[[str, dict[str, Any]], Action | None]
"""``(model, request body) -> action``, or None to fall through to the model's queue."""


def delayed(respond: Responder, seconds: float) -> Responder:
    """``respond``, with every answer it gives taking ``seconds`` (a slow model)."""

    def slowly(model: str, body: dict[str, Any]) -> Action | None:
        action = respond(model, body)
        return None if action is None else Delay(seconds, action)

    return slowly


@dataclass(frozen=True)
class Call:
    """One request as the server saw it. ``action`` is None when the script had no answer.

    ``max_tokens`` falls back to ``max_completion_tokens`` (newer clients send that name);
    ``received_at`` is ``time.monotonic()``, to measure backoff between attempts.
    """

    model: str | None
    path: str
    messages: list[dict[str, Any]]
    response_format: dict[str, Any] | None
    temperature: float | None
    max_tokens: int | None
    headers_seen: frozenset[str]
    authorization: str | None
    received_at: float
    body: dict[str, Any] | None
    action: Action | None


class ScriptedOpenAIServer:
    """Per-model action queues plus the recorded calls; the aiohttp app lives here."""

    def __init__(self, *, repeat_last: bool = False) -> None:
        self._repeat_last = repeat_last
        self._lock = threading.Lock()  # handlers run on the server loop, tests read from theirs
        self._queues: dict[str, deque[Action]] = {}
        self._calls: list[Call] = []
        self._responder: Responder | None = None
        self._responder_errors: list[Exception] = []
        self._refused: dict[str, set[str]] = {}
        self._ids = count(1)
        self._runner: web.AppRunner | None = None
        self._base_url: str | None = None

    # -- scripting and inspection (any thread) -------------------------------------------------

    def script(self, model: str, *actions: Action) -> None:
        """Append actions to ``model``'s queue; they are served in order, one per request."""
        for action in actions:
            _check_action(action)
        with self._lock:
            self._queues.setdefault(model, deque()).extend(actions)

    def refuse(self, model: str, *params: str) -> None:
        """Answer 400 to requests for ``model`` that carry any of ``params``, as the real API
        does for parameters a model does not support (``temperature`` on gpt-5 models)."""
        with self._lock:
            self._refused.setdefault(model, set()).update(params)

    def respond_with(self, responder: Responder | None) -> None:
        """Answer chat requests by content before the queues; None removes the responder."""
        with self._lock:
            self._responder = responder

    @property
    def responder_errors(self) -> list[Exception]:
        """What the responder raised (or a TypeError for a non-action it returned), in order."""
        with self._lock:
            return list(self._responder_errors)

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT/v1``, what ``openai.OpenAI(base_url=...)`` expects."""
        if self._base_url is None:
            raise RuntimeError("the server is not running")
        return self._base_url

    @property
    def calls(self) -> list[Call]:
        with self._lock:
            return list(self._calls)

    def calls_for(self, model: str) -> list[Call]:
        return [call for call in self.calls if call.model == model]

    @property
    def unscripted(self) -> list[Call]:
        """Calls nobody scripted an answer for (unknown or exhausted model, unreadable body)."""
        return [call for call in self.calls if call.action is None]

    def pending(self) -> dict[str, list[Action]]:
        """Scripted actions not served yet, by model; empty when the script was used up."""
        with self._lock:
            return {model: list(queue) for model, queue in self._queues.items() if queue}

    # -- lifecycle (on the server's event loop) ------------------------------------------------

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> None:
        app = web.Application(client_max_size=_MAX_REQUEST_BYTES)  # a 5 MiB page's context
        for prefix in ("/v1", ""):
            app.router.add_post(f"{prefix}/chat/completions", self._chat)
            app.router.add_get(f"{prefix}/models", self._models)
        # handler_cancellation: a client that gave up (timeout) ends its Delay at once.
        runner = web.AppRunner(
            app, access_log=None, handler_cancellation=True, shutdown_timeout=_SHUTDOWN_TIMEOUT
        )
        await runner.setup()
        self._runner = runner
        await web.TCPSite(runner, host, port).start()
        bound_host, bound_port = runner.addresses[0][:2]
        self._base_url = f"http://{bound_host}:{bound_port}/v1"

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
        self._base_url = None

    # -- handlers ------------------------------------------------------------------------------

    def _respond(self, model: str, body: dict[str, Any]) -> Action | None:
        """The responder's action; errors are kept for the test and answered with a 500."""
        with self._lock:
            responder = self._responder
        if responder is None:
            return None
        try:
            action = responder(model, body)
            if action is not None:
                _check_action(action)
        except Exception as exc:  # the test reads it from responder_errors
            with self._lock:
                self._responder_errors.append(exc)
            raise _ResponderFailed from exc
        return action

    def _next_action(self, model: str) -> Action | None:
        with self._lock:
            queue = self._queues.get(model)
            if not queue:
                return None
            if self._repeat_last and len(queue) == 1:
                return queue[0]
            return queue.popleft()

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        received_at = time.monotonic()
        body = _json_object(await request.read())
        model = body.get("model") if body is not None else None
        model = model if isinstance(model, str) else None
        action: Action | None = None
        failed = False
        refused = self._refusal(model or "", body) if body is not None else None
        if refused is not None:
            action = Status(400)  # the API refuses before any scripted behaviour
        elif body is not None and model is not None:
            try:
                action = self._respond(model, body)
            except _ResponderFailed:
                failed = True
            if action is None and not failed:
                action = self._next_action(model)
        call = _record(request, body, model, action, received_at)
        with self._lock:
            self._calls.append(call)
        _log.info("%s model=%s -> %s", request.path, model, _describe(action))
        if body is None:
            return _error(400, "request body is not a JSON object", "invalid_request_error")
        if refused is not None:
            return refused
        if failed:
            return _error(500, f"the responder failed for model {model!r}", "responder_error")
        if action is None:
            return _error(500, f"unscripted: no action left for model {model!r}", "unscripted")
        response = await self._perform(request, action, model or "")
        # The client exposes this as ``request_id``; the runtime may log it, so make it real.
        response.headers.setdefault("x-request-id", f"req_scripted_{next(self._ids)}")
        return response

    def _refusal(self, model: str, body: dict[str, Any]) -> web.Response | None:
        """The API's 400 for a parameter the model does not support, if the body has one."""
        with self._lock:
            refused = sorted(self._refused.get(model, set()) & body.keys())
        if not refused:
            return None
        param = refused[0]
        message = (
            f"Unsupported value: '{param}' does not support {body[param]!r} with this model. "
            "Only the default value is supported."
        )
        error = {
            "message": message,
            "type": "invalid_request_error",
            "param": param,
            "code": "unsupported_value",
        }
        return web.json_response({"error": error}, status=400)

    async def _perform(
        self, request: web.Request, action: Action, model: str
    ) -> web.StreamResponse:
        if isinstance(action, Delay):
            await asyncio.sleep(action.seconds)
            return await self._perform(request, action.then, model)
        if isinstance(action, Hold):
            await asyncio.to_thread(action.release.wait, action.at_most_s)
            return await self._perform(request, action.then, model)
        if isinstance(action, Trickle):
            return await self._trickle(request, action, model)
        if isinstance(action, Drop):
            # Closing the transport makes aiohttp's write of the response below fail with a
            # ConnectionError, which it treats as a premature disconnect: nothing is sent.
            if request.transport is not None:
                request.transport.close()
            return web.Response(status=204)
        if isinstance(action, Status):
            if action.body is None:
                response = _error(action.code, f"scripted status {action.code}", "scripted")
            elif isinstance(action.body, str):
                response = web.Response(status=action.code, text=action.body)
            else:
                response = web.json_response(dict(action.body), status=action.code)
            response.headers.update(action.headers)
            return response
        return web.json_response(self._completion(action, model))

    async def _trickle(
        self, request: web.Request, action: Trickle, model: str
    ) -> web.StreamResponse:
        body = json.dumps(self._completion(action.then, model)).encode()
        response = web.StreamResponse(headers={"Content-Type": "application/json"})
        response.content_length = len(body)
        response.headers["x-request-id"] = f"req_scripted_{next(self._ids)}"
        await response.prepare(request)
        for start in range(0, len(body), action.chunk):
            await response.write(body[start : start + action.chunk])
            await asyncio.sleep(action.every_s)
        await response.write_eof()
        return response

    def _completion(self, reply: Reply, model: str) -> dict[str, Any]:
        return {
            "id": f"chatcmpl-scripted-{next(self._ids)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": reply.text},
                    "finish_reason": reply.finish_reason,
                }
            ],
            "usage": {
                "prompt_tokens": reply.prompt_tokens,
                "completion_tokens": reply.completion_tokens,
                "total_tokens": reply.prompt_tokens + reply.completion_tokens,
            },
        }

    async def _models(self, request: web.Request) -> web.StreamResponse:
        with self._lock:
            names = sorted(self._queues)
        data = [{"id": n, "object": "model", "created": 0, "owned_by": "scripted"} for n in names]
        return web.json_response({"object": "list", "data": data})


class _ResponderFailed(Exception):
    """The responder raised; the cause is in ``responder_errors``."""


def _check_action(action: object) -> None:
    if not isinstance(action, _ACTION_TYPES):
        raise TypeError(f"not a scripted action: {action!r}")
    if isinstance(action, Delay | Hold | Trickle):
        _check_action(action.then)


def _json_object(raw: bytes) -> dict[str, Any] | None:
    try:
        value = json.loads(raw)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _record(
    request: web.Request,
    body: dict[str, Any] | None,
    model: str | None,
    action: Action | None,
    received_at: float,
) -> Call:
    fields = body or {}
    messages = fields.get("messages")
    max_tokens = fields.get("max_tokens", fields.get("max_completion_tokens"))
    return Call(
        model=model,
        path=request.path,
        messages=messages if isinstance(messages, list) else [],
        response_format=fields.get("response_format"),
        temperature=fields.get("temperature"),
        max_tokens=max_tokens,
        headers_seen=frozenset(name.lower() for name in request.headers),
        authorization=request.headers.get("Authorization"),
        received_at=received_at,
        body=body,
        action=action,
    )


def _describe(action: Action | None) -> str:
    """Action kind for the log line; never the content."""
    if action is None:
        return "unscripted"
    if isinstance(action, Status):
        return f"status {action.code}"
    if isinstance(action, Delay):
        return f"delay {action.seconds}s then {_describe(action.then)}"
    if isinstance(action, Hold):
        return f"hold then {_describe(action.then)}"
    if isinstance(action, Trickle):
        return f"trickle every {action.every_s}s then {_describe(action.then)}"
    return type(action).__name__.lower()


def _error(status: int, message: str, kind: str) -> web.Response:
    error = {"message": message, "type": kind, "param": None, "code": None}
    return web.json_response({"error": error}, status=status)


@contextmanager
def running_server(*, repeat_last: bool = False) -> Iterator[ScriptedOpenAIServer]:
    """Serve on 127.0.0.1:<free port> from a background thread, for synchronous tests.

    On exit the site is cleaned up, the loop stopped and closed and the thread joined, so
    nothing leaks into the next test (warnings are errors there).
    """
    server = ScriptedOpenAIServer(repeat_last=repeat_last)
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, name="scripted-openai-server", daemon=True)
    thread.start()
    try:
        asyncio.run_coroutine_threadsafe(server.start(), loop).result(timeout=10)
        yield server
    finally:
        asyncio.run_coroutine_threadsafe(_shutdown(server), loop).result(timeout=10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=10)
        loop.close()


async def _shutdown(server: ScriptedOpenAIServer) -> None:
    await server.stop()
    current = asyncio.current_task()
    leftovers = [task for task in asyncio.all_tasks() if task is not current]
    for task in leftovers:
        task.cancel()
    await asyncio.gather(*leftovers, return_exceptions=True)
    await asyncio.get_running_loop().shutdown_asyncgens()


# -- JSON script form (command line) -----------------------------------------------------------

_KINDS = ("reply", "reply_text", "status", "delay", "drop", "trickle")


def action_from_json(spec: object) -> Action:
    """Decode one action: ``{"reply": ...}``, ``{"reply_text": "..."}``, ``{"status": 429,
    "headers": {...}}``, ``{"delay": 3, "then": {...}}``, ``{"drop": true}``,
    ``{"trickle": 0.5, "then": {"reply": ...}, "chunk": 1}``.

    Raises:
        ValueError: the object does not name exactly one known action kind.
    """
    if not isinstance(spec, dict):
        raise ValueError(f"an action must be a JSON object, got {spec!r}")
    kinds = [kind for kind in _KINDS if kind in spec]
    if len(kinds) != 1:
        raise ValueError(f"an action needs exactly one of {', '.join(_KINDS)}: {spec!r}")
    kind = kinds[0]
    if kind in ("reply", "reply_text"):
        content = spec[kind]
        allowed = str if kind == "reply_text" else str | dict
        if not isinstance(content, allowed):
            raise ValueError(f"{kind} has the wrong type: {spec!r}")
        tokens = {k: int(spec[k]) for k in ("prompt_tokens", "completion_tokens") if k in spec}
        return Reply(content, finish_reason=str(spec.get("finish_reason", "stop")), **tokens)
    if kind == "status":
        headers = {str(k): str(v) for k, v in dict(spec.get("headers") or {}).items()}
        return Status(int(spec["status"]), headers=headers, body=spec.get("body"))
    if kind == "delay":
        return Delay(float(spec["delay"]), then=action_from_json(spec.get("then")))
    if kind == "trickle":
        then = action_from_json(spec.get("then"))
        if not isinstance(then, Reply):
            raise ValueError(f"trickle needs a reply to send: {spec!r}")
        return Trickle(float(spec["trickle"]), then=then, chunk=int(spec.get("chunk", 1)))
    return Drop()


def load_script(path: Path) -> dict[str, list[Action]]:
    """Read ``{"model": [action, ...], ...}`` from a JSON file.

    Raises:
        OSError: the file cannot be read.
        ValueError: it is not valid JSON or not in the form above.
    """
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise ValueError("the script must map model names to lists of actions")
    script: dict[str, list[Action]] = {}
    for model, actions in data.items():
        if not isinstance(actions, list):
            raise ValueError(f"actions for {model!r} must be a list")
        script[model] = [action_from_json(action) for action in actions]
    return script


async def _serve_until_signal(server: ScriptedOpenAIServer, host: str, port: int) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    await server.start(host, port)
    try:
        print(server.base_url, flush=True)
        await stop.wait()
    finally:
        await server.stop()


def main(argv: Sequence[str] | None = None) -> int:
    """Serve a JSON script until SIGINT/SIGTERM; the base URL goes to stdout, one line per
    request (path, model, action kind; no bodies) to stderr."""
    parser = argparse.ArgumentParser(
        prog="python -m tests.support.openai_server",
        description="Scripted OpenAI-compatible chat-completions server for manual runs.",
    )
    parser.add_argument("--script", type=Path, required=True, help="JSON: model -> actions")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument(
        "--repeat", action="store_true", help="repeat each model's last action forever"
    )
    parser.add_argument(
        "--refuse",
        action="append",
        default=[],
        metavar="MODEL:PARAM",
        help="answer 400 when MODEL is sent PARAM (e.g. gpt-5-mini:temperature); repeatable",
    )
    args = parser.parse_args(argv)
    try:
        script = load_script(args.script)
    except (OSError, ValueError, TypeError, KeyError) as exc:
        parser.error(f"cannot load {args.script}: {exc}")
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(asctime)s %(message)s")
    server = ScriptedOpenAIServer(repeat_last=args.repeat)
    for model, actions in script.items():
        server.script(model, *actions)
    for rule in args.refuse:
        model, _, param = rule.rpartition(":")
        server.refuse(model, param)
    asyncio.run(_serve_until_signal(server, args.host, args.port))
    return 0


if __name__ == "__main__":
    sys.exit(main())
