"""``bench.profile_summary``: a sample goes to the part of the work it is in, and the event
loop under a worker's entry reads as the event loop, as it does in the in-process run."""

from __future__ import annotations

from bench.profile_summary import OTHER, part_of

ENTRY = "Worker.execute_from_commandline (mode/worker.py:264)"
LOOP = ["BaseEventLoop.run_forever (asyncio/base_events.py:607)", "_run_once (asyncio/x.py:1)"]


def test_the_loop_under_a_workers_entry_is_the_event_loop() -> None:
    frames = ["main (streams/worker/main.py:122)", ENTRY, *LOOP, "select (selectors.py:468)"]
    assert part_of(frames) == OTHER


def test_faust_code_run_by_the_loop_is_faust() -> None:
    frames = [ENTRY, *LOOP, "Stream._c_aiter (faust/streams.py:1180)", "len (builtins:0)"]
    assert part_of(frames) == "Faust streams, agents, tables"


def test_a_named_part_wins_over_the_library_nearest_the_leaf() -> None:
    frames = [ENTRY, *LOOP, "build_candidates (article_runtime/x.py:1)", "f (selectolax/y.py:2)"]
    assert part_of(frames) == "candidates: build the candidate set"
