"""JS304 and the two facts of the tracing model it rests on, each checked against real JAX on CPU:
under jit every jnp operation gives a tracer, even of Python numbers (a must fact where the code is
only ever jitted), and a registered pytree whose ``tree_unflatten`` calls its class runs ``__init__``
inside every trace an instance enters."""

from __future__ import annotations

import textwrap
from functools import partial

import jax
import jax.numpy as jnp
import pytest

from jitscope.lint import lint_source


def _hits(src: str, select: str | None = None) -> list[tuple[str, int, str]]:
    out = lint_source(textwrap.dedent(src), "m.py")
    return sorted((f.code, f.location.line, f.severity) for f in out if select is None or f.code == select)


def test_jnp_of_python_numbers_is_a_tracer_under_jit_and_fails_as_a_count():
    seen = []

    @jax.jit
    def f(x):
        n = jnp.ceil(x.shape[0] / 4).astype(int)
        seen.append(isinstance(n, jax.core.Tracer))
        return jnp.zeros(n)

    with pytest.raises(TypeError):
        f(jnp.ones(8))
    assert seen == [True]
    # eagerly the same count is a concrete array, and works as a shape
    assert jnp.zeros(jnp.ceil(8 / 4).astype(int)).shape == (2,)


ONLY_JITTED = """
    import jax
    import jax.numpy as jnp

    @jax.jit
    def f(x):
        n = jnp.ceil(x.shape[0] / 4).astype(int)
        return jnp.zeros(n)

    def g(x):
        n = jnp.ceil(x.shape[0] / 4).astype(int)
        return jnp.zeros(n)

    h = jax.jit(g)
    y = g(jnp.ones(3))
"""


def test_jnp_of_python_numbers_is_a_must_fact_only_where_the_code_is_only_jitted():
    # f: decorated, every call jitted -> error; g: also called eagerly -> the eager path works: a warning
    assert _hits(ONLY_JITTED, "JS303") == [("JS303", 8, "error"), ("JS303", 12, "warning")]


def _pytree(unflatten_calls_class: bool):
    traced_inits = []

    @jax.tree_util.register_pytree_node_class
    class P:
        def __init__(self, x):
            self.x = x
            traced_inits.append(isinstance(x, jax.core.Tracer))

        def tree_flatten(self):
            return (self.x,), None

        @classmethod
        def tree_unflatten(cls, aux, children):
            if unflatten_calls_class:
                return cls(*children)
            obj = object.__new__(cls)
            obj.x = children[0]
            return obj

    return P, traced_inits


@pytest.mark.parametrize("calls_class", [True, False])
def test_unflatten_runs_init_inside_the_trace_only_when_it_calls_the_class(calls_class):
    P, traced_inits = _pytree(calls_class)
    p = P(jnp.ones(3))
    jax.jit(lambda p: p.x * 2)(p)
    assert any(traced_inits) is calls_class


CHUNKS = """
    import jax
    import jax.numpy as jnp

    @jax.tree_util.register_pytree_node_class
    class Chunks:
        def __init__(self, x, size=2):
            self.x, self.size = x, size
            self.n = jnp.ceil(x.shape[0] / size).astype(int)

        def tree_flatten(self):
            return (self.x,), self.size

        @classmethod
        def tree_unflatten(cls, size, children):
            {unflatten}

        def starts(self):
            v, n = self.x, self.n
            return jnp.arange(n) * self.size
"""


def test_a_count_computed_with_jnp_in_a_rebuilt_init_is_reported_where_it_is_computed():
    src = CHUNKS.replace("{unflatten}", "return cls(*children, size)")
    assert _hits(src, "JS304") == [("JS304", 9, "warning")]
    ns: dict = {}
    exec(textwrap.dedent(src), ns)
    c = ns["Chunks"](jnp.ones(5))
    assert c.starts().tolist() == [0, 2, 4]  # eagerly it works
    with pytest.raises(jax.errors.ConcretizationTypeError):
        jax.jit(lambda c: c.starts())(c)


def test_an_unflatten_that_does_not_call_the_class_keeps_init_eager():
    src = CHUNKS.replace("{unflatten}", "obj = object.__new__(cls)\n"
                         "            obj.x, obj.size = children[0], size\n"
                         "            obj.n = (children[0].shape[0] + size - 1) // size\n"
                         "            return obj")
    assert _hits(src, "JS304") == []
    ns: dict = {}
    exec(textwrap.dedent(src), ns)
    c = ns["Chunks"](jnp.ones(5))
    assert jax.jit(lambda c: c.starts())(c).tolist() == [0, 2, 4]


def _reduce(name, x, k):
    return getattr(jnp, name)(x.reshape(2, 3), axis=k)


# One call per row of jaxmodel.values.STATIC_INT_ARGS, the traced `k` in the row's first static position.
_ROW_CALLS = {
    "jax.nn.one_hot": lambda x, k: jax.nn.one_hot(jnp.array([0, 1]), k),
    "jax.numpy.repeat": lambda x, k: jnp.repeat(x, k),
    "jax.lax.dynamic_slice": lambda x, k: jax.lax.dynamic_slice(x, (0,), (k,)),
    "jax.lax.dynamic_slice_in_dim": lambda x, k: jax.lax.dynamic_slice_in_dim(x, 0, k),
    "jax.numpy.pad": lambda x, k: jnp.pad(x, k),
    "jax.numpy.tril": lambda x, k: jnp.tril(jnp.ones((3, 3)), k),
    "jax.numpy.triu": lambda x, k: jnp.triu(jnp.ones((3, 3)), k),
    "jax.lax.top_k": lambda x, k: jax.lax.top_k(x, k),
    "jax.random.split": lambda x, k: jax.random.split(jax.random.PRNGKey(0), k),
    "jax.numpy.expand_dims": lambda x, k: jnp.expand_dims(x, k),
    "jax.numpy.moveaxis": lambda x, k: jnp.moveaxis(x[None], k, 0),
    "jax.numpy.diag": lambda x, k: jnp.diag(x, k),
    "jax.numpy.triu_indices": lambda x, k: jnp.triu_indices(k),
    "jax.numpy.tril_indices": lambda x, k: jnp.tril_indices(k),
    "jax.numpy.resize": lambda x, k: jnp.resize(x, (k,)),
    "jax.lax.slice": lambda x, k: jax.lax.slice(x, (k,), (5,)),
    "jax.lax.slice_in_dim": lambda x, k: jax.lax.slice_in_dim(x, k, 5),
    "jax.lax.index_in_dim": lambda x, k: jax.lax.index_in_dim(x, k),
    "jax.lax.broadcast": lambda x, k: jax.lax.broadcast(x, (k,)),
    "jax.numpy.zeros_like": lambda x, k: jnp.zeros_like(x, shape=(k,)),
    "jax.numpy.ones_like": lambda x, k: jnp.ones_like(x, shape=(k,)),
    "jax.numpy.full_like": lambda x, k: jnp.full_like(x, 1.0, shape=(k,)),
    **{f"jax.numpy.{r}": partial(_reduce, r)
       for r in ("sum", "mean", "max", "min", "prod", "argmax", "argmin", "cumsum", "std", "var", "any", "all")},
}


def test_every_static_int_row_has_a_real_jax_call():
    from jitscope.jaxmodel.values import STATIC_INT_ARGS

    assert sorted(_ROW_CALLS) == sorted(STATIC_INT_ARGS)


@pytest.mark.parametrize("name", sorted(_ROW_CALLS))
def test_a_traced_int_where_the_row_says_raises_under_jit_and_a_python_int_works(name):
    f = _ROW_CALLS[name]
    x = jnp.arange(6.0)
    jax.jit(f, static_argnums=1)(x, 1)  # a Python int there works
    with pytest.raises(Exception) as info:  # noqa: B017 - JAX raises several error types
        jax.jit(f)(x, jnp.asarray(1))
    assert not isinstance(info.value, (NameError, AttributeError)), info.value


def test_repeat_with_total_repeat_length_takes_traced_repeats():
    x = jnp.arange(3.0)
    assert jax.jit(lambda x, r: jnp.repeat(x, r, total_repeat_length=6))(x, jnp.asarray(2)).shape == (6,)
