"""How a module global changes (lint/global_writes.py, JS502): a run-once initialisation is no stale capture.

A global that functions write only under a test that it is still unset (``if _TABLE is None: _TABLE = ...``)
takes one value and keeps it: a traced read of it reads what every later call would. A global that a setter
reassigns freely is frozen by jit at its trace-time value (the twin below shows it under real jit), and stays
reported. Each program runs under real ``jax.jit`` here.
"""

from __future__ import annotations

import importlib.util

import jax.numpy as jnp
import numpy as np

import jitscope

MEMO_SRC = '''\
import jax
import numpy as np

_TABLE = None
_SCALE = None


def _table():
    global _TABLE
    if _TABLE is None:
        _TABLE = np.arange(3.0)
    return _TABLE


@jax.jit
def shifted(x):
    return x + _table()


def _ensure_scale(enabled=True):
    global _SCALE
    if _SCALE is None and enabled:
        _SCALE = 2.0


@jax.jit
def scaled(x):
    _ensure_scale()
    return x * _SCALE
'''

SETTER_SRC = '''\
import jax

_SCALE = 2.0
_OFFSET = None


def set_scale(v):
    global _SCALE
    _SCALE = v


def reset_offset(force):
    global _OFFSET
    if _OFFSET is None or force:
        _OFFSET = 1.0


@jax.jit
def scaled(x):
    return x * _SCALE


@jax.jit
def offset(x):
    reset_offset(False)
    return x + _OFFSET
'''


def _load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _lint(path):
    return [(f.code, f.location.line) for f in jitscope.lint([str(path)], config=False, jobs=1, select=["JS502"]).findings]


def test_a_memo_initialised_once_is_read_as_every_later_call_reads_it(tmp_path):
    path = tmp_path / "memo.py"
    path.write_text(MEMO_SRC)
    mod = _load(path, "memo_lookalike")
    x = jnp.ones(3)
    first = mod.shifted(x)
    mod._table()  # the memo is set: calling its builder again changes nothing
    assert np.allclose(mod.shifted(x), first) and np.allclose(first, 1.0 + np.arange(3.0))
    assert np.allclose(mod.scaled(x), 2.0) and mod._SCALE == 2.0
    assert _lint(path) == []


def test_a_global_a_setter_reassigns_is_frozen_by_jit_and_stays_reported(tmp_path):
    path = tmp_path / "setter.py"
    path.write_text(SETTER_SRC)
    mod = _load(path, "setter_lookalike")
    x = jnp.ones(2)
    assert np.allclose(mod.scaled(x), 2.0)
    mod.set_scale(5.0)
    assert np.allclose(mod.scaled(x), 2.0)  # stale: the trace froze 2.0
    # `if _OFFSET is None or force:` rewrites a set global whenever `force` is true: no initialisation
    assert _lint(path) == [("JS502", 20), ("JS502", 26)]
