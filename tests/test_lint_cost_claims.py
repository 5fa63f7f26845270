"""Cost findings that are advice only when their premise is proven (issue #25, severity by proof).

Each claim is checked under real ``jax.jit`` on CPU: what the flagged code does, and that the case the
finding is quiet (or ``info``) on is one where the advice would not help.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest

from jitscope.lint import lint_source


def _found(src: str, code: str) -> list[tuple[int, str, bool]]:
    return [(f.location.line, f.severity, f.fix is not None) for f in lint_source(src, "m.py") if f.code == code]


# -- JS201: builtin `sum` unrolls over an ARRAY; over a short list of arrays it is k-1 adds ---------------

JS201_SRC = '''import jax
import jax.numpy as jnp


@jax.jit
def total_of_terms(terms):
    return sum(terms)


@jax.jit
def total_of_array(x: jax.Array):
    return sum(x)


@jax.jit
def total_of_rows(x):
    return sum(x * 2.0)
'''


def test_js201_sum_over_a_list_of_ragged_arrays_is_right_and_only_info():
    ns: dict = {}
    exec(compile(JS201_SRC, "m.py", "exec"), ns)
    terms = [jnp.ones(3), jnp.ones((2, 3)), jnp.ones(1)]  # three shapes: broadcasting adds, k ops
    assert ns["total_of_terms"](terms).shape == (2, 3)
    with pytest.raises((TypeError, ValueError)):  # what `jnp.sum` would need first: one array of them
        jnp.sum(jnp.asarray(terms), axis=0)
    jaxpr = jax.make_jaxpr(lambda t: sum(t))(terms)
    assert sum(e.primitive.name == "add" for e in jaxpr.eqns) == len(terms)  # 0 + t0 + t1 + t2
    # an unannotated parameter may be such a list: info, no fix; a proven array: warning with the fix
    assert _found(JS201_SRC, "JS201") == [(7, "info", False), (12, "warning", True), (17, "warning", True)]


@pytest.mark.parametrize("n", [8, 64])
def test_js201_sum_over_an_array_unrolls_one_op_per_row(n):
    x = jnp.ones((n, 4))
    unrolled = jax.make_jaxpr(lambda x: sum(x))(x)
    assert len(unrolled.eqns) >= n  # a slice (and squeeze) and an add per row: grows with n
    assert len(jax.make_jaxpr(lambda x: jnp.sum(x, axis=0))(x).eqns) <= 2
