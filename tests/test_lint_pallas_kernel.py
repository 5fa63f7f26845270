"""A Python loop in a Pallas kernel body is the kernel's idiom, not a cost claim (jaxmodel/kernels.py).

Real JAX on CPU (``interpret=True``): the kernels below run under ``jax.jit``, give the loop's result, and their
bodies are traced once however often the jitted function runs; lint's JS202 is ``info`` there and stays a
warning on the same loop in a plain jitted function.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
import pytest

from jitscope.lint import lint_source

pl = pytest.importorskip("jax.experimental.pallas")

SRC = '''import functools
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

TRACES = []


@jax.jit
def weighted_rows(x):
    def kernel(x_ref, o_ref):
        TRACES.append("kernel")
        acc = jnp.zeros(x_ref.shape[1:], x_ref.dtype)
        for i in range(x_ref.shape[0]):
            acc = acc + x_ref[i] * (i + 1)
        o_ref[...] = acc

    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape[1:], x.dtype), interpret=True)(x)


@jax.jit
def doubled(x):
    @functools.partial(pl.pallas_call, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True)
    def twice(x_ref, o_ref):
        for i in range(x_ref.shape[0]):
            o_ref[i] = x_ref[i] * 2.0

    return twice(x)


@jax.jit
def weighted_rows_plain(x):
    acc = jnp.zeros(x.shape[1:], x.dtype)
    for i in range(x.shape[0]):
        acc = acc + x[i] * (i + 1)
    return acc
'''


def _js202(src: str) -> list[tuple[int, str, str]]:
    return [(f.location.line, f.severity, f.message) for f in lint_source(src, "m.py") if f.code == "JS202"]


def test_pallas_kernel_loops_run_under_jit_and_are_traced_once():
    ns: dict = {}
    exec(compile(SRC, "m.py", "exec"), ns)
    x = jnp.arange(18 * 8, dtype=jnp.float32).reshape(18, 8)
    want = np.asarray(ns["weighted_rows_plain"](x))
    seen = []
    for _ in range(3):
        np.testing.assert_allclose(np.asarray(ns["weighted_rows"](x)), want)
        np.testing.assert_allclose(np.asarray(ns["doubled"](x)), 2.0 * np.asarray(x))
        seen.append(len(ns["TRACES"]))
    # the body is traced for the first calls only (JAX 0.10: once; JAX 0.12: at the first and second call), then
    # never again: the unroll is paid once per signature, not per call
    assert set(ns["TRACES"]) == {"kernel"} and seen[-1] <= 2 and seen[-1] == seen[-2], seen


def test_js202_in_a_pallas_kernel_body_is_info_and_says_why():
    found = _js202(SRC)
    kernel = [f for f in found if f[0] == 14]
    assert [(line, sev) for line, sev, _ in kernel] == [(14, "info")]
    assert "Pallas kernel body" in kernel[0][2]
    assert all(sev == "info" for line, sev, _ in found if line == 25)  # the decorated kernel: never a claim


def test_js202_on_the_same_loop_outside_a_kernel_is_no_kernel_finding():
    """Outside a kernel the same loop is the general finding (`info`: a count the data's shape sets)."""
    found = [(line, sev, msg) for line, sev, msg in _js202(SRC) if line == 34]
    assert [(line, sev) for line, sev, _ in found] == [(34, "info")] and "Pallas" not in found[0][2]


def test_a_function_named_kernel_that_no_pallas_call_receives_is_not_a_kernel():
    src = SRC.replace("return pl.pallas_call(kernel,", "return kernel_like(kernel,").replace(
        "def weighted_rows(x):", "def weighted_rows(x, kernel_like=None):")
    found = [(line, sev, msg) for line, sev, msg in _js202(src) if line == 14]
    assert [(line, sev) for line, sev, _ in found] == [(14, "info")] and "Pallas" not in found[0][2]


def test_the_kernel_calls_of_the_table_are_pallas_callables_of_this_jax():
    import importlib

    from jitscope.jaxmodel.kernels import PALLAS_KERNEL_CALLS

    found = []
    for q in sorted(PALLAS_KERNEL_CALLS):
        mod, _, name = q.rpartition(".")
        try:
            found.append(callable(getattr(importlib.import_module(mod), name)))
        except (ImportError, AttributeError):
            continue  # a backend module this JAX does not ship (pallas.tpu / pallas.triton on CPU wheels)
    assert found and all(found)
    assert callable(pl.pallas_call)
