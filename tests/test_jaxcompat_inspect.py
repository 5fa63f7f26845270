"""The inspect section of _jaxcompat (jax._src.source_info_util, jit options) on the installed JAX."""

from __future__ import annotations

import os

import jax
import jax.numpy as jnp

import jitscope
from jitscope import _jaxcompat as jc


def _line(fn, text):
    import inspect

    lines, start = inspect.getsourcelines(fn)
    return start + next(i for i, line in enumerate(lines) if text in line)


def helper(x):
    return jnp.cos(x)


def traced(x):
    y = jnp.sin(x)
    return helper(y)


def test_stack_cache_user_frames_cut_at_entry():
    closed = jax.jit(traced).trace(jnp.ones(3)).jaxpr
    cache = jc.StackCache(traced.__code__)
    sin, cos = closed.jaxpr.eqns
    st_sin, st_cos = cache.stack(sin), cache.stack(cos)
    assert [(f[1], f[2]) for f in st_sin] == [("traced", _line(traced, "jnp.sin"))]
    assert [(f[1], f[2]) for f in st_cos] == [("traced", _line(traced, "helper(y)")),
                                              ("helper", _line(helper, "jnp.cos"))]
    assert st_sin[0][0] == __file__ and st_sin[0][3] >= 0  # file and 0-based column
    assert cache.stack(sin) is st_sin  # cached per traceback


def test_stack_cache_without_entry_keeps_callers():
    closed = jax.jit(traced).trace(jnp.ones(3)).jaxpr
    st = jc.StackCache().stack(closed.jaxpr.eqns[0])
    assert st[-1][1] == "traced"  # JAX keeps a bounded number of frames; the innermost is ours
    # no frame of JAX's or jitscope's own package (paths, not names: a checkout is often a folder `jitscope/`)
    own = (os.path.dirname(jax.__file__) + os.sep, os.path.dirname(jitscope.__file__) + os.sep)
    assert not [f[0] for f in st if f[0].startswith(own)]


def test_exception_user_frames():
    def bad(x):
        if x > 0:
            return x
        return -x

    try:
        jax.jit(bad).trace(1.0)
    except jax.errors.TracerBoolConversionError as e:
        frames = jc.exception_user_frames(e)
    assert frames[-1][1].endswith("bad") and frames[-1][2] == _line(bad, "if x > 0")


def test_unwrap_jit():
    def f(x, n):
        return x * n

    j = jax.jit(f, static_argnums=(1,), static_argnames=("n",))
    wrapped, nums, names = jc.unwrap_jit(j)
    assert wrapped is f and 1 in nums and "n" in names
    assert jc.unwrap_jit(f) is None


def test_jit_shardings_returns_what_the_jit_was_given():
    import numpy as np
    from jax.sharding import Mesh, NamedSharding
    from jax.sharding import PartitionSpec as P

    mesh = Mesh(np.array(jax.devices()[:1]), ("x",))
    rows, whole = NamedSharding(mesh, P("x")), NamedSharding(mesh, P())
    opts = jc.jit_shardings(jax.jit(lambda a, b: a + b, in_shardings=(rows, whole), out_shardings=whole))
    assert opts == {"in_shardings": (rows, whole), "out_shardings": whole}
    assert jc.jit_shardings(jax.jit(lambda a: a, out_shardings=rows)) == {"out_shardings": rows}
    assert jc.jit_shardings(jax.jit(lambda a: a)) == {} and jc.jit_shardings(len) == {}


def test_is_user_file_is_the_one_filter_for_inspect_and_watch(tmp_path):
    import json
    import logging
    import os

    import jaxlib

    import jitscope
    from jitscope.collect import watch_signature as sig
    from jitscope.gallery import selu

    assert jc.is_user_file(__file__) and jc.is_user_file(str(tmp_path / "prog.py"))
    assert jc.is_user_file("<stdin>") and jc.is_user_file("<ipython-input-1-abc>")
    assert not jc.is_user_file("<frozen importlib._bootstrap>")
    for not_user in (jax.__file__, jaxlib.__file__, json.__file__, logging.__file__, jitscope.__file__,
                     sig.__file__, jc.__file__):
        assert not jc.is_user_file(not_user), not_user
    # The demo's case studies are the user's code of the demo, for inspect and watch alike.
    assert jc.is_user_file(selu.__file__)
    assert sig.is_user_function(selu.selu) and sig.is_user_function(traced)
    assert not sig.is_user_function(jnp.sin)
    site = sig.user_call_site()
    assert site is not None and os.path.samefile(site.file, __file__)
    assert site.function == "test_is_user_file_is_the_one_filter_for_inspect_and_watch"
    assert sig.is_user_file is jc.is_user_file  # no second filter with its own cache
