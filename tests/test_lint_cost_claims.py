"""Cost findings that are advice only when their premise is proven (issue #25, severity by proof).

Each claim is checked under real ``jax.jit`` on CPU: what the flagged code does, and that the case the
finding is quiet (or ``info``) on is one where the advice would not help.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest
from test_lint_outer_trace import _compiles

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


# -- JS501: a module-level array baked in costs by its bytes; under 1 MiB it is cheaper than passing it ---

JS501_SRC = '''import jax
import jax.numpy as jnp
import numpy as np

N = 64
MOVES = [[0, 1], [1, 0], [0, -1], [-1, 0]]
SMALL = jnp.arange(N * N, dtype=jnp.float32)
TABLE = np.array(MOVES)
MASK = np.zeros((N, N, N), dtype=np.bool_)
BIG = jnp.arange(1 << 20, dtype=jnp.float32)
LOADED = jnp.asarray(np.asarray(jnp.ones((3,)).tolist()))


@jax.jit
def step(x):
    return (x * SMALL).sum() + (x * TABLE).sum() + (x * MASK).sum() + (x * BIG).sum() + (x * LOADED).sum()
'''


def test_js501_reports_by_bytes_known_from_the_source_and_says_when_the_size_is_a_guess():
    found = {f.details["var"]: f.severity for f in lint_source(JS501_SRC, "m.py") if f.code == "JS501"}
    # 16 KiB, 32 bytes and 256 KiB of bools are quiet; 4 MiB is a warning; a size the source hides is info
    assert found == {"BIG": "warning", "LOADED": "info"}
    ns: dict = {}
    exec(compile(JS501_SRC, "m.py", "exec"), ns)
    # what the finding claims, under real jit: each table read is a constant of the lowered program, its
    # bytes in the program (1024x1024 float32 written out), and the value is the one at trace time
    text = ns["step"].lower(jnp.float32(1)).as_text()
    assert "tensor<1048576xf32>" in text and "tensor<4096xf32>" in text and "tensor<64x64x64xi1>" in text
    want = float(ns["SMALL"].sum() + ns["TABLE"].sum() + ns["BIG"].sum() + 3)
    assert float(ns["step"](jnp.float32(1))) == pytest.approx(want, rel=1e-5)
    assert len(text) > 1 << 20  # the 4 MiB table is written into the program; the small ones are not close
    small = jax.jit(lambda x: (x * ns["SMALL"]).sum() + (x * ns["MASK"]).sum()).lower(jnp.float32(1)).as_text()
    assert len(small) < len(text) // 10


# -- JS203: a fresh function per iteration; advice only when hoisting keeps the program ----------------

JS203_SRC = '''import jax
import jax.numpy as jnp


def plain(x):
    for _ in range(3):
        x = jax.jit(lambda v: v * 2.0 + 1.0)(x)
    return x


def shifted(x):
    for t in range(3):
        x = jax.jit(lambda v: v + t)(x)
    return x


def per_function(x):
    out = []
    for fn in (jnp.sin, jnp.cos):
        out.append(jax.jit(lambda v, fn=fn: fn(v).sum())(x))
    return out


def through_helper(x):
    for s in (1.0, 2.0):
        def scale(v):
            return v * s

        def apply(v):
            return scale(v) + 1.0
        x = jax.jit(apply)(x)
    return x
'''


def test_js203_hoisting_is_advice_only_when_the_function_captures_nothing_of_the_loop():
    found = {f.location.line: (f.severity, f.details.get("captures")) for f in lint_source(JS203_SRC, "m.py")
             if f.code == "JS203"}
    assert found == {7: ("warning", None), 13: ("info", "t"), 20: ("info", "fn"), 31: ("info", "scale")}
    ns: dict = {}
    exec(compile(JS203_SRC, "m.py", "exec"), ns)
    x = jnp.arange(3.0) + 0.125  # a shape no other test compiles for
    # the warning's advice: hoisted, one compile instead of three, same values
    hoisted = jax.jit(lambda v: v * 2.0 + 1.0)
    assert _compiles(lambda: ns["plain"](x)) == 3

    def run_hoisted():
        y = x
        for _ in range(3):
            y = hoisted(y)
        return y
    assert _compiles(run_hoisted) == 1 and run_hoisted().tolist() == ns["plain"](x).tolist()
    # capturing `t`: hoisting as is would be wrong; as a traced argument one compile serves (the condition)
    assert _compiles(lambda: ns["shifted"](x)) == 3
    add = jax.jit(lambda v, t: v + t)

    def run_arg():
        y = x
        for t in range(3):
            y = add(y, t)
        return y
    assert _compiles(run_arg) == 1 and run_arg().tolist() == ns["shifted"](x).tolist()
    # capturing a function: it must be static, a compile per distinct value either way
    assert _compiles(lambda: ns["per_function"](x)) == 2
    apply = jax.jit(lambda v, fn: fn(v).sum(), static_argnums=1)
    assert _compiles(lambda: [apply(x, fn) for fn in (jnp.sin, jnp.cos)]) == 2
    # a helper def'd in the loop carries the iteration's value into the jitted function: a compile each
    assert _compiles(lambda: ns["through_helper"](x)) == 2


# -- JS202: a loop over an array's axes (`range(len(x.shape))`) is one trip per axis, not per element ---------

JS202_RANK_SRC = '''import jax
import jax.numpy as jnp


@jax.jit
def integral_image(mask):
    ii = mask.astype(jnp.uint32)
    for axis in range(len(mask.shape)):
        ii = ii.cumsum(axis=axis)
    return ii


@jax.jit
def row_total(x):
    out = x[0]
    for i in range(x.shape[0]):
        out = out + x[i]
    return out
'''


def test_js202_a_loop_over_the_axes_is_the_rank_not_a_data_size():
    """`for axis in range(len(mask.shape))` runs once per axis (the rank, a handful) and its counter is the Python
    int `cumsum(axis=...)` needs: `lax.fori_loop` there hands a tracer to `axis` and fails under real jit. A loop
    over `range(x.shape[0])` (one trip per row) is still flagged."""
    assert [line for line, _, _ in _found(JS202_RANK_SRC, "JS202")] == [16]
    ns: dict = {}
    exec(compile(JS202_RANK_SRC, "m.py", "exec"), ns)
    mask = jnp.ones((3, 4, 2), dtype=bool)
    assert int(ns["integral_image"](mask)[-1, -1, -1]) == 24
    with pytest.raises((TypeError, ValueError)):  # a traced axis: unhashable as cumsum's static `axis`
        jax.jit(lambda m: jax.lax.fori_loop(0, m.ndim, lambda a, ii: ii.cumsum(axis=a), m.astype(jnp.uint32)))(mask)
