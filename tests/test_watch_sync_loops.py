"""JW502's loop model: a sync's previous iteration is the previous read of the same line from the same program stack,
and a sync is a benchmark's own only when a timed region is around that one sync.

Review of s35-watch8b: (1) a helper line two callers reach in one loop (``log(s); log(m)``) alternated stacks, so no
read repeated the previous one and the line was silent; the previous read is now kept per (line, stack). (2) an
elapsed-time print (``time.time() - start``, ``start`` read before the loop) counted as a benchmark timing each step
and silenced JW502; a region counts only when it began after the sync before the previous one (it encloses one sync).
The twins: a per-iteration benchmark (``t0`` each step; or ``now - last; last = now``) stays quiet.
"""

from __future__ import annotations

import time

import jitscope


def _jw502(run) -> list:
    return [(f.location.line, f.details["repeats"], f.details["timed"]) for f in run.findings if f.code == "JW502"]


def _line(marker: str) -> int:
    for i, text in enumerate(open(__file__).read().splitlines(), 1):
        if text.rstrip().endswith(f"# {marker}"):
            return i
    raise AssertionError(marker)


def log(v):
    return float(v)  # helper-read


def two_callers(steps=60):
    from heavy_step import heavy_step, next_batch, start

    w = start()
    for _ in range(steps):
        next_batch()
        w, s = heavy_step(w)
        log(s)
        log(w[0, 0])


def elapsed_print(steps=60):
    from heavy_step import heavy_step, next_batch, start

    w = start()
    begun = time.time()
    for i in range(steps):
        next_batch()
        w, s = heavy_step(w)
        loss = float(s)  # elapsed-read
        _ = f"step {i} loss {loss:.3f} {time.time() - begun:.1f}s"


def timed_steps(steps=60):
    from heavy_step import heavy_step, next_batch, start

    w = start()
    times = []
    for _ in range(steps):
        next_batch()
        t0 = time.perf_counter()
        w, s = heavy_step(w)
        float(s)
        times.append(time.perf_counter() - t0)


def ticked_steps(steps=60):
    from heavy_step import heavy_step, next_batch, start

    w = start()
    last = time.perf_counter()
    for _ in range(steps):
        next_batch()
        w, s = heavy_step(w)
        float(s)
        now = time.perf_counter()
        _ = now - last
        last = now


def test_a_helper_line_two_callers_reach_in_one_loop_is_a_loop(fixtures_on_path):
    with jitscope.watch(slow_compile=600) as w:
        two_callers()
    found = _jw502(w.result())
    # Each caller's stack repeats 59 times: 118 iterations' syncs at the helper's line.
    assert [(line, repeats) for line, repeats, _ in found] == [(_line("helper-read"), 118)], found


def test_an_elapsed_time_print_is_no_benchmark_and_a_timed_step_is(fixtures_on_path):
    with jitscope.watch(slow_compile=600) as w:
        elapsed_print()
        timed_steps()
        ticked_steps()
    found = _jw502(w.result())
    # Only the elapsed print's loop: its region began before the loop (at most its first repeat counts as timed).
    assert [line for line, _, _ in found] == [_line("elapsed-read")], found
    assert found[0][2] <= 1, found
