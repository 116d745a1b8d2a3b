"""CPU per model call on each HTTP transport of the openai SDK, on each event loop.

``ProviderClient`` sends through the SDK's aiohttp transport; this measures why, apart from
everything else the runtime does: the same chat completion request (a 9 KB context, a JSON
answer) against the scripted server in a process of its own, 8 calls at once, the client's
process CPU per call after a warm-up. Each (transport, loop) runs in a fresh process, in
turn, ``--rounds`` times; the median of each is printed beside its rounds.

``python -m bench.provider_transport [--calls N] [--rounds R]``
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence

import openai

from article_runtime.streams.service import event_loop
from bench.cpu import cpu_seconds
from tests.support.openai_server import Reply, running_server

TRANSPORTS = ("httpx", "aiohttp")
MODEL = "bench-model"
MESSAGES = [
    {"role": "system", "content": "rules " * 500},
    {"role": "user", "content": "data " * 1200},
]
ANSWER = Reply({"keep": list(range(40)), "repairs": [], "note": "n" * 200})
WARMUP = 200
AT_ONCE = 8


async def calls(base_url: str, transport: str, n: int) -> tuple[float, str]:
    """Milliseconds of this process's CPU per call, over ``n`` calls after the warm-up, and
    the event loop that really ran them."""
    http = openai.DefaultAioHttpClient(timeout=None) if transport == "aiohttp" else None
    client = openai.AsyncOpenAI(
        base_url=base_url, api_key="k", max_retries=0, timeout=None, http_client=http
    )
    slots = asyncio.Semaphore(AT_ONCE)

    async def one() -> None:
        async with slots:
            response = await client.chat.completions.create(  # type: ignore[call-overload]
                model=MODEL,
                messages=MESSAGES,
                response_format={"type": "json_object"},
            )
            assert response.choices[0].message.content

    try:
        await asyncio.gather(*(one() for _ in range(WARMUP)))
        before = cpu_seconds(os.getpid())
        await asyncio.gather(*(one() for _ in range(n)))
        return (cpu_seconds(os.getpid()) - before) / n * 1000, event_loop.running_loop()
    finally:
        await client.close()


def measure_one(base_url: str, transport: str, loop: str, n: int) -> float:
    """One (transport, loop) in a fresh process, so neither inherits the other's state."""
    command = [sys.executable, "-m", "bench.provider_transport", "--one", transport, loop]
    command += ["--base-url", base_url, "--calls", str(n)]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    if figures["loop"] != loop:
        raise RuntimeError(f"asked for {loop}, ran on {figures['loop']}")
    return float(figures["cpu_ms_per_call"])


def measure(base_url: str, n: int, rounds: int) -> dict[tuple[str, str], list[float]]:
    """Each (transport, loop)'s CPU per call, one figure per round; the pairs take turns."""
    pairs = [(t, loop) for t in TRANSPORTS for loop in event_loop.EVENT_LOOPS]
    seen: dict[tuple[str, str], list[float]] = {pair: [] for pair in pairs}
    for _ in range(rounds):
        for transport, loop in pairs:
            seen[(transport, loop)].append(measure_one(base_url, transport, loop, n))
    return seen


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.provider_transport")
    parser.add_argument("--calls", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--one", nargs=2, metavar=("TRANSPORT", "LOOP"), help=argparse.SUPPRESS)
    parser.add_argument("--base-url", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        transport, loop = args.one
        event_loop.use(loop)
        ms, ran_on = asyncio.run(calls(args.base_url, transport, args.calls))
        print(json.dumps({"cpu_ms_per_call": ms, "loop": ran_on}))
        return 0
    started = time.monotonic()
    with running_server(repeat_last=True) as server:
        server.script(MODEL, ANSWER)
        seen = measure(server.base_url, args.calls, args.rounds)
    print(f"client CPU per model call, {args.calls} calls after {WARMUP}, {AT_ONCE} at once, "
          f"{args.rounds} rounds in turn ({time.monotonic() - started:.0f} s)")  # fmt: skip
    for (transport, loop), figures in seen.items():
        rounds = ", ".join(f"{f:.2f}" for f in figures)
        print(f"  {transport:<8} {loop:<8} median {statistics.median(figures):.2f} ms  ({rounds})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
