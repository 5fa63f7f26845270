"""What a value IS on a path: a tracer is a `jax.Array` and never an `np.ndarray`, `np.generic` or Python
scalar, so a branch whose guard needs such a type is never taken while tracing, and the `else` of
`isinstance(x, jax.Array)` runs only on host values (lint/guards.py `concrete_facts`). Every guarded function
below runs under real `jax.jit` without error (its NumPy branch is never taken); each look-alike without the
guard fails there, and lint flags exactly the look-alikes."""

from __future__ import annotations

import textwrap

import jax
import jax.numpy as jnp
import pytest

from jitscope.lint import lint_source

SRC = textwrap.dedent("""
    import jax
    import jax.numpy as jnp
    import numpy as np


    def and_chain(x):
        if isinstance(x, np.ndarray) and x.ndim > 0:
            return np.sin(x)
        return jnp.sin(x)


    def conditional_expression(x):
        y = np.sin(x) if isinstance(x, np.ndarray) else jnp.sin(x)
        return y


    def early_exit_or(x):
        if not isinstance(x, np.ndarray) or x.ndim == 0:
            return jnp.cos(x)
        return np.cos(x)


    def numpy_scalar(x):
        if isinstance(x, np.floating) and x > 0:
            return float(x) * jnp.ones(3)
        return x


    def exact_type(x):
        if type(x) is np.ndarray:
            return np.tanh(x)
        return x


    def not_a_jax_array(x):
        if not isinstance(x, jax.Array):
            return jnp.asarray(np.exp(x))
        return x


    def guard_then_test(x):
        if isinstance(x, np.ndarray) and x.sum() > 0:
            return x * 2
        return x


    def dead_branch_other_value(x, y):
        if isinstance(x, np.ndarray):
            return np.sin(y)
        return x + y


    def numpy_mask(x):
        if isinstance(x, np.ndarray):
            return jnp.asarray(x[x > 0].sum())
        return jnp.where(x > 0, x, 0.0).sum()


    def mixed_tuple(x):
        if isinstance(x, (np.ndarray, jax.Array)):
            return np.sin(x)
        return x


    def unguarded(x):
        return np.sin(x)


    def unguarded_test(x):
        if x.sum() > 0:
            return x * 2
        return x


    def unguarded_mask(x):
        return x[x > 0].sum()


    def _is_tracer(v):
        # True under a transformation
        return isinstance(v, jax.core.Tracer)


    def through_predicate(x):
        if not _is_tracer(x) and x.sum() > 0:
            return jnp.asarray(np.sin(x))
        if _is_tracer(x) or np.isnan(x).any():
            return x
        return x * 2


    def union_type(x):
        if isinstance(x, np.ndarray | float):
            return jnp.asarray(np.sin(x))
        return x


    def host_or_list(x):
        if isinstance(x, (np.ndarray, list)):
            return jnp.asarray(np.asarray(x))
        return x
""")
GUARDED = ("and_chain", "conditional_expression", "early_exit_or", "numpy_scalar", "exact_type", "not_a_jax_array",
           "guard_then_test", "dead_branch_other_value", "numpy_mask", "through_predicate",
           "union_type", "host_or_list")
LOOKALIKES = {"mixed_tuple": (62, "JS104"), "unguarded": (67, "JS104"), "unguarded_test": (71, "JS101"),
              "unguarded_mask": (77, "JS301")}


def _module():
    ns: dict = {}
    exec(compile(SRC, "narrow_types.py", "exec"), ns)
    return ns


def _jitted_source() -> str:
    names = [*GUARDED, *LOOKALIKES]
    return SRC + "\n" + "\n".join(f"{n}_jit = jax.jit({n})" for n in names) + "\n"


@pytest.mark.parametrize("name", GUARDED)
def test_guarded_numpy_branch_is_never_taken_under_jit(name):
    ns = _module()
    fn = jax.jit(ns[name])
    args = (jnp.ones(3), jnp.ones(3)) if name == "dead_branch_other_value" else (jnp.ones(3),)
    out = fn(*args)  # the guard sends every tracer to the JAX path
    assert out is not None


@pytest.mark.parametrize("name", sorted(LOOKALIKES))
def test_lookalike_without_the_guard_fails_under_jit(name):
    ns = _module()
    with pytest.raises((jax.errors.TracerArrayConversionError, jax.errors.TracerBoolConversionError,
                        jax.errors.NonConcreteBooleanIndexError)):
        jax.jit(ns[name])(jnp.ones(3))


def test_lint_flags_the_lookalikes_only():
    hits = sorted((f.location.line, f.code) for f in lint_source(_jitted_source(), "narrow_types.py")
                  if f.severity in ("error", "warning"))
    assert hits == sorted(LOOKALIKES.values()), hits


def test_the_guard_itself_is_what_keeps_lint_quiet():
    """Drop each guard (keep its NumPy body): now the NumPy call runs on a tracer and lint reports it."""
    unguarded = _jitted_source().replace("isinstance(x, np.ndarray) and x.ndim > 0", "x.ndim > 0").replace(
        "if isinstance(x, np.ndarray) else", "if x.ndim > 0 else")
    lines = {f.location.line for f in lint_source(unguarded, "narrow_types.py") if f.code == "JS104"}
    assert {9, 14} <= lines, lines


def test_numpy_functions_that_call_the_arrays_own_method_work_on_tracers():
    """JS104's `_DELEGATING`: `np.repeat(x, 2)` calls `x.repeat(2)`, which a tracer has: no finding, and it runs."""
    import numpy as np

    from jitscope.lint.rules.js104_numpy_on_traced import _DELEGATING
    extra = {"searchsorted": (jnp.ones(2),), "repeat": (2,), "reshape": ((-1,),), "swapaxes": (0, 1)}
    for name in sorted(_DELEGATING):
        fn = getattr(np, name)
        x = jnp.ones(2) if name == "searchsorted" else jnp.ones((2, 2))  # sorted 1-D `a`
        jax.jit(lambda x, fn=fn, name=name: fn(x, *extra.get(name, ())))(x)
    src = "import jax\nimport numpy as np\n\n@jax.jit\ndef f(x):\n    return np.repeat(x[None], 3, axis=0)\n"
    assert [f.code for f in lint_source(src, "rep.py")] == []
