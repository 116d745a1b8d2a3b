"""The warm process: serves prompt renders and verdicts to Promptfoo's short-lived Python calls.

Promptfoo 0.121.20 starts a new Python process for every prompt function and every Python
assertion; importing the runtime and building a candidate set there costs one to two seconds
each, while the work itself takes milliseconds. So the runner (``evals.run``), which has
already imported everything and built every case to check staleness, answers those calls
itself: each Promptfoo process only connects to a Unix socket named in ``EVALS_WARM_SOCKET``,
sends the function's name and arguments as JSON and prints the answer. Without the variable
(Promptfoo run by hand), ``call`` runs the same function in its own process: same verdicts,
only slower. A failing or unreachable warm process fails the call, never falls back silently.
"""

from __future__ import annotations

import importlib
import json
import os
import shutil
import socket
import socketserver
import subprocess
import tempfile
import traceback
from pathlib import Path
from typing import Any

SOCKET_ENV = "EVALS_WARM_SOCKET"
FUNCTIONS = {  # what a Promptfoo process may ask for: name -> (module, function)
    "render": ("evals.prompts", "runtime_messages"),
    "judge": ("evals.assertions.judge", "judge"),
}
TIMEOUT_S = 120.0


def _function(name: str) -> Any:
    module, attribute = FUNCTIONS[name]
    return getattr(importlib.import_module(module), attribute)


def _read_all(connection: socket.socket) -> bytes:
    chunks = []
    while chunk := connection.recv(1 << 16):
        chunks.append(chunk)
    return b"".join(chunks)


def call(name: str, *args: Any) -> Any:
    """``FUNCTIONS[name](*args)``, in the warm process when one serves this run."""
    address = os.environ.get(SOCKET_ENV)
    if not address:
        return _function(name)(*args)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
        connection.settimeout(TIMEOUT_S)
        connection.connect(address)
        connection.sendall(json.dumps({"function": name, "args": args}).encode("utf-8"))
        connection.shutdown(socket.SHUT_WR)
        reply = json.loads(_read_all(connection))
    if "error" in reply:
        raise RuntimeError(f"evals warm process, {name}: {reply['error']}")
    return reply["result"]


class _Handler(socketserver.BaseRequestHandler):
    def handle(self) -> None:
        self.request.settimeout(TIMEOUT_S)
        try:
            request = json.loads(_read_all(self.request))
            reply = {"result": _function(request["function"])(*request["args"])}
        except Exception:  # the calling Promptfoo process reports it; the run goes on
            reply = {"error": traceback.format_exc(limit=8)}
        self.request.sendall(json.dumps(reply, ensure_ascii=False).encode("utf-8"))


class _Server(socketserver.UnixStreamServer):
    request_queue_size = 64  # Promptfoo runs several tests at once; the rest wait their turn
    timeout = 0.1  # how often serve_while looks at the Promptfoo process


class WarmServer:
    """A socket in a private temporary directory, served one request at a time."""

    def __enter__(self) -> WarmServer:
        self._directory = Path(tempfile.mkdtemp(prefix="evals-warm-"))
        self.address = str(self._directory / "socket")
        self._server = _Server(self.address, _Handler)
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.server_close()
        shutil.rmtree(self._directory, ignore_errors=True)

    def serve_while(self, process: subprocess.Popen[bytes]) -> int:
        """Answer calls until ``process`` exits; its exit code."""
        while process.poll() is None:
            self._server.handle_request()
        return process.returncode
