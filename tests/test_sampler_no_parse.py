"""watch's stack sampler never parses source on its own thread.

CPython before 3.11.8 / 3.12.1 keeps one AST-conversion depth counter per interpreter (gh-106905): an
``ast.parse`` on a background thread while the program's thread parses makes the program's raise a spurious
``SystemError: AST constructor recursion depth mismatch`` (seen under watch: a warm-up record lost a tree,
tests/test_warmup_training.py, 1 run in ~30). So the sampler files lines only, and their callees are read on
the program's thread when the run's findings are made."""

from __future__ import annotations

import ast
import threading

import jax.numpy as jnp

import jitscope


def _eager_loop(n: int) -> None:
    x = jnp.ones(8)
    for _ in range(n):
        x = jnp.sin(x) + jnp.cos(x) * 0.5  # eager ops: many small dispatches the sampler sees


def test_the_sampler_thread_parses_nothing_and_dispatch_findings_still_name_callees(monkeypatch):
    threads: list[str] = []
    real_parse = ast.parse

    def parse(*args, **kwargs):
        threads.append(threading.current_thread().name)
        return real_parse(*args, **kwargs)

    monkeypatch.setattr(ast, "parse", parse)
    with jitscope.watch(slow_compile=600) as w:
        _eager_loop(3000)
    result = w.result()
    assert "jitscope-dispatch-sampler" not in threads, threads
    assert threading.main_thread().name in threads  # the callees were read, on the program's thread
    jw504 = [f for f in result.findings if f.code == "JW504"]
    for f in jw504:
        assert f.details.get("callees"), f.details
