"""The shared model of JAX's transforms, checked against real JAX (each row's ``makes``)."""

from __future__ import annotations

import subprocess
import sys

import jax
import jax.numpy as jnp
import pytest

from jitscope.jaxmodel import fixes, known, transforms


def _control_flow_works(apply) -> bool:
    """Does Python control flow on the argument work under this transform? (concrete vs abstract)"""

    def f(x):
        if x.sum() > 0:  # bool() of the traced value
            return x * 2.0
        return x * 3.0

    try:
        apply(f, jnp.ones(3))
    except (jax.errors.ConcretizationTypeError, jax.errors.TracerBoolConversionError):
        return False
    return True


def _scalar(f):
    return lambda x: f(x).sum()


APPLY = {
    "jax.jit": lambda f, x: jax.jit(f)(x),
    "jax.vmap": lambda f, x: jax.vmap(f)(x[:, None]),
    "jax.grad": lambda f, x: jax.grad(_scalar(f))(x),
    "jax.value_and_grad": lambda f, x: jax.value_and_grad(_scalar(f))(x),
    "jax.jacfwd": lambda f, x: jax.jacfwd(f)(x),
    "jax.jacrev": lambda f, x: jax.jacrev(f)(x),
    "jax.jvp": lambda f, x: jax.jvp(f, (x,), (x,)),
    "jax.vjp": lambda f, x: jax.vjp(f, x),
    "jax.linearize": lambda f, x: jax.linearize(f, x),
    "jax.checkpoint": lambda f, x: jax.checkpoint(f)(x),
    "jax.eval_shape": lambda f, x: jax.eval_shape(f, x),
    "jax.make_jaxpr": lambda f, x: jax.make_jaxpr(f)(x),
    "jax.lax.scan": lambda f, x: jax.lax.scan(lambda c, _: (f(c), None), x, None, length=1),
    "jax.lax.fori_loop": lambda f, x: jax.lax.fori_loop(0, 1, lambda i, c: f(c), x),
    "jax.lax.while_loop": lambda f, x: jax.lax.while_loop(lambda c: False, f, x) if f(x) is not None else None,
    "jax.lax.cond": lambda f, x: jax.lax.cond(True, f, f, x),
    "jax.lax.map": lambda f, x: jax.lax.map(f, x[:, None]),
}


@pytest.mark.parametrize("name", sorted(APPLY))
def test_makes_matches_real_jax(name):
    t = known.lookup(name)
    assert t is not None
    works = _control_flow_works(APPLY[name])
    assert (t.makes == "concrete") == works, (name, t.makes, works)


def test_compose_abstract_wins():
    assert transforms.compose("abstract", "concrete") == "abstract"
    assert transforms.compose("concrete", "python") == "concrete"
    assert transforms.compose("python", "python") == "python"
    # jit(grad(f)): grad under jit sees abstract values (real JAX agrees)
    assert not _control_flow_works(lambda f, x: jax.jit(jax.grad(_scalar(f)))(x))


def test_fix_texts_use_the_wrappers_own_options():
    assert "static_argnames" in fixes.make_static("n", "jax.jit")
    assert "static_arg" not in fixes.make_static("lr", "equinox.filter_jit")
    assert "static_arg" not in fixes.make_traced("lr", "equinox.filter_jit")
    assert known.wrapper_options("equinox.filter_jit")[0] == ()


def test_jaxmodel_imports_no_jax():
    code = "import sys, jitscope.jaxmodel.known as k, jitscope.jaxmodel.fixes; k.registry(); print('jax' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
