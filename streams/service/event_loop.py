"""The worker's event loop: uvloop (libuv, in C) unless an operator asks for asyncio's own.

Every fetch, table write, produce, acknowledgement and model call in the worker is a chain of
the loop's callbacks, futures and socket writes; uvloop does the loop's part in C. In
``make bench-stream`` the worker settled about 8% more articles a second on it, with about
6% less CPU per article. asyncio's loop stays one setting away, for its debug mode
(``PYTHONASYNCIODEBUG=1``) or a platform uvloop does not build on.
"""

from __future__ import annotations

import asyncio

import uvloop

EVENT_LOOPS = ("uvloop", "asyncio")


def use(name: str) -> None:
    """Make every event loop created from now on (the worker's, Faust's consumer thread's)
    ``name``'s; call it before anything creates one."""
    asyncio.set_event_loop_policy(uvloop.EventLoopPolicy() if name == "uvloop" else None)


def running_loop() -> str:
    """The library of the loop running now (``uvloop`` or ``asyncio``), as the health view
    reports it: what the worker really runs on, not what it was asked for."""
    return type(asyncio.get_running_loop()).__module__.partition(".")[0]
