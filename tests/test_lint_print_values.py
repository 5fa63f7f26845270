"""JS401 decides from the value model what a print shows. Under real `jax.jit` a print of a jit argument shows
a tracer (`Traced<...>`, no numbers) once per trace: a warning naming it. A print of shapes or config shows the
Python values it was meant to (once per trace, by design): info. A defaulted parameter no caller passes prints
its Python default, and a tracer only where a caller passes an array: info, saying so."""

from __future__ import annotations

import textwrap

import jax.numpy as jnp

from jitscope.lint import lint_source

SRC = textwrap.dedent("""
    import jax


    @jax.jit
    def step(x):
        print("x =", x)
        return x + 1


    @jax.jit
    def shaped(x):
        print("compiling for shape", x.shape, "dtype", x.dtype)
        return x + 1


    @jax.jit
    def defaulted(x, n_iter=3):
        print("n_iter", n_iter)
        return x * n_iter
""")


def _module():
    ns: dict = {}
    exec(compile(SRC, "prints.py", "exec"), ns)
    return ns


def _findings():
    return {f.location.line: f for f in lint_source(SRC, "prints.py") if f.code == "JS401"}


def test_a_jit_argument_prints_a_tracer_once_and_lint_warns_naming_it(capsys):
    ns = _module()
    ns["step"](jnp.ones(3))
    ns["step"](jnp.ones(3))
    out = capsys.readouterr().out
    assert out.count("x =") == 1 and "Trace" in out and "1." not in out  # `Traced<...>` or `JitTracer(...)`
    f = _findings()[7]
    assert f.severity == "warning" and "prints `x` as a tracer" in f.message, f.message


def test_shapes_print_their_numbers_once_per_trace_and_lint_says_info(capsys):
    ns = _module()
    ns["shaped"](jnp.ones(3))
    out = capsys.readouterr().out
    assert "(3,)" in out and "Trace" not in out
    f = _findings()[13]
    assert f.severity == "info" and "of Python values" in f.message, f.message


def test_a_default_no_caller_passes_prints_its_python_value_and_lint_says_info(capsys):
    ns = _module()
    ns["defaulted"](jnp.ones(3))
    assert "n_iter 3" in capsys.readouterr().out  # the default: a Python value
    ns["defaulted"](jnp.ones(3), jnp.int32(2))
    assert "Trace" in capsys.readouterr().out  # only where a caller passes an array
    f = _findings()[19]
    assert f.severity == "info" and "prints `n_iter`, a tracer only on the ways that trace it" in f.message, f.message
