"""JS306: a Python int beyond int32 meeting a JAX array raises OverflowError without x64 (checked under real JAX).

Every function of PROGRAM runs under real JAX with x64 off: those flagged raise OverflowError (eagerly and
under jit), the look-alikes run (Python arithmetic on big ints, a float literal, a dtype given to
``jnp.asarray``, the int32 bounds themselves). With x64 on every flagged line works, and a file that
enables x64 is not checked.
"""

from __future__ import annotations

import ast
import textwrap
import types

import jax
import jax.numpy as jnp
import pytest

from jitscope.jaxmodel.dtypes import python_int
from jitscope.lint import lint_source

PROGRAM = textwrap.dedent('''\
    import jax
    import jax.numpy as jnp


    def bad_minimum(count):
        return jnp.minimum(count, 10**10)  # JS306


    @jax.jit
    def bad_traced(count):
        return count * 2**31 + 1  # JS306


    def bad_mask(x):
        k = jnp.zeros(3, jnp.uint32)
        return k & 0xFFFFFFFF  # JS306


    def bad_compare(x):
        return jnp.arange(4) < int(1e12)  # JS306


    def bad_at_set(x):
        return jnp.zeros(3).at[0].set(1 << 40)  # JS306


    def ok_python(x):
        big = 10**10
        return x * 0 + (3 * 10**10) // big


    def ok_float(x):
        return jnp.float32(x) * 1e10


    def ok_typed(x):
        return jnp.asarray(2**40, jnp.float32) + x


    def ok_bounds(x):
        return jnp.int32(x) + (2**31 - 1) + -(2**31)
''')


def _module():
    mod = types.ModuleType("overflow_program")
    exec(compile(PROGRAM, "overflow_program.py", "exec"), mod.__dict__)
    return mod


def _functions():
    return [fn for fn in ast.parse(PROGRAM).body if isinstance(fn, ast.FunctionDef)]


def test_findings_are_exactly_the_marked_lines():
    found = [f for f in lint_source(PROGRAM, "overflow_program.py") if f.code == "JS306"]
    want = {i for i, line in enumerate(PROGRAM.splitlines(), 1) if line.rstrip().endswith("# JS306")}
    assert {f.location.line for f in found} == want
    assert {f.severity for f in found} == {"warning"}


@pytest.mark.parametrize("jitted", [False, True])
def test_flagged_functions_overflow_under_real_jax_and_lookalikes_run(jitted):
    assert not jax.config.jax_enable_x64
    mod = _module()
    for fn in _functions():
        f = getattr(mod, fn.name)
        call = jax.jit(f) if jitted else f
        if fn.name.startswith("bad_"):
            with pytest.raises(OverflowError):
                call(jnp.int32(3))
        else:
            jax.block_until_ready(call(jnp.int32(3)))


def test_with_x64_the_flagged_lines_work_and_a_file_enabling_it_is_not_checked():
    mod = _module()
    jax.config.update("jax_enable_x64", True)
    try:
        for fn in _functions():
            jax.block_until_ready(getattr(mod, fn.name)(jnp.int32(3)))
    finally:
        jax.config.update("jax_enable_x64", False)
    enabled = 'jax.config.update("jax_enable_x64", True)\n' + PROGRAM
    assert not [f for f in lint_source(enabled, "m.py") if f.code == "JS306"]


@pytest.mark.parametrize("text,value", [("10**10", 10**10), ("1 << 40", 1 << 40), ("-(2**31)", -(2**31)),
                                        ("int(1e10)", 10**10), ("0xFFFFFFFF", 0xFFFFFFFF), ("2**n", None),
                                        ("1.5", None), ("True", None), ("2**1000000", None)])
def test_python_int_folds_what_the_source_spells_out(text, value):
    assert python_int(ast.parse(text, mode="eval").body) == value
