"""The runner's join of jit-wrapper summaries across files (lint/wrappers_join.py) reads a re-exporting file
the lint skipped (a package ``__init__`` that never mentions jax) once, however many calling files pass
through it: it used to parse that file again for every caller and every name (on jax+flax+optax ~8% of a
serial lint). Counts, not times; the findings through the re-export are the same for each caller.
"""

from __future__ import annotations

import jitscope
from jitscope.lint import wrappers_join

LOOP = '''\
import jax


def _lax(cond, body, x, n):
    for _ in range(n):
        x = jax.lax.cond(cond(x), body, lambda v: v, x)
    return x


def while_loop(cond_fun, body_fun, init_val, maxiter):
    return jax.jit(_lax, static_argnums=(0, 1, 3))(cond_fun, body_fun, init_val, maxiter)


def other_loop(cond_fun, body_fun, init_val, maxiter):
    return jax.jit(_lax, static_argnums=(0, 1, 3))(cond_fun, body_fun, init_val, maxiter)
'''

INIT = '''\
from .loop import while_loop as bounded_loop
from .loop import other_loop
'''

CALLER = '''\
import jax.numpy as jnp

from . import bounded_loop, other_loop


def _minus(v):
    return v - 1


def solve(x, tol):
    bounded_loop(lambda v: v > tol, _minus, jnp.asarray(x), 3)
    return other_loop(lambda v: v > tol, _minus, jnp.asarray(x), 3)
'''


def test_a_skipped_reexporting_file_is_parsed_once_for_every_caller(tmp_path, monkeypatch):
    pkg = tmp_path / "reexp"
    pkg.mkdir()
    files = {"__init__.py": INIT, "loop.py": LOOP, "a.py": CALLER, "b.py": CALLER, "c.py": CALLER}
    for name, text in files.items():
        (pkg / name).write_text(text)
    read: list[str] = []
    real = wrappers_join._imports_of

    def counting(path: str) -> dict:
        read.append(path.rsplit("/", 1)[-1])
        return real(path)

    monkeypatch.setattr(wrappers_join, "_imports_of", counting)
    result = jitscope.lint([str(pkg)], config=False, jobs=1, select=["JS605"])
    got = sorted((f.location.file.rsplit("/", 1)[-1], f.location.line) for f in result.findings)
    # Every caller's two calls through the re-export are found (JS605: a fresh lambda at a static position)...
    assert got == [(c, line) for c in ("a.py", "b.py", "c.py") for line in (11, 12)], got
    # ...and the skipped __init__ was read once (3 callers x 2 names = 6 reads before).
    assert read == ["__init__.py"], read
