"""A helper called from jitted code is staged even when every argument it gets is a Python value.

Under jit every ``jnp`` operation gives a tracer, constants or not (omnistaging): ``int(jnp.ceil(n / size))``
in a helper the jitted step calls with ``x.shape[0]`` raises ConcretizationTypeError, although nothing
traced reaches the helper. The call graph used to follow only calls passing traced values; it now
follows every call from staged code (lint/callgraph.py, docs/lint.md "Staged helpers"). Each claim is
run here under real ``jax.jit``; the look-alikes stay quiet and run: the same helper called only
eagerly, a NumPy version, and the same call under ``jax.vmap`` outside jit (nothing staged, the ``jnp``
results are concrete).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jitscope

SRC = '''\
import jax
import jax.numpy as jnp
import numpy as np


def n_blocks(n, size):
    return int(jnp.ceil(n / size))


def n_blocks_np(n, size):
    return int(np.ceil(n / size))


def eager_blocks(n, size):
    return int(jnp.ceil(n / size))


@jax.jit
def head(x):
    k = n_blocks(x.shape[0], 3)
    j = n_blocks_np(x.shape[0], 3)
    return x[:k] * j


def mapped(x):
    return x * n_blocks_vmapped(5, 2)


def n_blocks_vmapped(n, size):
    return int(jnp.ceil(n / size))


batched = jax.vmap(mapped)
print(eager_blocks(7, 3))
'''


def _lint(tmp_path):
    path = tmp_path / "blocks.py"
    path.write_text(SRC)
    return jitscope.lint([str(path)], config=False, jobs=1)


def test_js103_in_a_helper_the_jit_calls_with_python_values(tmp_path):
    result = _lint(tmp_path)
    got = [(f.code, f.location.line, f.severity) for f in result.findings]
    assert got == [("JS103", 7, "error")], got
    assert "traced because `head` (blocks.py:20) calls it" in result.findings[0].message


def _namespace():
    ns: dict = {}
    exec(compile(SRC.replace("print(", "(lambda *a: None)("), "blocks.py", "exec"), ns)
    return ns


def test_the_flagged_helper_raises_under_real_jit_and_the_look_alikes_run():
    ns = _namespace()
    with pytest.raises(jax.errors.ConcretizationTypeError):
        ns["head"](jnp.ones(7))
    assert ns["eager_blocks"](7, 3) == 3  # eager: a concrete array, int() works
    assert ns["batched"](jnp.ones((2, 3))).shape == (2, 3)  # vmap outside jit stages nothing
    assert jax.jit(lambda x: x * ns["n_blocks_np"](x.shape[0], 3))(jnp.ones(7)).shape == (7,)
    assert int(np.ceil(7 / 3)) == 3
