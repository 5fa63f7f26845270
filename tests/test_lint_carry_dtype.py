"""JS305 and the dtype lattice it rests on (jaxmodel/dtypes.py), each checked against real JAX on CPU.

Every function of PROGRAM is run under real JAX: those JS305 flags raise TypeError (eagerly and under jit),
the look-alikes (a weak Python scalar on one side, the same dtype on both, a 64-bit dtype whose meaning
depends on x64, a dtype that depends on an argument, a value rebound on one branch) run.
"""

from __future__ import annotations

import ast
import itertools
import textwrap
import types

import jax
import jax.numpy as jnp
import pytest

from jitscope.jaxmodel.dtypes import KNOWN, DtypeOf, promote
from jitscope.lint import lint_source

PROGRAM = textwrap.dedent('''\
    import jax.numpy as jnp
    from jax import lax


    def bad_fori(n):
        board = jnp.zeros(121, jnp.int16)
        board = lax.fori_loop(0, n, lambda i, b: b + jnp.int32(1), board)  # JS305
        return board


    def bad_while(n):
        def body(c):
            x, k = c
            return x.astype(jnp.int32), k + 1  # JS305
        return lax.while_loop(lambda c: c[1] < n, body, (jnp.zeros(3, jnp.int16), 0))


    def bad_scan(n):
        def step(c, x):
            return c * jnp.float32(2.0), x  # JS305
        return lax.scan(step, jnp.ones(3, dtype=jnp.float16), jnp.arange(n))


    def bad_cond(n):
        return lax.cond(n > 2, lambda: jnp.zeros(3, jnp.int16), lambda: jnp.zeros(3, jnp.int32))  # JS305


    def bad_cond_operand(n):
        x = jnp.ones(3, jnp.uint8)
        return lax.cond(n > 2, lambda v: v, lambda v: v.astype(jnp.uint16), x)  # JS305


    def ok_weak_body(n):
        board = jnp.zeros(121, jnp.int16)
        return lax.fori_loop(0, n, lambda i, b: b * -1 + 1, board)


    def ok_weak_init(n):
        return lax.fori_loop(0, n, lambda i, c: c + jnp.float32(1), 0.0)


    def ok_same(n):
        board = jnp.zeros(121, jnp.int16)
        return lax.fori_loop(0, n, lambda i, b: (b + jnp.int32(1)).astype(jnp.int16), board)


    def ok_at_set(n):
        board = jnp.zeros(121, jnp.int8)
        return lax.fori_loop(0, n, lambda i, b: b.at[i].set(3), board)


    def ok_x64_dependent(n):
        board = jnp.zeros(121, jnp.int64)
        return lax.fori_loop(0, n, lambda i, b: b + jnp.int32(1), board)


    def ok_argument_dtype(n, step=jnp.int16(1)):
        board = jnp.zeros(121, jnp.int16)
        return lax.fori_loop(0, n, lambda i, b: jnp.where(b > 0, step + 1, b), board)


    def ok_cond_weak(n):
        return lax.cond(n > 2, lambda: 1.0, lambda: jnp.zeros((), jnp.float32))


    def ok_rebound(n):
        board = jnp.zeros(121, jnp.int16)
        if n > 100:
            board = jnp.zeros(121, jnp.int32)
        board = board.astype(jnp.int32)
        return lax.fori_loop(0, n, lambda i, b: b + jnp.int32(1), board)
''')


def _module():
    mod = types.ModuleType("carry_program")
    exec(compile(PROGRAM, "carry_program.py", "exec"), mod.__dict__)
    return mod


def _expected() -> set[int]:
    return {i for i, line in enumerate(PROGRAM.splitlines(), 1) if line.rstrip().endswith("# JS305")}


def test_findings_are_exactly_the_marked_lines_and_are_certain_errors():
    found = [f for f in lint_source(PROGRAM, "carry_program.py") if f.code == "JS305"]
    assert {f.location.line for f in found} == _expected()
    assert {(f.severity, f.confidence) for f in found} == {("error", "certain")}


@pytest.mark.parametrize("jitted", [False, True])
def test_flagged_functions_raise_type_error_under_real_jax_and_lookalikes_run(jitted):
    mod = _module()
    flagged = {f.location.line for f in lint_source(PROGRAM, "carry_program.py") if f.code == "JS305"}
    tree = ast.parse(PROGRAM)
    for fn in tree.body:
        if not isinstance(fn, ast.FunctionDef):
            continue
        end = fn.end_lineno or fn.lineno
        is_flagged = any(fn.lineno <= line <= end for line in flagged)
        assert is_flagged == fn.name.startswith("bad_"), fn.name
        f = getattr(mod, fn.name)
        call = jax.jit(f, static_argnums=0) if jitted else f
        if is_flagged:
            with pytest.raises(TypeError, match="must have equal"):
                call(3)
        else:
            jax.block_until_ready(call(3))


SCALARS = {"int": 1, "float": 1.0}


def _real(d):
    name, weak = d
    if weak:
        return SCALARS[name]
    return jnp.zeros((), jnp.dtype(name))


def _weak(x) -> bool:
    return isinstance(x, (int, float)) or bool(getattr(getattr(x, "aval", None), "weak_type", False))


def test_promotion_lattice_agrees_with_jax_where_it_answers():
    dts = [(n, False) for n in sorted(KNOWN)] + [("int", True), ("float", True)]
    answered = 0
    for a, b in itertools.product(dts, dts):
        want = promote(a, b)
        if want is None:
            continue
        answered += 1
        r = jax.jit(lambda x, y: x + y)(_real(a), _real(b))
        assert (str(r.dtype), _weak(r)) == ((want[0] if not want[1] else str(r.dtype)), want[1]), (a, b)
    assert answered >= 60


def test_expression_forms_match_real_jax():
    src = textwrap.dedent('''\
        def f(x):
            a = jnp.zeros(3, jnp.int16)
            b = jnp.ones((2,), dtype="uint8")
            c = jnp.full((2,), 7, jnp.bfloat16)
            d = a.at[0].set(5)
            e = -a * 2
            g = jnp.where(a > 0, a, jnp.int8(1))
            h = x.astype(jnp.float16)
            k = jnp.int16(3) + jnp.float32(1.0)
            m = jnp.asarray([1, 2], jnp.bool_) | True
    ''')
    tree = ast.parse(src)
    names = {"jnp": "jax.numpy"}

    def resolve(node):
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if isinstance(node, ast.Name) and node.id in names:
            return ".".join([names[node.id], *reversed(parts)])
        return None

    dt = DtypeOf(tree.body[0], resolve)
    env: dict = {}

    def f(x):
        a = jnp.zeros(3, jnp.int16)
        env.update(a=a, b=jnp.ones((2,), dtype="uint8"), c=jnp.full((2,), 7, jnp.bfloat16), d=a.at[0].set(5),
                   e=-a * 2, g=jnp.where(a > 0, a, jnp.int8(1)), h=x.astype(jnp.float16),
                   k=jnp.int16(3) + jnp.float32(1.0), m=jnp.asarray([1, 2], jnp.bool_) | True)

    f(jnp.ones(2))
    for name, value in env.items():
        assert dt.name(name) == (str(value.dtype), False), name
