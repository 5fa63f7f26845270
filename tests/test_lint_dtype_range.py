"""JS306 where the source names the dtype too: a Python int beyond a narrow integer dtype it is given to.

``jnp.int32(v)`` and ``jnp.asarray(v, jnp.int32)`` (any narrow integer type) raise OverflowError with x64 on or
off (an error); ``jnp.full(shape, v, jnp.int32)`` stores ``v`` wrapped with no error, and ``jnp.full(shape, v)``
fills int32 without x64 (a warning). ``sys.maxsize`` and ``np.iinfo(np.int64).max`` are ints the source spells
out. Every function of PROGRAM runs here under real JAX (eagerly and under jit, x64 off and on): ``raises_``
ones raise OverflowError, ``wraps_`` ones return wrapped values, the look-alikes run and keep their value.
"""

from __future__ import annotations

import ast
import sys
import textwrap
import types

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jitscope.jaxmodel.dtypes import python_int
from jitscope.lint import lint_source

PROGRAM = textwrap.dedent('''\
    import sys

    import jax.numpy as jnp
    import numpy as np


    def raises_int32(x):
        return x + jnp.int32(sys.maxsize)  # JS306 error


    def raises_asarray(x):
        return x + jnp.asarray(2**40, jnp.int32)  # JS306 error


    def raises_int8(x):
        return x + jnp.array(300, dtype=jnp.int8)  # JS306 error


    def raises_uint32(x):
        return x + jnp.uint32(-1)  # JS306 error


    def wraps_full(x):
        return x + jnp.full((2,), 2**40, dtype=jnp.int32)  # JS306 warning


    def wraps_full_iinfo(x):
        return x + jnp.full((2,), np.iinfo(np.int64).max, jnp.int32)  # JS306 warning


    def ok_fits(x):
        return x + jnp.int32(2**31 - 1) + jnp.asarray(255, jnp.uint8) + jnp.full((2,), -(2**31), jnp.int32)


    def ok_float(x):
        return x + jnp.asarray(2**40, jnp.float32) + jnp.full((2,), sys.maxsize, jnp.float32)
''')


def _module():
    mod = types.ModuleType("range_program")
    exec(compile(PROGRAM, "range_program.py", "exec"), mod.__dict__)
    return mod


def test_findings_are_the_marked_lines_with_their_severity():
    found = {(f.location.line, f.severity) for f in lint_source(PROGRAM, "range_program.py") if f.code == "JS306"}
    want = {(i, line.rsplit(" ", 1)[1]) for i, line in enumerate(PROGRAM.splitlines(), 1) if "# JS306" in line}
    assert found == want


def test_full_without_a_dtype_fills_int32_without_x64_and_a_file_enabling_it_is_not_flagged():
    text = "import sys\nimport jax.numpy as jnp\n\ndef f(n):\n    return jnp.full((n,), sys.maxsize)\n"
    assert [(f.location.line, f.severity) for f in lint_source(text, "m.py") if f.code == "JS306"] == [(5, "warning")]
    enabled = 'import jax\njax.config.update("jax_enable_x64", True)\n' + text
    assert not [f for f in lint_source(enabled, "m.py") if f.code == "JS306"]
    assert not jax.config.jax_enable_x64
    assert jnp.full((2,), sys.maxsize).tolist() == [-1, -1]  # silently wrapped


@pytest.mark.parametrize("x64", [False, True])
@pytest.mark.parametrize("jitted", [False, True])
def test_named_dtypes_overflow_or_wrap_with_x64_on_or_off(x64, jitted):
    mod = _module()
    jax.config.update("jax_enable_x64", x64)
    try:
        for fn in (n for n in ast.parse(PROGRAM).body if isinstance(n, ast.FunctionDef)):
            f = getattr(mod, fn.name)
            call = jax.jit(f) if jitted else f
            if fn.name.startswith("raises_"):
                with pytest.raises(OverflowError):
                    call(0)
            elif fn.name.startswith("wraps_"):
                assert np.asarray(call(0)).tolist() in ([0, 0], [-1, -1])  # 2**40 -> 0, 2**63 - 1 -> -1
            else:
                jax.block_until_ready(call(0))
    finally:
        jax.config.update("jax_enable_x64", False)


@pytest.mark.parametrize("text,value", [("sys.maxsize", sys.maxsize), ("-sys.maxsize - 1", -sys.maxsize - 1),
                                        ("np.iinfo(np.int64).max", 2**63 - 1), ('np.iinfo("uint32").max', 2**32 - 1),
                                        ("np.iinfo(np.int64).bits", None), ("x.max", None)])
def test_python_int_knows_named_integer_bounds(text, value):
    names = {"sys.maxsize": "sys.maxsize", "np.iinfo": "numpy.iinfo", "np.int64": "numpy.int64"}
    assert python_int(ast.parse(text, mode="eval").body, lambda n: names.get(ast.unparse(n))) == value
