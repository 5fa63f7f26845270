"""JAX's own compiles are named by routine (issue #26 item 6): not only "5 compiles, 155 ms"."""

from __future__ import annotations

import jax
import jax.numpy as jnp

import jitscope
from jitscope.render.console import render


def test_eager_operations_are_counted_by_routine_and_shown():
    with jitscope.watch() as w:
        x = jnp.arange(7.0) * 3.0  # eager: JAX compiles its own multiply (and what it needs)
        float(jnp.sum(x))  # eager: JAX's reduction
        jax.jit(lambda a: a + 1)(x)  # the program's own: not an internal routine
    result = w.result()
    names = [r.name for r in result.internal_routines]
    assert any("multiply" in n for n in names) and any("reduce_sum" in n for n in names), names
    assert sum(r.compiles for r in result.internal_routines) == result.internal_compiles
    assert all(r.seconds >= 0 for r in result.internal_routines)
    assert [r.seconds for r in result.internal_routines] == sorted((r.seconds for r in result.internal_routines),
                                                                     reverse=True)
    text = " ".join(render(result).split())
    assert "(most: " in text and result.internal_routines[0].name in text
    again = type(result).from_dict(result.to_dict())
    assert again.internal_routines == result.internal_routines
